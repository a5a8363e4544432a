"""A kink within rounding: a point where the argument of ``abs``/``relu``/``sign``/``floor``/
``ceil``/``max``/``min`` is 0 (an integer, a tie) up to the rounding error of its terms counts
as on the kink, as an exact one does: ``grad`` warns, ``tangent`` and ``taylor`` refuse, and
``--check`` (``kink_mask``) sets the point aside. A point that is merely small, or a few
roundings away from the kink on purpose, does not.

Each case names the real point of its kink (with mpmath, at 40 digits), and the table is
checked against it first: the points said to be on a kink within rounding are within 2.5
half-ulps (``EPS * |x|``) of it, the points said to be off it 3.5 or more away.
"""
from __future__ import annotations

import json
import math
from fractions import Fraction

import mpmath
import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

from cli_helpers import tape_cli, tape_process

from tape.expr.kinks import EPS, kink_at, kink_mask
from tape.expr.parse import read

mp = mpmath
PI, SQRT2, TENTHS = (lambda: mp.pi), (lambda: mp.sqrt(2)), (lambda: mp.mpf(3) / 10)

# (expression, --at as typed, the value of the point as Python reads it, its kink exactly,
#  the call named)
ON = [
    ("abs(sin(x))", "pi", math.pi, PI, "abs(sin(x))"),
    ("abs(x^2-2)", "sqrt(2)", math.sqrt(2), SQRT2, "abs(x**2 - 2)"),
    ("abs(x-0.3)", "0.1+0.2", 0.1 + 0.2, TENTHS, "abs(x - 0.3)"),
    ("relu(x-0.3)", "0.1+0.2", 0.1 + 0.2, TENTHS, "relu(x - 0.3)"),
    ("sign(sin(x))", "pi", math.pi, PI, "sign(sin(x))"),
    ("max(x, 0.3)", "0.1+0.2", 0.1 + 0.2, TENTHS, "max(x, 0.3)"),
    ("min(x, 0.3)", "0.1+0.2", 0.1 + 0.2, TENTHS, "min(x, 0.3)"),
    # 10*x rounds to 3.0000000000000004, x/0.1 to 2.9999999999999996: floor gives 2, not 3
    ("floor(10*x)", "0.1+0.2", 0.1 + 0.2, TENTHS, "floor(10*x)"),
    ("floor(x/0.1)", "0.3", 0.3, TENTHS, "floor(x/0.1)"),
    ("ceil(x*x)", "sqrt(2)", math.sqrt(2), SQRT2, "ceil(x*x)"),
    ("abs(cos(x))", "pi/2", math.pi / 2, lambda: mp.pi / 2, "abs(cos(x))"),
]
# (expression, --at, value, the nearest kink exactly): smooth there
OFF = [
    ("abs(x)", "1e-17", 1e-17, lambda: mp.mpf(0)),
    ("abs(x)", "1e-300", 1e-300, lambda: mp.mpf(0)),
    ("abs(x-1)", "1+4e-16", 1 + 4e-16, lambda: mp.mpf(1)),
    ("abs(x-1)", "1.0000000001", 1.0000000001, lambda: mp.mpf(1)),
    ("abs(sin(x))", "3.14", 3.14, PI),
    ("floor(3*x)", "0.1+0.2", 0.1 + 0.2, lambda: mp.mpf(1) / 3),    # 3x is 0.9, not near 1
    ("max(x, 0.3)", "0.31", 0.31, TENTHS),
]


def half_ulps_from_kink(value: float, kink) -> float:
    """|value - kink()| in units of EPS * |value|, at 40 digits."""
    with mp.workdps(40):
        return float(abs(mp.mpf(value) - kink()) / (EPS * abs(value)))


@pytest.mark.parametrize("expression, at, value, kink, call", ON)
def test_the_cases_on_a_kink_are_within_rounding_of_it(expression, at, value, kink, call):
    assert half_ulps_from_kink(value, kink) <= 2.5


@pytest.mark.parametrize("expression, at, value, kink", OFF)
def test_the_cases_off_a_kink_are_further_than_rounding(expression, at, value, kink):
    assert half_ulps_from_kink(value, kink) >= 3.5


@pytest.mark.parametrize("expression, at, value, kink, call", ON)
def test_grad_warns_within_rounding(expression, at, value, kink, call):
    done = tape_cli("grad", expression, "--at", at, "--format", "json")
    assert done.exit_code == 0, done.stderr
    report = json.loads(done.stdout)
    assert report["points"][0]["at"]["x"] == value
    (warning,) = report["warnings"]
    assert warning.startswith(f"{call} has a kink or jump at some of the points asked for, "
                              f"to within rounding (")
    assert "up to the rounding error of its terms" in warning
    assert warning in done.stderr


