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
