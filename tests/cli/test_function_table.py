"""The function table's columns agree with each other (tape/expr/functions.py).

Each function's derivative is written once, as a template that two builders turn into tape's
trees (``treediff``) and into SymPy (``steps``); both must be the derivative of the function's
mpmath column, found independently by mpmath's numerical differentiation."""
from __future__ import annotations

import mpmath
import pytest

from tape.expr import highprec as H
from tape.expr import symbolic as S
from tape.expr import tree as E
from tape.expr.functions import FUNCTIONS, mpmath_function
from tape.calculus.treediff import TreeBuilder

#: points spread over the domains (each function is checked where it is defined)
POINTS = [-2.7, -1.3, -0.6, -0.2, 0.3, 0.5, 0.7, 0.9, 1.4, 1.9, 2.9]
WITH_TEMPLATE = [name for name, f in FUNCTIONS.items() if f.derivative is not None]


def test_templates_and_step_rules_cover_the_elementary_functions():
    assert {"sin", "tan", "acosh", "asec", "log2", "cbrt", "abs"} <= set(WITH_TEMPLATE)
    for name, function in FUNCTIONS.items():
        if function.rule is not None:       # a step names its rule and shows the template
            assert function.derivative is not None, name
        if function.derivative is not None:
            assert function.arity == 1 and function.kind == "elementwise", name


def test_every_scalar_function_has_an_mpmath_side():
    for name, function in FUNCTIONS.items():
        assert (function.mpmath is None) == (function.kind != "elementwise"), name


@pytest.mark.parametrize("name", WITH_TEMPLATE)
def test_both_builders_give_the_derivative_of_the_mpmath_function(name):
    fn = mpmath_function(mpmath, name)
    tree = FUNCTIONS[name].derivative(TreeBuilder(), E.Variable("u"))
    from_tree = H.compile_tree(tree, ["u"])
    u = S.symbol("u")
    from_sympy = H.compile_sympy(FUNCTIONS[name].derivative(S.SympyBuilder(), u), [u])
    checked = 0
    for point in POINTS:
        at = H.at([point])
        expected = H.derivative_at(lambda t: H.real(fn(t)), at, [1])
        if expected is None:                # off the domain, or at a jump
            continue
        for got in (H.value_at(from_tree, at), H.value_at(from_sympy, at)):
            assert got is not None and not H.differ(got, expected, 1), (name, point, got)
        checked += 1
    assert checked >= 3, name


def test_sign_is_written_for_each_builder():
    # tape's tree keeps sign(u); the steps write u/|u|, which the next order can differentiate
    assert FUNCTIONS["abs"].derivative(TreeBuilder(), E.Variable("u")) == \
        E.Call("sign", (E.Variable("u"),))
    u = S.symbol("u")
    assert FUNCTIONS["abs"].derivative(S.SympyBuilder(), u) == u / S.sympy().Abs(u)
