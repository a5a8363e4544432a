"""NumPy ufuncs and functions applied to tape tensors are recorded like the engine's own ops.

``np.sin(t)`` calls ``Tensor.__array_ufunc__`` and ``np.sum(t)`` calls ``Tensor.__array_function__``;
both look the NumPy callable up in a table and run the matching tape op. A NumPy function with no
entry runs on plain arrays and returns a plain NumPy result; while a tape is recording it warns
(once per function) that the result is not differentiated.
"""
from __future__ import annotations

import warnings

import numpy as np

from .ops import array as A, linalg as L, math as M, reduce as R
from .registry import is_recording, primitives
from .tensor import Tensor, convert_to_tensor

#: NumPy ufunc -> tape op: every op's own ufuncs (declared where it is defined), and the ufuncs
#: that tape computes by a composition of ops.
UFUNCS = {f: op for op in primitives(built_in_only=True) for f in op.numpy_ufuncs}
UFUNCS.update({
    np.positive: lambda x: x, np.cbrt: M.cbrt, np.log2: M.log2, np.log10: M.log10,
    np.matmul: L.matmul,
    np.exp2: lambda x: M.pow(2.0, x), np.hypot: lambda a, b: M.sqrt(M.square(a) + M.square(b)),
    np.logaddexp: lambda a, b: R.reduce_logsumexp(A.stack([a, b]), axis=0),
})


def _reduction(op):
    def call(a, axis=None, dtype=None, out=None, keepdims=False, **kw):
        _no_out(out)
        res = op(a, axis=axis, keepdims=bool(keepdims))
        return M.cast(res, dtype) if dtype is not None else res
    return call


def _no_out(out):
    if out is not None:
        raise TypeError("out= is not supported for tape tensors (tensors are immutable)")


def _vdot(a, b):
    """``np.vdot``: the first argument conjugated, both flattened."""
    a, b = convert_to_tensor(a), convert_to_tensor(b)
    if a._value.dtype.kind == "c":
        a = M.conj(a)
    return R.reduce_sum(A.reshape(a, (-1,)) * A.reshape(b, (-1,)))


def _dot(a, b, out=None):
    _no_out(out)
    a, b = convert_to_tensor(a), convert_to_tensor(b)
    if a.ndim == 0 or b.ndim == 0:
        return M.multiply(a, b)
    if b.ndim == 1:
        return L.tensordot(a, b, [[a.ndim - 1], [0]])
    return L.tensordot(a, b, [[a.ndim - 1], [b.ndim - 2]])


def _where(condition, x=None, y=None):
    return A.where(condition, x, y)


def _clip(a, a_min=None, a_max=None, out=None, **kw):
    _no_out(out)
    if a_min is not None:
        a = M.maximum(a, a_min)
    if a_max is not None:
        a = M.minimum(a, a_max)
    return a


def _outer(a, b, out=None):
    a, b = A.reshape(a, (-1,)), A.reshape(b, (-1,))
    return M.multiply(A.reshape(a, (-1, 1)), b)


def _inner(a, b):
    a, b = convert_to_tensor(a), convert_to_tensor(b)
    if a.ndim == 0 or b.ndim == 0:
        return M.multiply(a, b)
    return L.tensordot(a, b, [[a.ndim - 1], [b.ndim - 1]])


def _transpose(a, axes=None):
    return A.transpose(a, axes)


def _concatenate(arrays, axis=0, out=None, **kw):
    _no_out(out)
    if axis is None:
        return A.concat([A.reshape(x, (-1,)) for x in arrays], 0)
    return A.concat(list(arrays), axis)


def _linalg_norm(x, ord=None, axis=None, keepdims=False):
    return L.norm(x, "euclidean" if ord is None else ord, axis, keepdims)


def _mean(a, axis=None, dtype=None, out=None, keepdims=False, **kw):
    _no_out(out)
    return R.reduce_mean(a, axis=axis, keepdims=bool(keepdims))


