"""Undoing broadcasting in gradients: which axes to sum (``unbroadcast_plan``), and the sum on
raw NumPy cotangents. The sum with tape ops is ``ops.array.unbroadcast``."""
from __future__ import annotations

import numpy as np

def batch_ndim(node, g) -> int:
    """Leading batch axes a cotangent carries (0 for a gradient, 1 inside a Jacobian sweep)."""
    return g._value.ndim - node.outputs[0]._value.ndim


def unbroadcast_plan(gshape, shape, nb):
    """Axes of a cotangent of shape ``gshape`` to sum, and the shape to give the sum."""
    extra = len(gshape) - nb - len(shape)
    axes = list(range(nb, nb + extra))
    for i, n in enumerate(shape):
        if n == 1 and gshape[nb + extra + i] != 1:
            axes.append(nb + extra + i)
    return tuple(axes), tuple(gshape[:nb]) + shape


def unbroadcast_array(g, shape, nb: int = 0):
    """``ops.array.unbroadcast`` on a raw NumPy cotangent (the fast first-order path)."""
    shape = tuple(shape)
    if g.shape[nb:] == shape:
        return g
    axes, target = unbroadcast_plan(g.shape, shape, nb)
    if axes:
        g = np.sum(g, axis=axes)
    return g.reshape(target) if g.shape != target else g
