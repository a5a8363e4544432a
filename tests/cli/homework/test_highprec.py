"""High-precision values and derivatives (tape/expr/highprec.py)."""
from __future__ import annotations

import mpmath
import pytest

from tape.expr import highprec as H
from tape.expr.parse import parse


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


def _sympy_fn(text):
    from tape.expr import symbolic as S

    expr = S.as_scalar(S.to_sympy(parse(text), {"x": None}))
    return H.compile_sympy(expr, [S.symbol("x")])


def _calls():
    from tape.expr.functions import FUNCTIONS

    second = {"atan2": "0.7", "log": "3", "root": "3", "max": "0.25", "min": "0.25"}
    for name, function in FUNCTIONS.items():
        if function.kind != "elementwise":
            continue
        yield f"{name}(x)" if function.arity == 1 else f"{name}(x, {second[name]})"
        if function.max_arity == 2 and function.arity == 1:
            yield f"{name}(x, {second[name]})"
    yield from ["x^(1/3)", "(-x)^1.5", "x^-2", "0.1*x + pi*e^x", "(x-1)^x"]


@pytest.mark.parametrize("text", list(_calls()))
def test_the_direct_lowering_has_sympys_values(text):
    # compile_tree does not go through SymPy: it must agree with SymPy's mpmath lambdify on
    # every function of the language, defined or not, at points inside and outside domains
    mine, theirs = _fn(text), _sympy_fn(text)
    for x in [-2.5, -1.0, -0.5, 0.0, 0.3, 0.5, 1.0, 1.7, 3.0, 100.0]:
        p = H.at([x])
        a, b = H.value_at(mine, p), H.value_at(theirs, p)
        assert (a is None) == (b is None), (text, x, a, b)
        if a is not None:
            assert not H.differ(a, b), (text, x, a, b)


def test_trees_with_vectors_go_through_sympy():
    fn = H.compile_tree(parse("x^2"), ["x"])
    assert H.value_at(fn, H.at([3.0])) == 9
    with pytest.raises(Exception):
        H.compile_tree(parse("sum(x)"), ["x"])   # a vector function on a scalar: refused
