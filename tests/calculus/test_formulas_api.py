"""``tape.calculus.formulas``: ``tape diff`` as a Python call, as a user calls it."""
from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
import sympy as sp

from tape.calculus import formulas
from tape.expr.errors import CLIError

ROOT = Path(__file__).resolve().parents[2]
x, y = sp.symbols("x y", real=True)


def _equal(text: str, expected) -> bool:
    return sp.simplify(sp.sympify(text, locals={"x": x, "y": y}) - expected) == 0


@pytest.mark.parametrize("expression, order, expected", [
    ("x^2 sin x", 1, sp.diff(x**2 * sp.sin(x), x)),
    ("e^(3x)/(1+x^2)", 2, sp.diff(sp.exp(3 * x) / (1 + x**2), x, 2)),
    ("ln(x) atan(x)", 3, sp.diff(sp.log(x) * sp.atan(x), x, 3)),
])
def test_each_derivative_equals_sympys(expression, order, expected):
    found = formulas.derivatives(expression, order=order)
    assert found.order == order and found.wrt == ["x"]
    assert len(found.texts) == 1 and _equal(found.texts[0], expected)


def test_partials_come_in_the_order_of_their_keys():
    found = formulas.derivatives("x^3 y^2", order=2)
    f = x**3 * y**2
    assert [c.name for c in found.components] == ["x", "y"]
    assert found.keys == [(0, 0), (0, 1), (1, 1)]
    for key, text in zip(found.keys, found.texts):
        along = [[x, y][i] for i in key]
        assert _equal(text, sp.diff(f, *along))


def test_an_operator_in_the_text_gives_the_order_and_a_conflicting_order_is_refused():
    assert formulas.derivatives("d²/dx² x^4").order == 2
    with pytest.raises(CLIError, match="asks for derivative order 2"):
        formulas.derivatives("d²/dx² x^4", order=3)


@pytest.mark.parametrize("expression, why", [
    ("sqrt(-1)*x^2", "sqrt(-1) is not real"), ("x*acos(2)", "acos(2) is not real"),
    ("x*tan(pi/2)", "tan(pi/2) is undefined (a pole)")])
def test_a_constant_without_a_real_value_is_refused_by_name(expression, why):
    with pytest.raises(CLIError) as raised:
        formulas.derivatives(expression)
    assert str(raised.value).startswith(f"the expression holds a constant with no real "
                                        f"value: {why};")


def test_too_many_partials_are_refused_before_any_is_computed():
    with pytest.raises(CLIError, match="the limit for tape diff is 200"):
        formulas.derivatives("a*b*c*d*e*f*g*h", order=4)


def test_simplify_gives_sympys_form_of_the_same_derivative():
    found = formulas.derivatives("(x+1)/(x-1)", simplify=True)
    assert found.simplified and _equal(found.texts[0], sp.diff((x + 1) / (x - 1), x))


def test_styles_and_a_bad_style():
    assert "\\" in formulas.derivatives("sqrt(x)", style="latex").texts[0]
    with pytest.raises(ValueError, match="style must be one of plain, pretty, math, latex"):
        formulas.derivatives("x^2", style="html")


def test_implicit_slope_of_a_circle():
    found = formulas.implicit_derivative("x^2 + y^2 = 1")
    assert (found.curve.x, found.curve.y) == ("x", "y")
    assert _equal(found.text, -x / y)
    second = formulas.implicit_derivative("x^2 + y^2 = 1", order=2)
    # on the circle, y'' = -1/y^3
    on_curve = sp.sympify(second.text, locals={"x": x, "y": y}).subs(x**2, 1 - y**2)
    assert sp.simplify(on_curve + 1 / y**3) == 0
    with pytest.raises(CLIError, match="--order 1"):
        formulas.implicit_derivative("x^2 + y^2 = 1", order=3)


def test_the_command_prints_what_the_call_returns():
    found = formulas.derivatives("x^2 y", wrt="x,y")
    done = subprocess.run([sys.executable, "-m", "tape", "diff", "x^2 y", "--wrt", "x,y",
                           "--format", "json"], capture_output=True, text=True, cwd=ROOT,
                          timeout=120)
    assert json.loads(done.stdout)["derivative"] == dict(zip(found.wrt, found.texts))


def test_steps_end_at_the_derivative_and_each_rule_is_named():
    found = formulas.steps("x^2 sin x")
    root = found.document["steps"]["x"][0]
    assert root["rule"] == "product"
    assert {s["rule"] for s in root["steps"]} == {"power", "trigonometric"}
    assert _equal(found.document["derivative"]["x"], sp.diff(x**2 * sp.sin(x), x))


def test_steps_of_the_second_order_differentiate_the_first_result_again():
    found = formulas.steps("x^3 y", wrt="x", order=2)
    roots = found.document["steps"]["x"]
    assert len(roots) == 2 and _equal(roots[1]["expression"], 3 * x**2 * y)
    assert _equal(found.document["derivative"]["x"], 6 * x * y)


def test_steps_in_math_notation_and_their_limits():
    math = formulas.steps("sqrt(x) e^x", style="math").document["derivative"]["x"]
    assert "√" in math and "e^x" in math
    with pytest.raises(CLIError, match="--steps shows orders up to 4"):
        formulas.steps("x^9", order=5)
    with pytest.raises(CLIError, match="no variables"):
        formulas.steps("2 + 3")