@pytest.mark.parametrize("command", ["tangent", "taylor"])
@pytest.mark.parametrize("expression, at, value, kink, call", ON)
def test_tangent_and_taylor_refuse_within_rounding(command, expression, at, value, kink, call):
    done = tape_cli(command, expression, "--at", at)
    assert done.exit_code == 2, done.stdout
    assert done.stderr.startswith("error:") and "not differentiable" in done.stderr
    assert f"({call}, where " in done.stderr and " to within rounding, has a kink" in done.stderr
    assert "Traceback" not in done.stderr


def test_the_message_says_what_holds_within_rounding():
    said = {text: kink_at(read(text).tree, {"x": x}) for text, x in
            [("abs(sin(x))", math.pi), ("max(x, 0.3)", 0.1 + 0.2), ("floor(x/0.1)", 0.3)]}
    assert said == {"abs(sin(x))": "abs(sin(x)), where sin(x) is 0 to within rounding,",
                    "max(x, 0.3)": "max(x, 0.3), where x and 0.3 tie to within rounding,",
                    "floor(x/0.1)": "floor(x/0.1), where x/0.1 is an integer to within "
                                    "rounding,"}


@pytest.mark.parametrize("x, on", [(0.3, True), (0.31, False), (0.1 + 0.2, True)])
def test_a_constant_part_rounds_too(x, on):
    # 0.1 + 0.2 is 0.30000000000000004 in floats, 0.3 as typed
    assert (kink_at(read("abs(x - (0.1 + 0.2))").tree, {"x": x}) is not None) is on


def test_plot_refuses_a_tangent_within_rounding():
    done = tape_cli("plot", "abs(sin(x))", "--tangent", "pi")
    assert done.exit_code == 2
    assert "abs(sin(x)), where sin(x) is 0 to within rounding" in done.stderr


@pytest.mark.parametrize("expression, at, value, kink", OFF)
def test_smooth_where_merely_small_or_further_off(expression, at, value, kink):
    done = tape_cli("grad", expression, "--at", at)
    assert done.exit_code == 0 and "kink" not in done.stderr, done.stderr
    done = tape_cli("tangent", expression, "--at", at, "--format", "json")
    assert done.exit_code == 0, done.stderr
    # the slope is f'(x) at the point: compare with a central difference at 40 digits
    f = {"abs(x)": abs, "abs(x-1)": lambda x: abs(x - 1), "abs(sin(x))": lambda x:
         abs(mp.sin(x)), "floor(3*x)": lambda x: mp.floor(3 * x),
         "max(x, 0.3)": lambda x: max(x, mp.mpf(0.3))}[expression]
    with mp.workdps(40):
        h = mp.mpf(value) * mp.mpf(10) ** -20
        slope = (f(mp.mpf(value) + h) - f(mp.mpf(value) - h)) / (2 * h)
    assert json.loads(done.stdout)["slope"] == pytest.approx(float(slope), rel=1e-12)


@pytest.mark.parametrize("expression, x", [("abs(x)", 0.0), ("abs(x - 1)", 1.0),
                                           ("floor(x)", 2.0), ("max(x, 2)", 2.0),
                                           ("relu(x)", 0.0), ("sign(x)", 0.0)])
def test_an_exact_kink_is_named_as_before(expression, x):
    assert kink_at(read(expression).tree, {"x": x}) == expression
    done = tape_cli("grad", expression, "--at", repr(x))
    assert f"{expression} has a kink or jump at some of the points asked for: " in done.stderr


def test_a_stream_within_rounding_warns_once():
    done = tape_process("grad", "abs(sin(x))", "--at", "-", "--format", "plain",
                        input="".join(f"{k}*pi\n" for k in range(1, 3001)))
    assert done.returncode == 0, done.stderr[:500]
    assert done.stderr.count("has a kink or jump") == 1, done.stderr[:500]


def test_kink_mask_within_rounding_for_check():
    tree = read("abs(sin(x)) + floor(x/0.1) + max(x, 0.3)").tree
    x = np.array([math.pi, 3.14, 0.3, 0.31, 0.1 + 0.2, 1e-300, 0.0])
    mask, which = kink_mask(tree, ["x"], [x])
    # 0.1+0.2 is on two: x/0.1 is 3.0000000000000004 there; the first call is named
    assert which == ["abs(sin(x))", None, "floor(x/0.1)", None, "floor(x/0.1)", None,
                     "abs(sin(x))"]
    mask, which = kink_mask(read("max(x, 0.3)").tree, ["x"], [x])
    assert which == [None, None, "max(x, 0.3)", None, "max(x, 0.3)", None, None]
    assert mask.tolist() == [w is not None for w in which]


