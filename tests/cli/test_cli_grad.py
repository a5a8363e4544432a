"""tape grad: every format, --wrt, --order, vectors, many points."""
from __future__ import annotations

import csv
import io
import json
import math

import numpy as np
import pytest

from cli_helpers import central_difference, numbers, tape_cli


def test_plain_polynomial_from_the_tutorial():
    result = tape_cli("grad", "2*x**3+4*x**2+5*x+6", "--at", "0.5")
    assert result.exit_code == 0
    # d/dx = 6x^2 + 8x + 5
    assert result.stdout == f"{6 * 0.25 + 8 * 0.5 + 5}\n" == "10.5\n"
    assert result.stderr == ""


def test_json_document_exactly_as_the_spec_shows():
    result = tape_cli("grad", "x**2*y", "--at", "x=1,y=2", "--format", "json")
    assert result.exit_code == 0
    assert json.loads(result.stdout) == {
        "expression": "x**2*y", "read_as": "x**2*y", "variables": ["x", "y"], "wrt": ["x", "y"], "order": 1,
        "points": [{"at": {"x": 1.0, "y": 2.0}, "value": 2.0,
                    "gradient": {"x": 4.0, "y": 1.0}}]}


def test_gradient_matches_finite_differences():
    f = lambda x, y: math.sin(x * y) + x ** 3 / (1 + y * y)  # noqa: E731
    point = [0.7, -1.3]
    result = tape_cli("grad", "sin(x*y) + x^3/(1+y^2)", "--at", "0.7,-1.3")
    got = numbers(result.stdout)[0]
    expected = [central_difference(f, point, i) for i in range(2)]
    assert got == pytest.approx(expected, rel=1e-7)


def test_wrt_orders_and_selects():
    result = tape_cli("grad", "x**2*y", "--wrt", "y,x", "--at", "1,2", "-f", "json")
    doc = json.loads(result.stdout)
    assert doc["variables"] == ["y", "x"] and doc["wrt"] == ["y", "x"]
    assert doc["points"][0]["at"] == {"y": 1.0, "x": 2.0}        # --at 1,2 means y=1, x=2
    assert doc["points"][0]["gradient"] == {"y": 4.0, "x": 4.0}  # x^2 = 4, 2xy = 4
    held = tape_cli("grad", "x**2*y", "--wrt", "y", "--at", "x=3,y=2", "-f", "json")
    doc = json.loads(held.stdout)
    assert doc["variables"] == ["y", "x"] and doc["wrt"] == ["y"]
    assert doc["points"][0]["gradient"] == {"y": 9.0}


def test_order_one_variable_gives_the_derivative():
    result = tape_cli("grad", "x^5", "--order", "3", "--at", "2", "-f", "json")
    point = json.loads(result.stdout)["points"][0]
    assert point["derivative"] == pytest.approx(60 * 2 ** 2)        # 5*4*3 x^2
    fourth = tape_cli("grad", "sin(x)", "-n", "4", "--at", "0.3").stdout
    assert float(fourth) == pytest.approx(math.sin(0.3), rel=1e-12)


def test_order_several_variables_gives_each_distinct_partial_once():
    result = tape_cli("grad", "x^3*y^2", "--order", "3", "--at", "x=2,y=3", "-f", "json")
    partials = json.loads(result.stdout)["points"][0]["partials"]
    assert [p["wrt"] for p in partials] == [["x", "x", "x"], ["x", "x", "y"],
                                            ["x", "y", "y"], ["y", "y", "y"]]
    x, y = 2.0, 3.0
    expected = [6 * y ** 2, 6 * x * 2 * y, 3 * x ** 2 * 2, 0.0]
    assert [p["value"] for p in partials] == pytest.approx(expected)


def test_order_one_is_the_gradient():
    a = tape_cli("grad", "x*y", "--at", "1,2", "-f", "json").stdout
    b = tape_cli("grad", "x*y", "--order", "1", "--at", "1,2", "-f", "json").stdout
    assert a == b and "gradient" in json.loads(a)["points"][0]


