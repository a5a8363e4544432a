"""Creation ops: constants of a given shape, ranges, one-hot, and seeded random tensors."""
from __future__ import annotations

import numpy as np

from ..dtypes import numpy_dtype
from ..tensor import Tensor, _wrap, convert_to_tensor
from .array import broadcast_to

__all__ = ["eye", "fill", "linspace", "one_hot", "ones", "ones_like", "range", "zeros",
           "zeros_like"]


def _shape(shape, what):
    if isinstance(shape, Tensor):
        shape = shape._value.tolist()
    if isinstance(shape, (int, np.integer)):
        shape = (int(shape),)
    try:
        shape = tuple(int(s) for s in shape)
    except TypeError:
        raise TypeError(f"{what}: shape must be an int or a sequence of ints, got {shape!r}") from None
    if any(s < 0 for s in shape):
        raise ValueError(f"{what}: shape {shape} has a negative dimension")
    return shape


def _out(arr):
    return _wrap(arr[()] if arr.ndim == 0 else arr)


def zeros(shape, dtype="float64", name=None):
    return _out(np.zeros(_shape(shape, "zeros"), numpy_dtype(dtype)))


def ones(shape, dtype="float64", name=None):
    return _out(np.ones(_shape(shape, "ones"), numpy_dtype(dtype)))


def zeros_like(input, dtype=None, name=None):
    x = convert_to_tensor(input)
    return _out(np.zeros(x._value.shape, numpy_dtype(dtype) or x._value.dtype))


def ones_like(input, dtype=None, name=None):
    x = convert_to_tensor(input)
    return _out(np.ones(x._value.shape, numpy_dtype(dtype) or x._value.dtype))


def fill(dims, value, name=None):
    """A tensor of shape ``dims`` filled with ``value`` (differentiable with respect to ``value``)."""
    v = convert_to_tensor(value)
    if v.ndim:
        raise ValueError(f"fill: value must be a scalar, got shape {tuple(v.shape)}")
    return broadcast_to(v, _shape(dims, "fill"))


def eye(num_rows, num_columns=None, batch_shape=None, dtype="float64", name=None):
    m = np.eye(int(num_rows), None if num_columns is None else int(num_columns), dtype=numpy_dtype(dtype))
    if batch_shape is not None:
        m = np.broadcast_to(m, _shape(batch_shape, "eye") + m.shape).copy()
    return _out(m)


def linspace(start, stop, num, name=None, axis=0):
    """``num`` evenly spaced values from ``start`` to ``stop`` (differentiable in both ends)."""
    n = int(num)
    if n < 1:
        raise ValueError(f"linspace: num must be at least 1, got {num}")
    if not isinstance(start, Tensor) and not isinstance(stop, Tensor):
        return _out(np.linspace(float(start), float(stop), n))
    start = convert_to_tensor(start, dtype_hint="float64")
    stop = convert_to_tensor(stop, dtype_hint="float64")
    if start.ndim or stop.ndim:
        raise NotImplementedError("linspace: only scalar start and stop are supported")
    frac = _wrap(np.linspace(0.0, 1.0, n).astype(np.result_type(start._value, stop._value, 0.5)))
    return start + (stop - start) * frac


def range(start, limit=None, delta=1, dtype=None, name="range"):
    """Like Python's range: ``range(5)`` or ``range(1, 10, 2)``; int64 for ints, float64 for floats."""
    if limit is None:
        start, limit = 0, start
    vals = [float(v) if isinstance(v, Tensor) and v.dtype.is_floating else v for v in (start, limit, delta)]
    vals = [v._value.item() if isinstance(v, Tensor) else v for v in vals]
    if vals[2] == 0:
        raise ValueError("range: delta must not be 0")
    arr = np.arange(*vals)
    if dtype is not None:
        arr = arr.astype(numpy_dtype(dtype))
    elif arr.dtype.kind == "f":
        arr = arr.astype(np.float64)
    return _wrap(arr)


def one_hot(indices, depth, on_value=1.0, off_value=0.0, axis=-1, dtype=None, name=None):
    idx = np.asarray(convert_to_tensor(indices)._value)
    if idx.dtype.kind not in "iu":
        raise TypeError(f"one_hot: indices must be integers, got {idx.dtype}")
    depth = int(depth)
    npd = numpy_dtype(dtype) or np.result_type(np.asarray(on_value), np.asarray(off_value))
    hot = (idx[..., None] == np.arange(depth))
    out = np.where(hot, on_value, off_value).astype(npd)
    if axis != -1:
        out = np.moveaxis(out, -1, axis)
    return _out(out)


class _RandomState:
    """Process-wide generator so ``set_seed`` makes every later draw reproducible.

    Created on first use: importing numpy.random costs start-up time the CLI does not need.
    """

    generator = None


def set_seed(seed):
    """Seed the generator behind ``tape.random.*``."""
    _RandomState.generator = np.random.default_rng(None if seed is None else int(seed))


def _rng(seed):
    if seed is not None:
        return np.random.default_rng(int(seed))
    if _RandomState.generator is None:
        _RandomState.generator = np.random.default_rng()
    return _RandomState.generator


def normal(shape, mean=0.0, stddev=1.0, dtype="float64", seed=None, name=None):
    arr = _rng(seed).normal(mean, stddev, _shape(shape, "random.normal"))
    return _out(np.asarray(arr, numpy_dtype(dtype)))


def uniform(shape, minval=0, maxval=None, dtype="float64", seed=None, name=None):
    npd = np.dtype(numpy_dtype(dtype))
    shape = _shape(shape, "random.uniform")
    if npd.kind in "iu":
        if maxval is None:
            raise ValueError("random.uniform: maxval is required for integer dtypes")
        return _out(_rng(seed).integers(int(minval), int(maxval), shape).astype(npd))
    arr = _rng(seed).uniform(float(minval), 1.0 if maxval is None else float(maxval), shape)
    return _out(arr.astype(npd))


def truncated_normal(shape, mean=0.0, stddev=1.0, dtype="float64", seed=None, name=None):
    rng = _rng(seed)
    shape = _shape(shape, "random.truncated_normal")
    out = rng.normal(0.0, 1.0, shape)
    bad = np.abs(out) > 2
    while np.any(bad):
        out[bad] = rng.normal(0.0, 1.0, int(bad.sum()))
        bad = np.abs(out) > 2
    return _out(np.asarray(mean + stddev * out, numpy_dtype(dtype)))
