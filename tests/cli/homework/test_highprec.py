"""High-precision values and derivatives (tape/cli/highprec.py)."""
from __future__ import annotations

import mpmath
import pytest

from tape.cli import highprec as H
from tape.cli.expr import parse


def _fn(text, variables=("x",)):
    return H.compile_tree(parse(text), list(variables))


def test_decimals_keep_the_value_as_typed():
    value = H.value_at(_fn("0.1*x"), H.at([3.0]))
    with mpmath.workdps(H.DIGITS):
        assert value == mpmath.mpf(3) / 10


def test_values_off_the_real_domain_are_undefined():
    assert H.value_at(_fn("sqrt(x)"), H.at([-1.0])) is None
    assert H.value_at(_fn("1/x"), H.at([0.0])) is None
    assert H.value_at(_fn("asin(x)"), H.at([2.0])) is None
    assert H.value_at(_fn("log(x)"), H.at([2.0])) == pytest.approx(0.6931471805599453)


@pytest.mark.parametrize("text, at", [
    ("abs(x)", 0.0),            # a kink
    ("relu(x-20)", 20.0),
    ("cbrt(x)", 0.0),           # an infinite slope, the same from both sides
    ("asin(2*x)", 0.5),         # an edge of the domain
    ("sqrt(x)", 0.0),
])
def test_no_derivative_where_it_does_not_exist(text, at):
    assert H.derivative_at(_fn(text), H.at([at]), [1]) is None


def test_derivatives_to_many_digits():
    x = 1.5
    got = H.derivative_at(_fn("sin(3*x)*exp(x)"), H.at([x]), [2])
    with mpmath.workdps(H.DIGITS):
        t = mpmath.mpf(x)
        exact = mpmath.exp(t) * (-8 * mpmath.sin(3 * t) + 6 * mpmath.cos(3 * t))
        assert abs(got - exact) < mpmath.mpf(10) ** -25 * abs(exact)
    mixed = H.derivative_at(_fn("sin(x*y)", "xy"), H.at([2.0, 3.0]), [1, 1])
    with mpmath.workdps(H.DIGITS):
        exact = mpmath.cos(6) - 6 * mpmath.sin(6)
        assert abs(mixed - exact) < mpmath.mpf(10) ** -25
    big = H.derivative_at(_fn("x^2"), H.at([1e6]), [1])
    assert big == 2e6


def test_differ_is_beyond_rounding_only():
    with mpmath.workdps(H.DIGITS):
        one = mpmath.mpf(1)
        assert not H.differ(one, one + mpmath.mpf(10) ** -30)
        assert H.differ(one, one + mpmath.mpf(10) ** -9)