def test_csv_header_and_rows():
    result = tape_cli("grad", "x^3*y", "--order", "2", "--at", "1,2", "--at", "3,4", "-f",
                      "csv")
    rows = list(csv.reader(io.StringIO(result.stdout)))
    assert rows[0] == ["x", "y", "value", "d2f/dx2", "d2f/dxdy", "d2f/dy2"]
    assert [float(v) for v in rows[1]] == [1.0, 2.0, 2.0, 12.0, 3.0, 0.0]
    assert [float(v) for v in rows[2]] == [3.0, 4.0, 108.0, 72.0, 27.0, 0.0]


def test_csv_gradient_names():
    rows = list(csv.reader(io.StringIO(
        tape_cli("grad", "x*sum(w)", "--at", "x=2,w=[1,2]", "-f", "csv").stdout)))
    assert rows[0] == ["w[0]", "w[1]", "x", "value", "df/dw[0]", "df/dw[1]", "df/dx"]
    assert [float(v) for v in rows[1]] == [1.0, 2.0, 2.0, 6.0, 2.0, 2.0, 3.0]


def test_vector_variables_give_lists():
    result = tape_cli("grad", "dot(w, w) + norm(w) + prod(w) + mean(w) + w[1]",
                      "--at", "w=[3,4]", "-f", "json")
    point = json.loads(result.stdout)["points"][0]
    assert point["at"] == {"w": [3.0, 4.0]}
    w = np.array([3.0, 4.0])
    value = w @ w + 5.0 + 12.0 + 3.5 + 4.0
    gradient = 2 * w + w / 5.0 + np.array([4.0, 3.0]) + 0.5 + np.array([0.0, 1.0])
    assert point["value"] == pytest.approx(value)
    assert point["gradient"]["w"] == pytest.approx(gradient.tolist())


def test_table_format(monkeypatch):
    result = tape_cli("grad", "x^2*y", "--at", "x=1,y=2", "-f", "table", "--precision", "3")
    assert result.exit_code == 0
    assert "tape grad x^2*y" in result.stdout
    assert "∂f/∂x" in result.stdout and "∂f/∂y" in result.stdout
    single = tape_cli("grad", "x^3", "-n", "2", "--at", "1/3", "-f", "table", "--precision", "3")
    assert "d²f/dx²" in single.stdout and "0.333" in single.stdout and "2" in single.stdout


def test_auto_is_plain_when_not_a_terminal():
    auto = tape_cli("grad", "x^2", "--at", "3")
    assert auto.stdout == "6.0\n"


def test_many_points_on_stdin_give_one_line_each():
    result = tape_cli("grad", "sin(x)", "--at", "-", input="0\n0.5\n1\n")
    assert numbers(result.stdout) == [[math.cos(0.0)], [pytest.approx(math.cos(0.5))],
                                      [pytest.approx(math.cos(1.0))]]


def test_many_points_are_independent():
    xs = np.linspace(-2, 2, 1001)
    text = "\n".join(map(repr, xs.tolist()))
    result = tape_cli("grad", "x^3 - 2x", "--at", "-", input=text)
    got = np.array(numbers(result.stdout))[:, 0]
    np.testing.assert_allclose(got, 3 * xs ** 2 - 2, rtol=1e-12, atol=1e-12)


def test_points_file(samples):
    result = tape_cli("grad", "x*y", "--points", str(samples / "points.csv"), "-f", "json")
    doc = json.loads(result.stdout)
    assert [p["at"] for p in doc["points"]][1] == {"x": 1.0, "y": 1.0}
    for p in doc["points"]:
        assert p["gradient"] == {"x": p["at"]["y"], "y": p["at"]["x"]}


def test_constant_target_needs_no_point():
    result = tape_cli("grad", "2^10", "-f", "json")
    assert result.exit_code == 0
    assert json.loads(result.stdout)["points"] == [{"at": {}, "value": 1024.0,
                                                    "gradient": {}}]


