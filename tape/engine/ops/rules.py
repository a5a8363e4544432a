"""Pieces shared by the forward-mode (JVP) and Taylor-mode rules of several op families.

JVP rules take ``(node, *input_tangents)`` where a tangent is a tensor or None (an input that
carries no tangent: zero). Taylor rules take ``(node, input_series, K)`` where a series is a
NumPy array of shape ``(K,) + value shape`` or None (an input that does not depend on x).
"""
from __future__ import annotations

import numpy as np

from .. import series as S
from ..tensor import _wrap


def plus(a, b):
    """The sum of two tangents, either of which may be None (zero)."""
    if a is None:
        return b
    return a if b is None else a + b


def or_zero(t, x):
    """A tangent, or a zero scalar of ``x``'s dtype that broadcasts as ``x`` would."""
    return t if t is not None else _wrap(np.zeros((), x._value.dtype)[()])


def is_complex(x) -> bool:
    return x._value.dtype.kind == "c"


def full(s, x, K):
    """The series of input ``x``: ``s``, or the constant series of x's value when ``s`` is None."""
    return s if s is not None else S.const(x._value, K)


def out_ndim(node) -> int:
    return node.outputs[0]._value.ndim


def select_series(cond_of):
    """The Taylor rule of a selection between the last two inputs, by ``cond_of(node)``."""
    def rule(node, ins, K):
        a, b = ins[-2:]
        x, y = node.inputs[-2:]
        nd = out_ndim(node)
        return np.where(cond_of(node), S.align(full(a, x, K), nd), S.align(full(b, y, K), nd))
    return rule
