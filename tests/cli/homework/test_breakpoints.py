"""Answers wrong only on a narrow interval, or only far away: the breakpoints of the answer's
piecewise parts are sampled on both sides, so such an answer is never called correct."""
from __future__ import annotations

import numpy as np
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tape.grading.homework import _exercise, breakpoints, candidate_points, check

SETTINGS = settings(max_examples=25, deadline=None, derandomize=True,
                    suppress_health_check=[HealthCheck.too_slow])

#: terms that are 0 except on a narrow interval (a, a + w) or beyond a threshold a
NARROW = [
    "relu({a} + {w} - x)*relu(x - ({a}))*1e3",       # a bump on (a, a + w)
    "relu({w} - abs(x - ({a})))",                    # a tent around a
    "max(0, min(x - ({a}), ({a}) + {w} - x))",       # the same tent with max/min
    "relu(x - ({a}))",                               # zero below a
    "relu(({a}) - x)",                               # zero above a
    "relu(floor(x - ({a})))",                        # zero below a + 1, in steps
    "relu(sign(x - ({a})))",                         # 1 above a
]

THRESHOLDS = st.floats(-1e6, 1e6, allow_nan=False) | st.floats(-30, 30, allow_nan=False)
WIDTHS = st.floats(1e-3, 2.0)


def _verdict(expression: str, answer: str):
    return check(expression, answer, timeout=5.0)


@SETTINGS
@given(st.sampled_from(NARROW), THRESHOLDS, WIDTHS)
def test_a_term_alive_on_a_narrow_interval_is_found(term, a, w):
    answer = "2*x + " + term.format(a=repr(a), w=repr(w))
    decision = _verdict("x^2", answer)
    assert decision.correct is False, answer
    x = decision.counterexample["at"]["x"]
    assert decision.counterexample["expected"] == 2 * x or \
        abs(decision.counterexample["expected"] - 2 * x) <= 1e-12 * abs(2 * x)


@settings(max_examples=10, deadline=None, derandomize=True,
          suppress_health_check=[HealthCheck.too_slow])
@given(st.floats(-1e6, 1e6, allow_nan=False), WIDTHS)
def test_the_narrow_term_in_another_exercise(a, w):
    answer = f"cos(x) + relu({w!r} - abs(x - ({a!r})))"
    assert _verdict("sin(x)", answer).correct is False, answer


@settings(max_examples=10, deadline=None, derandomize=True,
          suppress_health_check=[HealthCheck.too_slow])
@given(st.floats(-100, 100, allow_nan=False))
def test_a_kink_in_the_expression_does_not_make_a_right_answer_wrong(a):
    # the sample now sits right beside the kink: those points must not become counterexamples
    decision = _verdict(f"abs(x - ({a!r}))*x", f"abs(x - ({a!r})) + x*sign(x - ({a!r}))")
    assert decision.correct is True


def test_breakpoints_straddle_each_break_and_fill_the_gaps():
    exercise = _exercise("x^2", "2*x + relu(x-3.1)*relu(3.2-x)", None, 1)
    points = breakpoints(exercise, candidate_points(1))[:, 0]
    inside = points[(points > 3.1) & (points < 3.2)]
    assert len(inside) >= 4                   # beside both breaks, and midway
    assert np.any(np.abs(inside - 3.15) < 1e-9)
    assert np.any((points < 3.1) & (points > 3.09)) and np.any((points > 3.2) & (points < 3.21))


def test_floor_breaks_at_every_integer_crossing_in_reach():
    exercise = _exercise("floor(x/100)", "0", None, 1)
    points = breakpoints(exercise, candidate_points(1))[:, 0]
    for k in (-2, 1, 7):
        assert np.any(np.abs(points - 100 * k) < 1e-3 * 100 * abs(k) + 1e-6)


def test_breakpoints_in_several_variables():
    exercise = _exercise("x*y", "y + relu(x - 2.5*y)", "x", 1)
    points = breakpoints(exercise, candidate_points(2))
    g = points[:, 0] - 2.5 * points[:, 1]
    assert np.any((g > 0) & (g < 1e-2)) and np.any((g < 0) & (g > -1e-2))
    assert _verdict_wrt("x*y", "y + relu(x - 2.5*y)", "x").correct is False


def _verdict_wrt(expression, answer, wrt):
    return check(expression, answer, wrt=wrt, timeout=5.0)


def test_one_argument_that_breaks_two_ways_is_searched_both_ways():
    """|x| breaks at 0 and floor(x) at every integer: the same argument, two searches."""
    from tape.grading.homework import breaking_arguments
    from tape.expr.parse import parse

    kinds = sorted(stepwise for _, stepwise in breaking_arguments(parse("abs(x) + floor(x)")))
    assert kinds == [False, True]
    exercise = _exercise("x^2 + abs(x) + floor(x)", "2x + sign(x)", None, 1)
    near = breakpoints(exercise, candidate_points(1), None)[:, 0]
    assert np.any(np.abs(near - 7.0) < 1e-5)        # an integer far from 0 is sampled