def test_non_finite_results_warn():
    result = tape_cli("grad", "1/x", "--at", "0")
    assert result.exit_code == 0
    assert result.stdout.strip() in ("-inf", "inf", "nan")
    assert result.stderr.startswith("warning: ")
    doc = json.loads(tape_cli("grad", "1/x", "--at", "0", "-f", "json").stdout)
    assert doc["points"][0]["gradient"]["x"] == "-inf" and doc["warnings"]


def test_huge_power_does_not_hang():
    result = tape_cli("grad", "9**9**9 * x", "--at", "1")
    assert result.exit_code == 0 and result.stdout.strip() == "inf"


def test_unicode_and_implicit_multiplication_end_to_end():
    result = tape_cli("grad", "2x^2 + 3(x+1) − π·x", "--at", "1")
    assert float(result.stdout) == pytest.approx(4 + 3 - math.pi)


@pytest.mark.parametrize("expression, derivative", [
    ("sec(x)", lambda x: math.sin(x) / math.cos(x) ** 2),
    ("csc(x)", lambda x: -math.cos(x) / math.sin(x) ** 2),
    ("cot(x)", lambda x: -1 / math.sin(x) ** 2),
    ("asin(x)+acos(x)", lambda x: 0.0),
    ("atan(x)", lambda x: 1 / (1 + x * x)),
    ("atan2(x, 2)", lambda x: 2 / (4 + x * x)),
    ("asinh(x)", lambda x: 1 / math.sqrt(x * x + 1)),
    ("acosh(x+2)", lambda x: 1 / math.sqrt((x + 2) ** 2 - 1)),
    ("atanh(x)", lambda x: 1 / (1 - x * x)),
    ("log2(x)", lambda x: 1 / (x * math.log(2))),
    ("log10(x)", lambda x: 1 / (x * math.log(10))),
    ("ln(x)", lambda x: 1 / x),
    ("cbrt(x)", lambda x: x ** (-2 / 3) / 3),
    ("abs(x)", lambda x: 1.0),
    ("sigmoid(x)", lambda x: math.exp(-x) / (1 + math.exp(-x)) ** 2),
    ("softplus(x)", lambda x: 1 / (1 + math.exp(-x))),
    ("relu(x)", lambda x: 1.0),
    ("erf(x)", lambda x: 2 / math.sqrt(math.pi) * math.exp(-x * x)),
    ("sinh(x)*cosh(x)*tanh(x)", None),
    ("sqrt(x)*exp(x)", None),
])
def test_every_function_against_closed_forms_or_differences(expression, derivative):
    x = 0.4
    got = float(tape_cli("grad", expression, "--at", str(x)).stdout)
    if derivative is None:
        import numpy as np  # the independent reference: NumPy and central differences
        env = {"sinh": np.sinh, "cosh": np.cosh, "tanh": np.tanh, "sqrt": np.sqrt,
               "exp": np.exp}
        f = lambda v: eval(expression, env, {"x": v})  # noqa: E731,S307 (test's own text)
        expected = central_difference(f, [x], 0)
    else:
        expected = derivative(x)
    assert got == pytest.approx(expected, rel=1e-7, abs=1e-9)


def test_a_hundred_thousand_characters_end_to_end():
    text = "+".join(["x"] * 50_001)
    assert len(text) >= 100_000
    assert tape_cli("grad", text, "--at", "2").stdout == "50001.0\n"


def test_a_hundred_nesting_levels_end_to_end():
    text = "(" * 100 + "x" + ")" * 100 + "*" + "sin(" * 100 + "y" + ")" * 100

    def f(x, y):
        for _ in range(100):
            y = math.sin(y)
        return x * y

    result = tape_cli("grad", text, "--at", "1.5,2")
    assert result.exit_code == 0, result.stderr
    expected = [central_difference(f, [1.5, 2.0], i) for i in range(2)]
    assert numbers(result.stdout)[0] == pytest.approx(expected, rel=1e-6)
