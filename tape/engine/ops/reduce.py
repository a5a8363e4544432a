"""Reductions over axes (``axis`` None, an int or a sequence; ``keepdims``)."""
from __future__ import annotations

import numpy as np

from .. import series as S
from ..broadcast import batch_ndim
from ..registry import defop
from ..tensor import _wrap, convert_to_tensor
from .array import (kept_output, reducer, reduce_sum, reduction_axes, reshape, spread,
                    transpose, where)
from .cast import cast, conj, real_only
from .compare import equal
from .math import exp

__all__ = ["argmax", "argmin", "cumsum", "reduce_all", "reduce_any", "reduce_logsumexp",
           "reduce_max", "reduce_mean", "reduce_min", "reduce_prod", "reduce_sum"]


def _count(shape, axes):
    return int(np.prod([shape[i] for i in axes] if axes is not None else shape, dtype=np.int64))


def _mean_grad(node, g):
    x = node.inputs[0]
    return [spread(node, g) / max(_count(x.shape, node.attrs["axis"]), 1)]


def _extreme_grad(node, g):
    x = node.inputs[0]
    y = kept_output(node, g)
    mask = cast(equal(x, y), x.dtype)
    both_nan = np.isnan(x._value) & np.isnan(y._value)
    if both_nan.any():          # a NaN extreme: every NaN ties (PyTorch shares it evenly)
        mask = mask + both_nan.astype(x._value.dtype)
    ties = reduce_sum(mask, axis=node.attrs["axis"], keepdims=True)
    return [spread(node, g) * mask / ties]


def _prod_grad(node, g):
    x = node.inputs[0]
    axis = node.attrs["axis"]
    if np.all(x._value != 0):
        others = kept_output(node, g) / x           # d prod / d x_i = prod / x_i
    else:
        others = _prod_of_others(x, axis)
    if x._value.dtype.kind == "c":                   # TensorFlow's convention: g * conj(d prod / d x_i)
        others = conj(others)
    return [spread(node, g) * others]


def _prod_of_others(x, axis):
    """prod_{j != i} x_j over ``axis`` for every i, exactly (no division), with tape ops.

    Used only when a factor is zero. It costs O(n^2) in the reduced length n, and stays
    differentiable to any order because it is built from reduce_prod itself.
    """
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
    x = node.inputs[0]
    return [spread(node, g) * exp(x - kept_output(node, g))]


def _reduce_like(node, t):
    """``t`` reduced as the node's input was: the JVP of a sum of ``t``-weighted terms."""
    return reduce_sum(t, axis=node.attrs["axis"], keepdims=node.attrs["keepdims"])


def _extreme_jvp(node, t):
    if t is None:
        return None
    x = node.inputs[0]
    mask = cast(equal(x, kept_output(node, t)), x.dtype)       # ties share, as in the gradient
    ties = reduce_sum(mask, axis=node.attrs["axis"], keepdims=True)
    return _reduce_like(node, t * mask / ties)


def _extreme_series(node, ins, K):
    x, y = node.inputs[0]._value, node.outputs[0]._value
    axes = node.attrs["axis"]
    kept = np.reshape(y, [1 if axes is None or i in axes else d for i, d in enumerate(x.shape)])
    mask = (x == kept).astype(x.dtype)
    mask = mask / np.sum(mask, axis=axes, keepdims=True)          # ties share, as the gradient
    return np.sum(ins[0] * mask, axis=S.value_axes(axes, x.ndim), keepdims=node.attrs["keepdims"])


def _prod_jvp(node, t):
    if t is None:
        return None
    # the gradient rule at a cotangent of ones gives d prod / d x_i, exact at zeros too
    # (for complex x it gives conj(d prod / d x_i): conjugated back)
    y = node.outputs[0]._value
    d = _prod_grad(node, _wrap(np.ones(y.shape, y.dtype)[()]))[0]
    return _reduce_like(node, t * (conj(d) if d._value.dtype.kind == "c" else d))


def _prod_series(node, ins, K):
    a, x = ins[0], node.inputs[0]._value
    axes = tuple(range(x.ndim)) if node.attrs["axis"] is None else node.attrs["axis"]
    moved = np.moveaxis(a, [k + 1 for k in axes], list(range(1, len(axes) + 1)))
    factors = moved.reshape((K, -1) + moved.shape[len(axes) + 1:])
    out = factors[:, 0]
    for m in range(1, factors.shape[1]):
        out = S.mul(out, factors[:, m])
    if node.attrs["keepdims"]:
        out = out.reshape((K,) + node.outputs[0]._value.shape)
    return out


def _logsumexp_jvp(node, t):
    return None if t is None else _reduce_like(node, t * exp(node.inputs[0] - kept_output(node, t)))


_reduce_mean = defop("Mean", lambda x, axis, keepdims: np.mean(x, axis=axis, keepdims=keepdims),
                     _mean_grad, linear=True)
_reduce_max = defop("Max", real_only(lambda x, axis, keepdims: np.max(x, axis=axis, keepdims=keepdims),
                                     "reduce_max"),
                    _extreme_grad, jvp=_extreme_jvp, taylor=_extreme_series)
_reduce_min = defop("Min", real_only(lambda x, axis, keepdims: np.min(x, axis=axis, keepdims=keepdims),
                                     "reduce_min"),
                    _extreme_grad, jvp=_extreme_jvp, taylor=_extreme_series)
_reduce_prod = defop("Prod", lambda x, axis, keepdims: np.prod(x, axis=axis, keepdims=keepdims),
                     _prod_grad, jvp=_prod_jvp, taylor=_prod_series)
_reduce_logsumexp = defop("LogSumExp", real_only(_logsumexp_np, "reduce_logsumexp"), _logsumexp_grad, jvp=_logsumexp_jvp,
                          taylor=lambda n, ins, K: S.logsumexp(ins[0], n.attrs["axis"], n.inputs[0].ndim,
                                                               n.attrs["keepdims"]))
_reduce_any = defop("Any", lambda x, axis, keepdims: np.any(x, axis=axis, keepdims=keepdims),
                    differentiable=False)
_reduce_all = defop("All", lambda x, axis, keepdims: np.all(x, axis=axis, keepdims=keepdims),
                    differentiable=False)
_argmax = defop("ArgMax", lambda x, axis: np.argmax(x, axis=axis), differentiable=False)
_argmin = defop("ArgMin", lambda x, axis: np.argmin(x, axis=axis), differentiable=False)


reduce_mean = reducer(_reduce_mean, "reduce_mean")
reduce_max = reducer(_reduce_max, "reduce_max", empty_ok=False)
reduce_min = reducer(_reduce_min, "reduce_min", empty_ok=False)
reduce_prod = reducer(_reduce_prod, "reduce_prod")
reduce_logsumexp = reducer(_reduce_logsumexp, "reduce_logsumexp", empty_ok=False)
reduce_any = reducer(_reduce_any, "reduce_any")
reduce_all = reducer(_reduce_all, "reduce_all")


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


_cumsum = defop("Cumsum", _cumsum_np, _cumsum_grad, linear=True)


def cumsum(x, axis=0, exclusive=False, reverse=False, name=None):
    """Cumulative sum along ``axis``."""
    x = convert_to_tensor(x)
    if x.ndim == 0:
        raise ValueError("cumsum: needs a tensor of rank >= 1, got a scalar (shape ())")
    axis = reduction_axes(axis, x.ndim, "cumsum")[0]
    out = _cumsum(x, axis=axis, reverse=bool(reverse))
    if exclusive:
        out = out - x
    return out
