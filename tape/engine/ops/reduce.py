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
    x = node.inputs[0]
    axis = node.attrs["axis"]
    if np.all(x._value != 0):
        others = _kept_output(node, g) / x           # d prod / d x_i = prod / x_i
    else:
        others = _prod_of_others(x, axis)
    if x._value.dtype.kind == "c":                   # TensorFlow's convention: g * conj(d prod / d x_i)
        from .math import conj
        others = conj(others)
    return [_spread(node, g) * others]


def _prod_of_others(x, axis):
    """prod_{j != i} x_j over ``axis`` for every i, exactly (no division), with tape ops.

    Used only when a factor is zero. It costs O(n^2) in the reduced length n, and stays
    differentiable to any order because it is built from reduce_prod itself.
    """
    from .array import reshape, transpose, where
    nd = x.ndim
    axes = tuple(range(nd)) if axis is None else axis
    keep = tuple(i for i in range(nd) if i not in axes)
    moved = transpose(x, keep + axes) if keep + axes != tuple(range(nd)) else x
    lead = tuple(x.shape[i] for i in keep)
    n = int(np.prod([x.shape[i] for i in axes], dtype=np.int64))
    flat = reshape(moved, lead + (1, n))
    eye = _wrap(np.eye(n, dtype=bool))
    others = _reduce_prod(where(eye, 1, flat), axis=(len(lead) + 1,), keepdims=False)   # lead + (n,)
    others = reshape(others, lead + tuple(x.shape[i] for i in axes))
    inverse = tuple(np.argsort(keep + axes))
    return transpose(others, inverse) if keep + axes != tuple(range(nd)) else others


def _logsumexp_np(x, axis, keepdims):
    m = np.max(x, axis=axis, keepdims=True)
    m = np.where(np.isfinite(m), m, 0)
    out = np.log(np.sum(np.exp(x - m), axis=axis, keepdims=True)) + m
    return out if keepdims else np.squeeze(out, axis=axis)


def _logsumexp_grad(node, g):
    from .math import exp
    x = node.inputs[0]
    return [_spread(node, g) * exp(x - _kept_output(node, g))]


def _sum_fast(node, g):
    x = node.inputs[0]._value
    nb = g.ndim - node.outputs[0]._value.ndim
    kept = g.shape[:nb] + _kept_shape(x.shape, node.attrs["axis"])
    return np.broadcast_to(np.reshape(g, kept), g.shape[:nb] + x.shape)     # a view: no copy


_reduce_sum = defop("Sum", lambda x, axis, keepdims: np.sum(x, axis=axis, keepdims=keepdims), _sum_grad,
                    fast=_sum_fast)
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


def refuse_complex(x, what):
    """TypeError for a complex input to an op TensorFlow has no complex kernel for (it orders values)."""
    if x._value.dtype.kind == "c":
        raise TypeError(f"{what}: complex inputs are not supported (dtype {x.dtype.name}), as in "
                        "TensorFlow; use math.real, math.imag or abs first")


def _reducer(op, what, empty_ok=True, real_only=False):
    def reduce(input_tensor, axis=None, keepdims=False, name=None):
        x = convert_to_tensor(input_tensor)
        if real_only:
            refuse_complex(x, what)
        axes = _axes(axis, x.ndim, what)
        if not empty_ok and x._value.size == 0:
            raise ValueError(f"{what}: cannot reduce an empty tensor of shape {tuple(x.shape)}")
        return op(x, axis=axes, keepdims=bool(keepdims))
    reduce.__name__ = what
    reduce.__doc__ = f"``{what}`` of the elements over ``axis`` (all axes when None)."
    return reduce


reduce_sum = _reducer(_reduce_sum, "reduce_sum")
reduce_mean = _reducer(_reduce_mean, "reduce_mean")
reduce_max = _reducer(_reduce_max, "reduce_max", empty_ok=False, real_only=True)
reduce_min = _reducer(_reduce_min, "reduce_min", empty_ok=False, real_only=True)
reduce_prod = _reducer(_reduce_prod, "reduce_prod")
reduce_logsumexp = _reducer(_reduce_logsumexp, "reduce_logsumexp", empty_ok=False, real_only=True)
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
    if x.ndim == 0:
        raise ValueError("cumsum: needs a tensor of rank >= 1, got a scalar (shape ())")
    axis = _axes(axis, x.ndim, "cumsum")[0]
    out = _cumsum(x, axis=axis, reverse=bool(reverse))
    if exclusive:
        out = out - x
    return out
