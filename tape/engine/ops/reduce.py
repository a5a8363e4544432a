"""Reductions over axes (``axis`` None, an int or a sequence; ``keepdims``)."""
from __future__ import annotations

import numpy as np

from ..broadcast import batch_ndim
from ..registry import defop
from ..tensor import Tensor, _wrap, convert_to_tensor


def _axes(axis, ndim, what):
    """Normalised tuple of non-negative axes, or None for all axes."""
    if axis is None:
        return None
    if isinstance(axis, Tensor):
        axis = axis._value.tolist()
    if isinstance(axis, (list, tuple, np.ndarray)):
        items = [int(a) for a in np.asarray(axis).ravel()]
    else:
        items = [int(axis)]
    out = []
    for a in items:
        if not -max(ndim, 1) <= a < max(ndim, 1):
            raise ValueError(f"{what}: axis {a} is out of range for a tensor of rank {ndim}")
        out.append(a % max(ndim, 1) if ndim else 0)
    return tuple(sorted(set(out))) if ndim else ()


def _kept_shape(shape, axes):
    if axes is None:
        return (1,) * len(shape)
    return tuple(1 if i in axes else n for i, n in enumerate(shape))


def _spread(node, g):
    """Cotangent of a reduction's output, reshaped and broadcast back to the input's shape."""
    from .array import broadcast_to, reshape
    x = node.inputs[0]
    nb = batch_ndim(node, g)
    bshape = tuple(g.shape[:nb])
    kept = _kept_shape(x.shape, node.attrs["axis"])
    return broadcast_to(reshape(g, bshape + kept), bshape + tuple(x.shape))


def _kept_output(node, g):
    from .array import reshape
    x = node.inputs[0]
    return reshape(node.outputs[0], _kept_shape(x.shape, node.attrs["axis"]))


def _sum_grad(node, g):
    return [_spread(node, g)]


def _count(shape, axes):
    return int(np.prod([shape[i] for i in axes] if axes is not None else shape, dtype=np.int64))


def _mean_grad(node, g):
    x = node.inputs[0]
    return [_spread(node, g) / max(_count(x.shape, node.attrs["axis"]), 1)]


def _extreme_grad(node, g):
    from .compare import equal
    from .math import cast
    x = node.inputs[0]
    mask = cast(equal(x, _kept_output(node, g)), x.dtype)
    ties = _reduce_sum(mask, axis=node.attrs["axis"], keepdims=True)
    return [_spread(node, g) * mask / ties]


def _prod_grad(node, g):
    from .array import where
    from .compare import not_equal
    x = node.inputs[0]
    nonzero = not_equal(x, 0)
    # away from zeros, d prod / d x_i = prod / x_i (differentiable again); at zeros the product of
    # the other factors is computed exactly by _prod_others.
    others = where(nonzero, _kept_output(node, g) / where(nonzero, x, 1),
                   _prod_others(x, axis=node.attrs["axis"]))
    return [_spread(node, g) * others]


def _prod_others_np(x, axis):
    axes = tuple(range(x.ndim)) if axis is None else axis
    moved = np.moveaxis(x, axes, tuple(range(x.ndim - len(axes), x.ndim)))
    flat = moved.reshape(moved.shape[:x.ndim - len(axes)] + (-1,))
    ones = np.ones(flat.shape[:-1] + (1,), x.dtype)
    left = np.cumprod(np.concatenate([ones, flat[..., :-1]], -1), -1)
    right = np.flip(np.cumprod(np.concatenate([ones, np.flip(flat, -1)[..., :-1]], -1), -1), -1)
    out = (left * right).reshape(moved.shape)
    return np.moveaxis(out, tuple(range(x.ndim - len(axes), x.ndim)), axes)


_prod_others = defop("ProdOthers", _prod_others_np, differentiable=False)


def _logsumexp_np(x, axis, keepdims):
    m = np.max(x, axis=axis, keepdims=True)
    m = np.where(np.isfinite(m), m, 0)
    out = np.log(np.sum(np.exp(x - m), axis=axis, keepdims=True)) + m
    return out if keepdims else np.squeeze(out, axis=axis)


