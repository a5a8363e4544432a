"""Undoing broadcasting in gradients: the one place every broadcasting rule goes through."""
from __future__ import annotations

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


def unbroadcast(g, shape, nb: int = 0):
    """Sum a cotangent ``g`` (batch axes + broadcast shape) back to ``batch + shape``.

    ``nb`` is the number of leading batch axes of ``g`` that must be kept.
    """
    gshape = g._value.shape
    shape = tuple(shape)
    if gshape[nb:] == shape:
        return g
    reduce_sum, reshape = _ops or _load_ops()
    extra = len(gshape) - nb - len(shape)
    axes = list(range(nb, nb + extra))
    for i, n in enumerate(shape):
        if n == 1 and gshape[nb + extra + i] != 1:
            axes.append(nb + extra + i)
    if axes:
        g = reduce_sum(g, axis=tuple(axes))
    target = tuple(gshape[:nb]) + shape
    if g._value.shape != target:
        g = reshape(g, target)
    return g


def unbroadcast_array(g, shape, nb: int = 0):
    """``unbroadcast`` on a raw NumPy cotangent (the fast first-order path)."""
    gshape = g.shape
    shape = tuple(shape)
    if gshape[nb:] == shape:
        return g
    extra = len(gshape) - nb - len(shape)
    axes = list(range(nb, nb + extra))
    for i, n in enumerate(shape):
        if n == 1 and gshape[nb + extra + i] != 1:
            axes.append(nb + extra + i)
    if axes:
        import numpy as np
        g = np.sum(g, axis=tuple(axes))
    target = tuple(gshape[:nb]) + shape
    return g.reshape(target) if g.shape != target else g
