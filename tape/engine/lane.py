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

import contextlib

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


_LANE = ((add, _add), (subtract, _subtract), (multiply, _multiply), (divide, _divide),
         (pow, _pow))
for _op, _rule in _LANE:
    scalar_rule(_op.name, _rule)


@contextlib.contextmanager
def disabled():
    """Run without the lane: every application recorded as a Node and swept by its op's fast
    rule, the way the lane must reproduce bit for bit (tests compare the two). It switches the
    ops' scalar rules off for every thread: not for use while other threads differentiate."""
    for op, _ in _LANE:
        op.scalar = None
    try:
        yield
    finally:
        for op, rule in _LANE:
            if op.fast is not None:     # (unless its gradient was overridden meanwhile)
                op.scalar = rule
