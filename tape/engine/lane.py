"""The scalar lane: first-order rules of the arithmetic ops on float64 scalars.

Most small programs (``2*x**3 + 4*x**2`` on a scalar Variable) are chains of arithmetic on NumPy
scalars. A tape keeps such an application as a plain tuple ``(op, a, b, out)`` instead of a
``Node`` (``GradientTape._offer_pair``), and the first-order sweep applies the rule below to
it with scalar arithmetic (``sweep.sweep_raw``). Everything else that reads a tape (tensor
rules, persistent and nested tapes, Jacobians, Taylor mode, ``recorded_operations``) sees the
same applications as Nodes (``GradientTape._nodes``).

Each rule is ``rule(g, a, b, out, need_a, need_b) -> (ga, gb)`` on raw values, with ``g`` a
float64 scalar, and gives exactly what the op's fast rule in ``ops/math.py`` gives for it (the
same operations in the same order): scalars carry no structural-zero mask, so ``g * slope`` is
the plain product there too. A rule returns None for what it leaves to the fast rule.
"""
from __future__ import annotations

from .ops.math import add, divide, multiply, pow, subtract
from .registry import _NO_ATTRS, Node, scalar_rule


def as_node(entry):
    """The Node of a lane entry: what the tape would have kept without the lane."""
    op, a, b, out = entry
    return Node(op, (a, b), (out,), _NO_ATTRS)


def _add(g, a, b, out, need_a, need_b):
    return g, g


def _subtract(g, a, b, out, need_a, need_b):
    return g, -g


def _multiply(g, a, b, out, need_a, need_b):
    return (g * b if need_a else None), (g * a if need_b else None)


def _divide(g, a, b, out, need_a, need_b):
    return (g * (1 / b) if need_a else None), (-g * (out / b) if need_b else None)


def _pow(g, x, y, out, need_a, need_b):
    if need_b:          # d/dy takes log(x) where x > 0: the fast rule's way
        return None
    if not need_a:
        return None, None
    gy = g * y
    # x**0 is the constant 1: slope 0, even at x = 0 (where x**-1 is inf)
    return (gy if not y else gy * x ** (y - 1)), None


for _op, _rule in ((add, _add), (subtract, _subtract), (multiply, _multiply), (divide, _divide),
                   (pow, _pow)):
    scalar_rule(_op.name, _rule)