def test_kink_mask_within_rounding_for_vectors():
    # sum(v) is 0.6000000000000001 for v = [0.1, 0.2, 0.3]; 0.61 is far off
    v = np.array([[0.1, 0.2, 0.3], [0.1, 0.2, 0.31], [0.1 + 0.2, 0.0, 0.0]])
    mask, which = kink_mask(read("abs(sum(v) - 0.6)").tree, ["v"], [v])
    assert mask.tolist() == [True, False, False]
    # a scalar (N, 1) beside a vector: v*x is [0.1, 0.2] and its sum 0.30000000000000004
    x = np.array([[0.1], [0.1], [0.2]])
    u = np.array([[1.0, 2.0], [1.0, 2.1], [1.0, 2.0]])
    mask, which = kink_mask(read("abs(sum(u*x) - 0.3)").tree, ["u", "x"], [u, x])
    assert mask.tolist() == [True, False, False]
    # norm's kink: every component within its rounding of 0
    w = np.array([[0.1 + 0.2, 0.3], [0.31, 0.3], [0.3, 0.1 + 0.2 + 1e-15]])
    mask, which = kink_mask(read("norm(w - 0.3)").tree, ["w"], [w])
    assert mask.tolist() == [True, False, False] and which[0] == "norm(w - 0.3)"


@pytest.mark.parametrize("expression, a, b, at", [("relu(x - 1.1 - 0.2)", "1.1", "0.2", "1.3"),
                                                  ("relu(x - 3.3 - 0.1)", "3.3", "0.1", "3.4")])
def test_the_check_sets_a_point_within_rounding_aside(expression, a, b, at):
    # in floats x - a - b has one sign at this x, in the numbers as typed (SymPy's rationals)
    # the other: tape's derivative and SymPy's differ, and the point is within rounding of
    # the kink
    x = float(at)
    in_floats = (x - float(a)) - float(b)
    as_typed = Fraction(x) - Fraction(a) - Fraction(b)
    assert in_floats != 0 and (in_floats > 0) != (as_typed > 0)
    done = tape_cli("grad", expression, "--at", at, "--check", "--format", "json")
    assert done.exit_code == 0, done.stderr
    doc = json.loads(done.stdout)
    assert doc["points"][0]["check"]["agree"] is False
    assert doc["kinks"] == [{"point": 0, "kink": expression}]
    assert "check failed" not in done.stderr
    mask, which = kink_mask(read(expression).tree, ["x"], [np.array([x, x + 1e-9])])
    assert mask.tolist() == [True, False] and which[0] == expression


def _repr(v: float) -> str:
    return f"({v!r})"


scales = st.integers(-150, 150)
mantissas = st.floats(1.0, 10.0, exclude_max=True)
signs = st.sampled_from([1.0, -1.0])


@settings(max_examples=200, deadline=None)
@given(mantissas, scales, signs, st.integers(-1, 1), st.integers(1000, 10 ** 6))
def test_abs_of_x_minus_a_within_an_ulp_of_a(m, k, sign, near, far):
    a = sign * m * 10.0 ** k
    tree = read(f"abs(x - {_repr(a)})").tree
    on = a
    for _ in range(abs(near)):
        on = math.nextafter(on, math.copysign(math.inf, near))
    assert kink_at(tree, {"x": on}) is not None
    off = a + math.copysign(far * math.ulp(a), near or 1)
    assert kink_at(tree, {"x": off}) is None


@settings(max_examples=200, deadline=None)
@given(mantissas, scales, signs, mantissas, st.integers(-100, 100), st.integers(1000, 10 ** 6))
def test_abs_of_cx_minus_b_at_the_float_nearest_b_over_c(mb, kb, sign, mc, kc, far):
    b, c = sign * mb * 10.0 ** kb, mc * 10.0 ** kc
    x = float(Fraction(b) / Fraction(c))        # b/c rounded once, exactly
    tree = read(f"abs(x*{_repr(c)} - {_repr(b)})").tree
    assert kink_at(tree, {"x": x}) is not None
    assert kink_at(tree, {"x": x + far * math.ulp(x)}) is None
