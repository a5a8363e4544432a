"""Undoing broadcasting in gradients: the one place every broadcasting rule goes through."""
from __future__ import annotations

import numpy as np

_ops = None


def _load_ops():
    global _ops
    from .ops.array import reshape
    from .ops.reduce import reduce_sum
    _ops = (reduce_sum, reshape)
    return _ops


def batch_ndim(node, g) -> int:
    """Leading batch axes a cotangent carries (0 for a gradient, 1 inside a Jacobian sweep)."""
    return g._value.ndim - node.outputs[0]._value.ndim


def _plan(gshape, shape, nb):
    """Axes of a cotangent of shape ``gshape`` to sum, and the shape to give the sum."""
    extra = len(gshape) - nb - len(shape)
    axes = list(range(nb, nb + extra))
    for i, n in enumerate(shape):
        if n == 1 and gshape[nb + extra + i] != 1:
            axes.append(nb + extra + i)
    return tuple(axes), tuple(gshape[:nb]) + shape


def unbroadcast(g, shape, nb: int = 0):
    """Sum a cotangent ``g`` (batch axes + broadcast shape) back to ``batch + shape``, with
    tape ops (differentiable again). ``nb`` leading batch axes of ``g`` are kept."""
    shape = tuple(shape)
    if g._value.shape[nb:] == shape:
        return g
    reduce_sum, reshape = _ops or _load_ops()
    axes, target = _plan(g._value.shape, shape, nb)
    if axes:
        g = reduce_sum(g, axis=axes)
    return reshape(g, target) if g._value.shape != target else g


def unbroadcast_array(g, shape, nb: int = 0):
    """``unbroadcast`` on a raw NumPy cotangent (the fast first-order path)."""
    shape = tuple(shape)
    if g.shape[nb:] == shape:
        return g
    axes, target = _plan(g.shape, shape, nb)
    if axes:
        g = np.sum(g, axis=axes)
    return g.reshape(target) if g.shape != target else g
