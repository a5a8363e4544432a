"""calculus.tangents: the value and slopes of the one evaluator, the same numbers for an
expression, a script and plot --tangent, and refusals as CLIError (exit 2), never a number."""
from __future__ import annotations

import json

import numpy as np
import pytest
import sympy as sp

from cli_helpers import tape_cli
from tape.calculus.derivatives import values_of
from tape.calculus.targets import expression_target, make_target
from tape.calculus.tangents import Tangent, evaluate, tangent
from tape.expr.errors import BAD_INPUT, CLIError

X, Y, Z = sp.symbols("x y z", real=True)


@pytest.mark.parametrize("text, f, point", [
    ("x^2*sin(y)", X ** 2 * sp.sin(Y), {"x": 1.5, "y": 0.7}),
    ("exp(x)*cos(x)", sp.exp(X) * sp.cos(X), {"x": -0.4}),
    ("x*y*z + log(y)", X * Y * Z + sp.log(Y), {"x": 1.0, "y": 2.0, "z": 3.0}),
])
def test_value_and_slopes_against_sympy(text, f, point):
    found = tangent(expression_target(text), point)
    subs = {sp.Symbol(n, real=True): v for n, v in point.items()}
    assert found.value == pytest.approx(float(f.subs(subs)), rel=1e-13)
    for n in point:
        d = float(sp.diff(f, sp.Symbol(n, real=True)).subs(subs))
        assert found.slopes[n] == pytest.approx(d, rel=1e-13, abs=1e-15)
    assert found.names == list(point) and found.kink is None


def test_the_equations_data():
    found = tangent(expression_target("x^2 - 4x"), {"x": 3.0})
    assert found.dependent == "y"
    assert found.terms() == [(-3.0, {}), (2.0, {"x": (3.0, 1)})]
    assert found.normal_terms() == [(-3.0, {}), (-0.5, {"x": (3.0, 1)})]
    assert Tangent({"x": 2.0}, -4.0, {"x": 0.0}).normal_terms() is None       # vertical
    assert Tangent({"x": 1.0, "y": 2.0}, 0.0, {"x": 1.0, "y": 1.0}).normal_terms() is None
    assert Tangent({"y": 1.0}, 0.0, {"y": 1.0}).dependent == "z"


@pytest.mark.parametrize("text, point, says", [
    ("sqrt(x)", {"x": -1.0}, "sqrt(x) is not defined at x=-1.0 (value nan): no tangent"),
    ("sqrt(x)", {"x": 0.0}, "sqrt(x) is not differentiable at x=0.0 (d/dx is inf): no tangent"),
    ("abs(x-1)*y", {"x": 1.0, "y": 2.0}, "abs(x-1)*y is not differentiable at x=1.0, y=2.0 "
                                         "(abs(x - 1) has a kink or jump there): no tangent"),
])
def test_no_tangent_is_refused(text, point, says):
    with pytest.raises(CLIError) as caught:
        tangent(expression_target(text), point)
    assert caught.value.code == BAD_INPUT and caught.value.message == says
    # evaluate judges nothing: the numbers (or the kink) are there for plot's own message
    found = evaluate(expression_target(text), point)
    assert found.kink is not None or not np.isfinite([found.value, *found.slopes.values()]).all()


def test_a_script_goes_through_the_same_evaluator(tmp_path):
    script = tmp_path / "f.py"
    script.write_text("import tape\n\ndef f(x):\n    return tape.sin(x) * x + x ** 2\n")
    by_script = evaluate(make_target([f"{script}:f"]), {"x": 1.0})
    by_expression = evaluate(expression_target("sin(x)*x + x^2"), {"x": 1.0})
    assert by_script.value == by_expression.value
    assert by_script.slopes["x"] == pytest.approx(by_expression.slopes["x"], rel=1e-15)
    assert by_script.kink is None
    assert by_script.slopes["x"] == pytest.approx(np.sin(1.0) + np.cos(1.0) + 2.0, rel=1e-15)


def test_values_of_is_what_values_at_computes():
    from tape.calculus.derivatives import values_at

    tree = expression_target("x^3*y").trees[0]
    points = np.array([[2.0, 0.5], [1.0, -1.0]])
    fn = lambda x, y: x ** 3 * y         # noqa: E731
    arrays = [points[:, 0], points[:, 1]]
    for along in ([], ["x"], ["x", "x"], ["x", "y"], ["x", "x", "y"]):
        want = values_at(tree, ["x", "y"], points, along)
        got = values_of(fn, arrays, ["x", "y"], along)
        assert np.array_equal(got[0], want[0])
        assert (got[1] is None) == (want[1] is None)
        if got[1] is not None:
            assert np.allclose(got[1], want[1], rtol=1e-14)


def test_plot_draws_the_tangent_that_tape_tangent_prints():
    doc = json.loads(tape_cli("tangent", "exp(x)*cos(x)", "--at", "0.3", "--format",
                              "json").stdout)
    plot = json.loads(tape_cli("plot", "exp(x)*cos(x)", "--tangent", "0.3", "--points", "5",
                               "--range", "-1:1", "--format", "json").stdout)
    line = plot["series"]["tangent at x=0.3"]
    want = [doc["value"] + doc["slope"] * (x - 0.3) for x in plot["x"]]
    assert line == want