def _logsumexp_grad(node, g):
    from .math import exp
    x = node.inputs[0]
    return [_spread(node, g) * exp(x - _kept_output(node, g))]


_reduce_sum = defop("Sum", lambda x, axis, keepdims: np.sum(x, axis=axis, keepdims=keepdims), _sum_grad)
_reduce_mean = defop("Mean", lambda x, axis, keepdims: np.mean(x, axis=axis, keepdims=keepdims),
                     _mean_grad)
_reduce_max = defop("Max", lambda x, axis, keepdims: np.max(x, axis=axis, keepdims=keepdims),
                    _extreme_grad)
_reduce_min = defop("Min", lambda x, axis, keepdims: np.min(x, axis=axis, keepdims=keepdims),
                    _extreme_grad)
_reduce_prod = defop("Prod", lambda x, axis, keepdims: np.prod(x, axis=axis, keepdims=keepdims),
                     _prod_grad)
_reduce_logsumexp = defop("LogSumExp", _logsumexp_np, _logsumexp_grad)
_reduce_any = defop("Any", lambda x, axis, keepdims: np.any(x, axis=axis, keepdims=keepdims),
                    differentiable=False)
_reduce_all = defop("All", lambda x, axis, keepdims: np.all(x, axis=axis, keepdims=keepdims),
                    differentiable=False)
_argmax = defop("ArgMax", lambda x, axis: np.argmax(x, axis=axis), differentiable=False)
_argmin = defop("ArgMin", lambda x, axis: np.argmin(x, axis=axis), differentiable=False)


def _reducer(op, what, empty_ok=True):
    def reduce(input_tensor, axis=None, keepdims=False, name=None):
        x = convert_to_tensor(input_tensor)
        axes = _axes(axis, x.ndim, what)
        if not empty_ok and x._value.size == 0:
            raise ValueError(f"{what}: cannot reduce an empty tensor of shape {tuple(x.shape)}")
        return op(x, axis=axes, keepdims=bool(keepdims))
    reduce.__name__ = what
    reduce.__doc__ = f"``{what}`` of the elements over ``axis`` (all axes when None)."
    return reduce


reduce_sum = _reducer(_reduce_sum, "reduce_sum")
reduce_mean = _reducer(_reduce_mean, "reduce_mean")
reduce_max = _reducer(_reduce_max, "reduce_max", empty_ok=False)
reduce_min = _reducer(_reduce_min, "reduce_min", empty_ok=False)
reduce_prod = _reducer(_reduce_prod, "reduce_prod")
reduce_logsumexp = _reducer(_reduce_logsumexp, "reduce_logsumexp", empty_ok=False)
reduce_any = _reducer(_reduce_any, "reduce_any")
reduce_all = _reducer(_reduce_all, "reduce_all")


def argmax(input, axis=None, output_type=None, name=None):
    x = convert_to_tensor(input)
    return _argmax(x, axis=0 if axis is None else int(axis))


def argmin(input, axis=None, output_type=None, name=None):
    x = convert_to_tensor(input)
    return _argmin(x, axis=0 if axis is None else int(axis))


def _cumsum_np(x, axis, reverse):
    return np.flip(np.cumsum(np.flip(x, axis), axis), axis) if reverse else np.cumsum(x, axis)


def _cumsum_grad(node, g):
    nb = batch_ndim(node, g)
    return [_cumsum(g, axis=node.attrs["axis"] + nb, reverse=not node.attrs["reverse"])]


_cumsum = defop("Cumsum", _cumsum_np, _cumsum_grad)


def cumsum(x, axis=0, exclusive=False, reverse=False, name=None):
    """Cumulative sum along ``axis``."""
    x = convert_to_tensor(x)
    axis = _axes(axis, x.ndim, "cumsum")[0]
    out = _cumsum(x, axis=axis, reverse=bool(reverse))
    if exclusive:
        out = out - x
    return out