FUNCTIONS = {
    np.sum: _reduction(R.reduce_sum), np.mean: _mean, np.prod: _reduction(R.reduce_prod),
    np.max: _reduction(R.reduce_max), np.min: _reduction(R.reduce_min),
    np.amax: _reduction(R.reduce_max), np.amin: _reduction(R.reduce_min),
    np.dot: _dot, np.matmul: L.matmul, np.where: _where, np.clip: _clip,
    np.reshape: lambda a, *shape, **kw: A.reshape(a, kw.get("shape", kw.get("newshape",
                                                                          shape[0] if shape else None))),
    np.transpose: _transpose, np.concatenate: _concatenate,
    np.stack: lambda arrays, axis=0, out=None, **kw: A.stack(list(arrays), axis),
    np.squeeze: lambda a, axis=None: A.squeeze(a, axis),
    np.expand_dims: lambda a, axis: A.expand_dims(a, axis),
    np.tile: lambda a, reps: A.tile(a, np.atleast_1d(reps)) if np.ndim(a) == len(np.atleast_1d(reps))
    else A.tile(A.reshape(a, (1,) * (len(np.atleast_1d(reps)) - np.ndim(a)) + tuple(np.shape(a))), reps),
    np.broadcast_to: lambda array, shape, subok=False: A.broadcast_to(array, shape),
    np.einsum: lambda subscripts, *operands, **kw: L.einsum(subscripts, *operands),
    np.tensordot: lambda a, b, axes=2: L.tensordot(a, b, axes),
    np.trace: lambda a, offset=0, axis1=0, axis2=1, dtype=None, out=None: L.trace(a),
    np.outer: _outer, np.inner: _inner, np.vdot: _vdot,
    np.linalg.inv: L.inv, np.linalg.det: L.det, np.linalg.solve: L.solve,
    np.linalg.norm: _linalg_norm, np.cumsum: lambda a, axis=None, dtype=None, out=None:
    R.cumsum(A.reshape(a, (-1,)) if axis is None else a, 0 if axis is None else axis),
    np.abs: M.abs, np.square: M.square, np.exp: M.exp, np.log: M.log,
    np.real: M.real, np.imag: M.imag, np.conj: M.conj,
    np.angle: lambda z, deg=False: M.angle(z) * (180 / np.pi) if deg else M.angle(z),
    np.logaddexp: lambda a, b: R.reduce_logsumexp(A.stack([a, b]), axis=0),
    np.ravel: lambda a, order="C": A.reshape(a, (-1,)),
    np.diag: lambda v, k=0: L.diag_part(v) if np.ndim(v) == 2 and k == 0 else _plain(np.diag, (v, k), {}),
    np.copy: lambda a, **kw: A.identity(a),
    np.atleast_1d: lambda a: A.reshape(a, (1,)) if np.ndim(a) == 0 else a,
    np.split: lambda ary, indices_or_sections, axis=0: A.split(ary, indices_or_sections, axis)
    if isinstance(indices_or_sections, int) else _plain(np.split, (ary, indices_or_sections, axis), {}),
}

_warned: set = set()


def _unwrap(obj):
    if isinstance(obj, Tensor):
        return obj._value
    if isinstance(obj, (list, tuple)):
        return type(obj)(_unwrap(o) for o in obj)
    if isinstance(obj, dict):
        return {k: _unwrap(v) for k, v in obj.items()}
    return obj


def _plain(func, args, kwargs):
    """Run ``func`` on plain arrays; warn once per function if a tape is recording."""
    if is_recording():
        name = getattr(func, "__name__", repr(func))
        if name not in _warned:
            _warned.add(name)
            warnings.warn(f"numpy.{name} has no gradient rule in tape: its result is a constant "
                          "and is not differentiated. Use tape ops, or tape.primitive with "
                          "RegisterGradient, to differentiate through it.", UserWarning, stacklevel=3)
    return func(*_unwrap(args), **_unwrap(kwargs))


def array_ufunc(self, ufunc, method, *inputs, **kwargs):
    if method == "__call__" and not kwargs.get("out"):
        op = UFUNCS.get(ufunc)
        if op is not None:
            kwargs.pop("out", None)
            kwargs.pop("dtype", None) if kwargs.get("dtype") is None else None
            if not kwargs:
                return op(*inputs)
    if "out" in kwargs and kwargs["out"] is not None:
        if any(isinstance(o, Tensor) for o in np.atleast_1d(kwargs["out"]) if o is not None):
            raise TypeError("out= cannot be a tape tensor (tensors are immutable)")
    if method == "reduce" and ufunc in (np.add, np.multiply, np.maximum, np.minimum):
        reducer = {np.add: R.reduce_sum, np.multiply: R.reduce_prod, np.maximum: R.reduce_max,
                   np.minimum: R.reduce_min}[ufunc]
        axis = kwargs.get("axis", 0)
        return reducer(inputs[0], axis=axis, keepdims=kwargs.get("keepdims", False))
    return _plain(getattr(ufunc, method), inputs, kwargs)


def array_function(self, func, types, args, kwargs):
    impl = FUNCTIONS.get(func)
    if impl is not None:
        return impl(*args, **kwargs)
    return _plain(func, args, kwargs)


Tensor.__array_ufunc__ = array_ufunc
Tensor.__array_function__ = array_function
