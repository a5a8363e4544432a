"""The implicit-differentiation machinery (tape/calculus/implicit.py)."""
from __future__ import annotations

import math

import pytest
import sympy as sp

from tape.expr import highprec as H
from tape.calculus import implicit as I
from tape.expr.errors import CLIError
from tape.expr.parse import parse
from tape.expr.tree import Binary, Number, Variable


@pytest.mark.parametrize("text, message", [
    ("x^2 + y^2", "no '='"),
    ("y = x^2", "label"),                       # the reader drops a 'y =' label
    ("x = y = 1", "only one ="),
    ("x == 1", "only one ="),
])
def test_an_implicit_curve_needs_one_equation(text, message):
    with pytest.raises(CLIError, match=message):
        I.curve_from_text(text)


def test_the_curve_is_the_readers_relation_with_the_names_declared():
    circle = I.curve_from_text("x² + y² = 1")
    assert circle.read_as == "x**2 + y**2 = 1"
    assert circle.left == parse("x^2 + y^2")
    # --dependent is a declared name: 'rate' stays whole instead of r*a*t*e
    curve = I.curve_from_text("rate^2 + t^2 = 1", dependent="rate")
    assert (curve.x, curve.y) == ("t", "rate")
    assert curve.read_as == "rate**2 + t**2 = 1"
    # --wrt is declared too
    curve = I.curve_from_text("y^2 = 2 + time", wrt="time")
    assert curve.variables == ["time", "y"]


def test_relation_reads_both_sides_as_trees():
    r = I.curve_from_text("x^2 + y^2 = 1")
    assert (r.x, r.y) == ("x", "y")
    assert r.left == parse("x^2 + y^2") and r.right == Number(1.0)
    assert r.function == Binary("-", parse("x^2 + y^2"), Number(1.0))
    r = I.curve_from_text("u*v = 2", dependent="u")
    assert (r.x, r.y) == ("v", "u") and r.right == Number(2.0)
    assert I.Curve(Variable("y"), Number(3.0), "x", "y").variables == ["x", "y"]


@pytest.mark.parametrize("text, dependent, message", [
    ("x^2 + z^2 = 1", "y", "--dependent"),
    ("x + y + z = 1", "y", "exactly two"),
    ("= 1", "y", "both sides"),               # the reader's error
])
def test_relation_errors_name_the_problem(text, dependent, message):
    with pytest.raises(CLIError, match=message):
        I.curve_from_text(text, dependent)


def test_symbolic_slopes():
    x, y = sp.Symbol("x", real=True), sp.Symbol("y", real=True)
    circle = I.curve_from_text("x^2 + y^2 = 1")
    assert sp.simplify(I.slope(circle) + x / y) == 0
    assert sp.simplify(I.slope(circle, 2) + (x ** 2 + y ** 2) / y ** 3) == 0
    folium = I.curve_from_text("x^3 + y^3 = 6*x*y")
    assert sp.simplify(I.slope(folium) - (2 * y - x ** 2) / (y ** 2 - 2 * x)) == 0


def test_engine_slope_and_residual():
    circle = I.curve_from_text("x^2+y^2=1")
    assert I.slope_at(circle, 0.6, 0.8) == pytest.approx(-0.75, rel=1e-15)
    assert I.residual(circle, 0.6, 0.8) == pytest.approx(0.0, abs=1e-15)
    assert I.residual(circle, 1.0, 1.0) == pytest.approx(1.0)
    I.require_on_curve(circle, 0.6, 0.8)
    with pytest.raises(CLIError, match="not on the curve.*1.0"):
        I.require_on_curve(circle, 1.0, 1.0)


def test_points_on_curve_are_on_it_to_many_digits():
    folium = I.curve_from_text("x^3 + y^3 = 6*x*y")
    points = I.points_on_curve(folium)
    assert len(points) >= 20
    f = H.compile_tree(folium.function, folium.variables)
    for x, y in points:
        assert abs(H.value_at(f, [x, y])) < 1e-25 * (1 + abs(x) ** 3 + abs(y) ** 3)


def test_poles_are_not_points_on_the_curve():
    # 1/y = x changes sign through infinity at y = 0, and has no point with x = 0
    points = I.points_on_curve(I.curve_from_text("1/y = x"))
    assert points and all(abs(x * y - 1) < 1e-25 for x, y in points)


def test_high_precision_slope_and_second_derivative():
    circle = I.curve_from_text("x^2+y^2=1")
    f = H.compile_tree(circle.function, circle.variables)
    mp = H.mpmath()
    with mp.workdps(H.DIGITS):
        x = mp.mpf("0.6")
        y = mp.sqrt(1 - x ** 2)
        assert abs(I.slope_high_precision(circle, f, x, y) + x / y) < mp.mpf(10) ** -25
        assert abs(I.slope_high_precision(circle, f, x, y, 2) + 1 / y ** 3) < \
            mp.mpf(10) ** -15
    # a vertical tangent has no slope
    assert I.slope_high_precision(circle, f, mp.mpf(1), mp.mpf(0)) is None
    assert math.isnan(I.slope_at(circle, 1.0, 0.0)) or abs(I.slope_at(circle, 1.0, 0.0)) > 1e300
