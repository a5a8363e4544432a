"""tape jacobian and tape hessian."""
from __future__ import annotations

import csv
import io
import json
import math

import numpy as np
import pytest

from cli_helpers import numbers, tape_cli


def test_jacobian_of_a_bracketed_list():
    result = tape_cli("jacobian", "[x*y, x+y]", "--at", "x=1,y=2", "-f", "json")
    assert result.exit_code == 0
    assert json.loads(result.stdout) == {
        "expression": ["x*y", "x+y"], "read_as": ["x*y", "x + y"], "variables": ["x", "y"], "wrt": ["x", "y"],
        "points": [{"at": {"x": 1.0, "y": 2.0}, "value": [2.0, 3.0],
                    "jacobian": [[2.0, 1.0], [1.0, 1.0]]}]}


def test_jacobian_of_several_expressions_equals_the_bracketed_list():
    a = json.loads(tape_cli("jacobian", "x*y", "sin(x)", "--at", "0.5,2", "-f", "json").stdout)
    b = json.loads(tape_cli("jacobian", "[x*y, sin(x)]", "--at", "0.5,2", "-f",
                            "json").stdout)
    assert a["expression"] == ["x*y", "sin(x)"]
    assert a["points"] == b["points"]
    assert a["points"][0]["jacobian"] == [[2.0, 0.5], [pytest.approx(math.cos(0.5)), 0.0]]


def test_jacobian_plain_is_row_major():
    result = tape_cli("jacobian", "[x^2, x*y, y^3]", "--at", "2,3")
    assert numbers(result.stdout) == [[4.0, 0.0, 3.0, 2.0, 0.0, 27.0]]


def test_jacobian_wrt_columns():
    result = tape_cli("jacobian", "[x*y, x+y]", "--wrt", "y", "--at", "y=2,x=5", "-f", "json")
    doc = json.loads(result.stdout)
    assert doc["wrt"] == ["y"] and doc["points"][0]["jacobian"] == [[5.0], [1.0]]


def test_jacobian_of_a_vector_expression_flattens_components():
    result = tape_cli("jacobian", "v*2", "--at", "v=[1,2]", "-f", "json")
    point = json.loads(result.stdout)["points"][0]
    assert point["value"] == [2.0, 4.0]
    assert point["jacobian"] == [[2.0, 0.0], [0.0, 2.0]]


def test_jacobian_csv_and_table():
    rows = list(csv.reader(io.StringIO(
        tape_cli("jacobian", "[x*y, x+y]", "--at", "1,2", "-f", "csv").stdout)))
    assert rows[0] == ["x", "y", "value[0]", "value[1]", "df1/dx", "df1/dy", "df2/dx",
                       "df2/dy"]
    table = tape_cli("jacobian", "[x*y, x+y]", "--at", "1,2", "-f", "table").stdout
    assert "f1" in table and "f2" in table


def test_jacobian_many_points():
    result = tape_cli("jacobian", "[x*y, x-y]", "--at", "-", input="1,2\n3,4\n")
    assert numbers(result.stdout) == [[2.0, 1.0, 1.0, -1.0], [4.0, 3.0, 1.0, -1.0]]


def test_hessian_json_rows_and_columns_in_wrt_order():
    result = tape_cli("hessian", "x^3*y^2", "--at", "x=2,y=3", "-f", "json")
    point = json.loads(result.stdout)["points"][0]
    x, y = 2.0, 3.0
    assert point["value"] == pytest.approx(x ** 3 * y ** 2)
    assert point["hessian"] == [[6 * x * y ** 2, 6 * x ** 2 * y], [6 * x ** 2 * y, 2 * x ** 3]]
    swapped = json.loads(tape_cli("hessian", "x^3*y^2", "--wrt", "y,x", "--at", "x=2,y=3",
                                  "-f", "json").stdout)["points"][0]["hessian"]
    assert swapped == [[2 * x ** 3, 6 * x ** 2 * y], [6 * x ** 2 * y, 6 * x * y ** 2]]


def test_hessian_of_a_vector_variable():
    # f = w0^2 * w1 + sum(w): H = [[2 w1, 2 w0], [2 w0, 0]]
    result = tape_cli("hessian", "w[0]^2*w[1] + sum(w)", "--at", "w=[1.5,-2]", "-f", "json")
    assert json.loads(result.stdout)["points"][0]["hessian"] == [[-4.0, 3.0], [3.0, 0.0]]


def test_hessian_plain_csv_and_table():
    assert numbers(tape_cli("hessian", "x*y^2", "--at", "1,2").stdout) == \
        [[0.0, 4.0, 4.0, 2.0]]
    rows = list(csv.reader(io.StringIO(
        tape_cli("hessian", "x*y^2", "--at", "1,2", "-f", "csv").stdout)))
    assert rows[0][3:] == ["d2f/dx2", "d2f/dxdy", "d2f/dydx", "d2f/dy2"]
    table = tape_cli("hessian", "x*y^2", "--at", "1,2", "-f", "table").stdout
    assert "tape hessian x*y^2" in table
    wide = tape_cli("hessian", "x*y^2", "--at", "1,2", "--at", "2,3", "-f", "table").stdout
    assert "∂²f/∂x∂y" in wide and "∂²f/∂x²" in wide


def test_hessian_matches_finite_differences_of_the_gradient():
    f_text = "exp(x*y) + sin(x)/y"
    h = 1e-5
    x, y = 0.3, 1.7

    def grad(px, py):
        out = tape_cli("grad", f_text, "--at", f"{px!r},{py!r}").stdout
        return np.array(numbers(out)[0])

    fd = np.stack([(grad(x + h, y) - grad(x - h, y)) / (2 * h),
                   (grad(x, y + h) - grad(x, y - h)) / (2 * h)])
    got = np.array(numbers(tape_cli("hessian", f_text, "--at", f"{x},{y}").stdout)[0])
    np.testing.assert_allclose(got.reshape(2, 2), fd, rtol=1e-6)


def test_hessian_needs_a_scalar():
    result = tape_cli("hessian", "v*2", "--at", "v=[1,2]")
    assert result.exit_code == 2 and "scalar" in result.stderr
