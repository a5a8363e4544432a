"""The scalar lane: first-order rules of the arithmetic ops on float64 scalars.

Most small programs (``2*x**3 + 4*x**2`` on a scalar Variable) are chains of arithmetic on NumPy
scalars. A tape keeps such an application as a plain tuple ``(op, a, b, out)`` instead of a
``Node`` (``GradientTape._offer_pair``), and the first-order sweep applies the rule below to
it with scalar arithmetic (``sweep.sweep_raw``). Everything else that reads a tape (tensor
rules, persistent and nested tapes, Jacobians, Taylor mode, ``recorded_operations``) sees the
same applications as Nodes (``GradientTape._nodes``).

Each op states its rule beside its other rules (``scalar=`` in ``ops/math.py``):
``rule(g, a, b, out, need_a, need_b) -> (ga, gb)`` on raw values, with ``g`` a float64 scalar,
giving exactly what the op's fast rule gives for it (the same operations in the same order):
scalars carry no structural-zero mask, so ``g * slope`` is the plain product there too. A rule
returns None for what it leaves to the fast rule.
"""
from __future__ import annotations

import contextlib

from .registry import _NO_ATTRS, Node, primitives

_new_node = object.__new__


def as_node(entry):
    """The Node of a lane entry: what the tape would have kept without the lane (built without
    Node.__init__, as ``GradientTape._offer`` builds its Nodes)."""
    op, a, b, out = entry
    node = _new_node(Node)
    node.op = op
    node.inputs = (a, b)
    node.outputs = (out,)
    node.attrs = _NO_ATTRS
    node.needs_grad = None
    return node


@contextlib.contextmanager
def disabled():
    """Run without the lane: every application recorded as a Node and swept by its op's fast
    rule, the way the lane must reproduce bit for bit (tests compare the two). It switches the
    ops' scalar rules off for every thread: not for use while other threads differentiate."""
    saved = [(op, op.scalar) for op in primitives(built_in_only=True) if op.scalar is not None]
    for op, _ in saved:
        op.scalar = None
    try:
        yield
    finally:
        for op, rule in saved:
            if op.fast is not None:     # (unless its gradient was overridden meanwhile)
                op.scalar = rule
