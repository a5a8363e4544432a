"""Random exercises: a true derivative is never called wrong; a perturbed one never correct."""
from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tape.expr import symbolic as S
from tape.expr.parse import parse
from tape.grading.homework import check

TIMEOUT = 5.0
SETTINGS = settings(max_examples=12, deadline=None, derandomize=True,
                    suppress_health_check=[HealthCheck.too_slow])

LEAVES = st.sampled_from(["x", "x", "2*x", "(x+1)", "3"])


def _grow(inner):
    unary = st.sampled_from(["sin({})", "cos({})", "exp({}/3)", "atan({})", "tanh({})",
                             "sqrt(1+({})^2)", "log(2+({})^2)", "({})^2", "({})^3"])
    binary = st.sampled_from(["({}) + ({})", "({}) * ({})", "({}) - ({})",
                              "({}) / (1 + ({})^2)"])
    return st.one_of(st.builds(lambda f, a: f.format(a), unary, inner),
                     st.builds(lambda f, a, b: f.format(a, b), binary, inner, inner))


EXPRESSIONS = st.recursive(LEAVES, _grow, max_leaves=5).filter(lambda s: "x" in s)


def _derivative_text(expression: str) -> str:
    x = S.symbol("x")
    return str(S.derivative(S.to_sympy(parse(expression), {"x": None}), [x]))


def _verdict(expression: str, answer: str):
    return check(expression, answer, timeout=TIMEOUT).correct


@SETTINGS
@given(EXPRESSIONS)
def test_sympys_derivative_is_never_wrong(expression):
    assert _verdict(expression, _derivative_text(expression)) is not False


PERTURBATIONS = st.one_of(
    st.builds(lambda c: f"({{}}) + {c!r}", st.floats(1e-3, 1e3) | st.floats(-1e3, -1e-3)),
    st.builds(lambda c: f"({{}}) * {c!r}", st.floats(0.5, 0.99) | st.floats(1.01, 3.0)),
    st.builds(lambda c: f"({{}}) + {c!r}*x", st.floats(1e-3, 10.0)),
    st.builds(lambda c: f"({{}}) + {c!r}*sin(x)", st.floats(1e-3, 10.0)),
    st.just("({}) + relu(x-50)"),
)


@SETTINGS
@given(EXPRESSIONS, PERTURBATIONS)
def test_a_perturbed_derivative_is_never_correct(expression, perturbation):
    answer = perturbation.format(_derivative_text(expression))
    assert _verdict(expression, answer) is not True, answer


@pytest.mark.parametrize("expression", ["x^2", "sin(x)*exp(x)"])
def test_the_generators_feed_real_exercises(expression):
    # the machinery above is live: a plain exercise gets a definite verdict both ways
    answer = _derivative_text(expression)
    assert _verdict(expression, answer) is True
    assert _verdict(expression, f"({answer}) + 1") is False


# ------------------------------------------------------- shapes made to fool a verdict

HUGE = st.sampled_from(["10^40", "e^100", "1e30", "-(10^25)", "2^200"])


@SETTINGS
@given(EXPRESSIONS, HUGE, st.integers(1, 10 ** 6))
def test_a_huge_constant_in_f_hides_no_difference(expression, huge, shift):
    # the derivative is unchanged by the constant; an answer off by ``shift`` stays wrong
    answer = _derivative_text(expression)
    assert _verdict(f"({expression}) + {huge}", answer) is not False
    assert _verdict(f"({expression}) + {huge}", f"({answer}) + {shift}") is False


@SETTINGS
@given(EXPRESSIONS, st.floats(-19.0, 19.0), st.sampled_from([1e4, 1e5, 3e5]),
       st.floats(0.05, 5.0))
def test_a_narrow_smooth_bump_is_seen(expression, centre, sharpness, height):
    # a bump about 1/sqrt(sharpness) wide, between the points of any coarse sample
    bump = f"{height!r}*exp(-{sharpness!r}*(x - ({centre!r}))^2)"
    answer = f"({_derivative_text(expression)}) + {bump}"
    assert _verdict(expression, answer) is False, answer


@SETTINGS
@given(st.sampled_from([50, 100, 300]), st.floats(-15.0, 15.0), st.floats(1e-3, 0.05))
def test_many_breakpoints_hide_no_narrow_term(steps, centre, width):
    expression = f"x^2 + floor({steps}x)"
    assert _verdict(expression, "2x") is True
    answer = f"2x + relu({width!r} - abs(x - ({centre!r})))"
    assert _verdict(expression, answer) is False, answer


POWERS = st.sampled_from([(1, 3), (2, 3), (4, 3), (5, 3), (1, 5), (2, 5), (7, 5)])


@SETTINGS
@given(POWERS, st.sampled_from([("x", "1"), ("(x-1)", "1"), ("(2x+3)", "2")]))
def test_an_odd_root_is_compared_on_the_whole_line(power, base):
    (p, q), (b, db) = power, base
    # the real power's derivative on the whole line: p/q |b|^((p-q)/q) b', times sign(b)
    # when p - q is odd
    sign = f"sign({b})*" if (p - q) % 2 else ""
    right = f"({p}/{q})*{sign}abs({b})^({p - q}/{q})*{db}"
    expression = f"{b}^({p}/{q})"
    assert _verdict(expression, right) is True, right
    if (p - q) % 2:
        # without the sign it is right only where b > 0
        flipped = f"({p}/{q})*abs({b})^({p - q}/{q})*{db}"
        assert _verdict(expression, flipped) is False, flipped


@settings(max_examples=8, deadline=None, derandomize=True,
          suppress_health_check=[HealthCheck.too_slow])
@given(st.floats(30.0, 3000.0), st.floats(-1.0, 1.0))
def test_a_far_branch_of_a_circle_is_checked(radius, height):
    centre = radius * (1 + height)
    relation = f"x^2 + (y - {centre!r})^2 = {radius!r}^2"
    right = f"-x/(y - {centre!r})"
    lower_only = f"x/sqrt({radius!r}^2 - x^2)"
    assert check(relation, right, implicit=True, timeout=TIMEOUT).correct is True
    assert check(relation, lower_only, implicit=True, timeout=TIMEOUT).correct is False
