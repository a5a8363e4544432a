"""NumPy ufuncs and functions applied to tape tensors are recorded like the engine's own ops.

``np.sin(t)`` calls ``Tensor.__array_ufunc__`` and ``np.sum(t)`` calls ``Tensor.__array_function__``;
both look the NumPy callable up in a table and run the matching tape op. A NumPy function with no
entry, or a ufunc writing into a NumPy array (``out=``, as ``a += t`` does for an ndarray ``a``),
runs on plain arrays and gives a plain NumPy result when no argument is tracked; given a tensor
that a recorder follows it raises ``NotDifferentiableError`` (its result would be a constant and
the gradient would silently miss that path).
"""
from __future__ import annotations

import functools

import numpy as np

from . import numpy_api as N
from .numpy_api import holds_tracked, plain, unwrap
from .ops import array as A, cast as C, linalg as L, math as M, reduce as R
from .registry import primitives
from .tensor import NotDifferentiableError, Tensor, convert_to_tensor

#: NumPy ufunc -> tape op: every op's own ufuncs (declared where it is defined), and the ufuncs
#: that tape computes by a composition of ops.
UFUNCS = {f: op for op in primitives(built_in_only=True) for f in op.numpy_ufuncs}
UFUNCS.update({
    np.positive: lambda x: x, np.cbrt: M.cbrt, np.log2: M.log2, np.log10: M.log10,
    np.matmul: L.matmul,
    np.exp2: lambda x: M.pow(2.0, x), np.hypot: lambda a, b: M.sqrt(M.square(a) + M.square(b)),
    np.logaddexp: N.logaddexp, np.logaddexp2: N.logaddexp2,
    np.deg2rad: N.deg2rad, np.radians: N.deg2rad, np.rad2deg: N.rad2deg, np.degrees: N.rad2deg,
    np.copysign: N.copysign, np.fmod: N.fmod, np.ldexp: N.ldexp, np.modf: N.modf,
    np.frexp: N.frexp, np.divmod: N.divmod_,
    **{getattr(np, name): N.constant_of(getattr(np, name))
       for name in ("trunc", "signbit", "spacing", "isnat") if hasattr(np, name)},
    np.heaviside: N.heaviside,
    **{getattr(np, name): getattr(N, name) for name in ("vecdot", "matvec", "vecmat")
       if hasattr(np, name)},
})


_EXTREMES = {R.reduce_max: np.argmax, R.reduce_min: np.argmin}


def _reduction(op, func):
    def call(a, axis=None, dtype=None, out=None, keepdims=False, **kw):
        N.no_out(out)
        if any(v is not np._NoValue and v is not True for v in kw.values()):
            # initial= and where= change the result: NumPy's own path, refused if tracked
            return plain(func, (a,), dict(axis=axis, dtype=dtype, keepdims=keepdims, **kw),
                         f"numpy.{func.__name__} with {', '.join(kw)}=")
        if op in _EXTREMES and isinstance(a, Tensor) and a._value.dtype.kind == "c":
            res = N.complex_extreme(a, axis, bool(keepdims), _EXTREMES[op])
        else:
            res = op(a, axis=axis, keepdims=bool(keepdims))
        return M.cast(res, dtype) if dtype is not None else res
    return call


def _vdot(a, b):
    """``np.vdot``: the first argument conjugated, both flattened."""
    a, b = convert_to_tensor(a), convert_to_tensor(b)
    if a._value.dtype.kind == "c":
        a = M.conj(a)
    return R.reduce_sum(A.reshape(a, (-1,)) * A.reshape(b, (-1,)))


def _dot(a, b, out=None):
    N.no_out(out)
    a, b = convert_to_tensor(a), convert_to_tensor(b)
    if a.ndim == 0 or b.ndim == 0:
        return M.multiply(a, b)
    if a.ndim <= 2 and b.ndim <= 2:
        return L.matmul(a, b)       # the same product for vectors and matrices, on BLAS
    if b.ndim == 1:
        return L.tensordot(a, b, [[a.ndim - 1], [0]])
    return L.tensordot(a, b, [[a.ndim - 1], [b.ndim - 2]])


def _where(condition, x=None, y=None):
    if x is None and y is None:             # NumPy's np.nonzero, not TensorFlow's argwhere
        return np.nonzero(condition._value if isinstance(condition, Tensor) else condition)
    return A.where(condition, x, y)


def _clip(a, a_min=None, a_max=None, out=None, **kw):
    N.no_out(out)
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


FUNCTIONS = {
    np.sum: _reduction(R.reduce_sum, np.sum), np.prod: _reduction(R.reduce_prod, np.prod),
    np.max: _reduction(R.reduce_max, np.max), np.min: _reduction(R.reduce_min, np.min),
    np.amax: _reduction(R.reduce_max, np.amax), np.amin: _reduction(R.reduce_min, np.amin),
    np.dot: _dot, np.matmul: L.matmul, np.where: _where, np.clip: _clip,
    np.reshape: N.reshape,
    np.transpose: N.transpose,
    np.stack: lambda arrays, axis=0, out=None, dtype=None, **kw: N.no_out(out) or (
        A.stack(list(arrays), axis) if dtype is None else C.cast(A.stack(list(arrays), axis), dtype)),
    np.expand_dims: lambda a, axis: A.expand_dims(a, axis),
    np.tile: lambda a, reps: A.tile(a, np.atleast_1d(reps)) if np.ndim(a) == len(np.atleast_1d(reps))
    else A.tile(A.reshape(a, (1,) * (len(np.atleast_1d(reps)) - np.ndim(a)) + tuple(np.shape(a))), reps),
    np.broadcast_to: lambda array, shape, subok=False: A.broadcast_to(array, shape),
    np.einsum: N.einsum,
    np.tensordot: lambda a, b, axes=2: L.tensordot(a, b, axes),
    np.trace: N.trace,
    np.outer: _outer, np.inner: _inner, np.vdot: _vdot,
    np.cumsum: lambda a, axis=None, dtype=None, out=None:
    R.cumsum(A.reshape(a, (-1,)) if axis is None else a, 0 if axis is None else axis),
    np.abs: M.abs, np.square: M.square, np.exp: M.exp, np.log: M.log,
    np.real: M.real, np.imag: M.imag, np.conj: M.conj,
    np.angle: lambda z, deg=False: M.angle(z) * (180 / np.pi) if deg else M.angle(z),
    np.ravel: lambda a, order="C": A.reshape(a, (-1,)),
    np.diag: N.diag,
    np.copy: lambda a, **kw: A.identity(a),
    np.ndim: lambda a: a.ndim, np.shape: lambda a: a.shape,       # no values, nothing to warn about
    **{getattr(np, name): getattr(N, name) for name in (
        "var", "std", "mean", "sinc", "real_if_close", "nan_to_num", "repeat", "roll", "flip",
        "flipud", "fliplr", "rot90", "sort", "partition", "take_along_axis", "take", "moveaxis",
        "swapaxes", "rollaxis", "tril", "triu", "diagonal", "diagflat", "pad", "atleast_1d",
        "atleast_2d", "atleast_3d", "concatenate", "vstack", "hstack", "dstack", "column_stack",
        "append", "array_split", "split", "vsplit", "hsplit", "dsplit", "select", "linspace",
        "gradient", "diff", "kron", "cross", "logaddexp", "logaddexp2", "deg2rad", "rad2deg",
        "trace", "cumprod", "ptp", "compress", "squeeze")},
    np.radians: N.deg2rad, np.degrees: N.rad2deg, np.full_like: N.full_like,
    **({np.astype: N.astype} if hasattr(np, "astype") else {}),
    **{getattr(np, name): N.constant_of(getattr(np, name)) for name in N.WITHOUT_DERIVATIVE
       if hasattr(np, name) and not isinstance(getattr(np, name), np.ufunc)},
    **{getattr(np.fft, name): getattr(N, name) for name in (
        "fft", "ifft", "fft2", "ifft2", "fftn", "ifftn", "rfft", "rfft2", "rfftn", "irfft",
        "irfft2", "irfftn", "fftshift", "ifftshift")},
    **{getattr(np.linalg, name): getattr(N, name) for name in (
        "slogdet", "solve", "norm", "svd", "eig", "eigvals", "eigh", "eigvalsh", "cholesky", "pinv", "det", "inv")},
}


#: the augmented assignments that NumPy runs as a ufunc with out= (``a += t`` is np.add(a, t, out=a))
_OPERATORS = {np.add: "+", np.subtract: "-", np.multiply: "*", np.true_divide: "/",
              np.floor_divide: "//", np.remainder: "%", np.power: "**", np.matmul: "@"}


def _written_into_array(ufunc, method, augmented):
    call = ufunc.__name__ if method == "__call__" else f"{ufunc.__name__}.{method}"
    op = _OPERATORS.get(ufunc) if augmented else None
    if op is not None:
        what, instead = f"`a {op}= x` on a NumPy array `a` (numpy.{call} with out=)", f"`a = a {op} x`"
    else:
        what, instead = f"`np.{call}(..., out=a)` on a NumPy array `a`", f"`a = np.{call}(...)`"
    return NotDifferentiableError(
        f"in-place NumPy operation: {what} would write the values of a tensor that a "
        f"GradientTape tracks into `a`, a constant, so nothing computed from `a` would be "
        f"differentiated. Write {instead} (a new tape tensor), or make `a` a tape tensor first "
        f"(`a = tape.constant(a)`); to write a constant on purpose, use tape.stop_gradient(x) "
        f"or x.numpy().")


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
        if holds_tracked(inputs):
            out = kwargs["out"]
            # `a += x` reaches here as np.add(a, x, out=(a,)): the output is the first input
            augmented = method == "__call__" and type(out) is tuple and out[0] is inputs[0]
            raise _written_into_array(ufunc, method, augmented)
        return getattr(ufunc, method)(*unwrap(inputs), **unwrap(kwargs))
    if method == "at" and isinstance(inputs[0], Tensor):
        # ufunc.at writes into its first argument
        raise TypeError(f"numpy.{ufunc.__name__}.at cannot change a tape tensor in place "
                        "(tensors are immutable)")
    if method == "reduce" and ufunc in (np.add, np.multiply, np.maximum, np.minimum):
        reducer = {np.add: R.reduce_sum, np.multiply: R.reduce_prod, np.maximum: R.reduce_max,
                   np.minimum: R.reduce_min}[ufunc]
        axis = kwargs.get("axis", 0)
        return reducer(inputs[0], axis=axis, keepdims=kwargs.get("keepdims", False))
    name = f"numpy.{ufunc.__name__}" + ("" if method == "__call__" else f".{method}")
    return plain(getattr(ufunc, method), inputs, kwargs, name)


def array_function(self, func, types, args, kwargs):
    impl = FUNCTIONS.get(func)
    if impl is not None:
        return impl(*args, **kwargs)
    return plain(func, args, kwargs)


Tensor.__array_ufunc__ = array_ufunc
Tensor.__array_function__ = array_function
N.install_methods(Tensor)


# -- the array builders that NumPy runs before any hook of a tensor can --------------------------
# ``np.array([x, y])`` converts each element with ``__array__``, which refuses a tracked tensor;
# ``np.r_[x, y]`` and ``np.c_[x, y]`` are objects, not functions; NumPy's reductions given a list
# (``np.mean([x, y])``) make an array of it first. Wrapped, they keep NumPy's own behaviour for
# everything else and record the stack or concatenation of tensors.
_numpy_array = np.array


def _array(object, *args, **kwargs):
    try:
        return _numpy_array(object, *args, **kwargs)
    except NotDifferentiableError:
        if not isinstance(object, (list, tuple, Tensor)):
            raise
        return N.array_of(object, *args, **kwargs)


_array.__doc__, _array.__name__, _array.__qualname__ = np.array.__doc__, "array", "array"
_array.__module__ = "numpy"


def _holds_tensor(key):
    """Whether ``np.r_[key]`` holds tensors and no string directive (NumPy's own path takes
    those, and refuses tracked tensors)."""
    items = key if isinstance(key, tuple) else (key,)
    return any(isinstance(k, Tensor) for k in items) and not any(isinstance(k, str) for k in items)


def _recording(index_trick, record):
    """The class of ``np.r_`` or ``np.c_`` that records ``record`` of the tensors it is given
    and leaves everything else to NumPy."""
    class Recording(type(index_trick)):
        __doc__ = type(index_trick).__doc__

        def __getitem__(self, key):
            if _holds_tensor(key):
                return record(key if isinstance(key, tuple) else (key,))
            return super().__getitem__(key)
    return Recording


_RClass, _CClass = _recording(np.r_, N.r_), _recording(np.c_, N.c_)


def _taking_lists(func):
    """``func`` (a NumPy reduction) that, given a list or tuple holding tracked tensors (which
    NumPy's dispatch does not look inside), stacks it first: ``np.mean([x, x + 2])`` is
    recorded. Anything else is NumPy's own call, unchanged."""
    def wrapper(a, *args, **kwargs):
        try:
            return func(a, *args, **kwargs)
        except NotDifferentiableError:
            if not isinstance(a, (list, tuple)):
                raise
            return func(N.array_of(a), *args, **kwargs)
    functools.update_wrapper(wrapper, func)
    return wrapper


#: the reductions autograd's tests give lists of tracked values (and their siblings)
_LIST_REDUCTIONS = ((np, ("mean", "std", "var", "sum", "prod", "max", "min", "amax", "amin")),
                    (np.linalg, ("norm",)))

if not isinstance(np.r_, _RClass):      # (a reload of this module must not wrap twice)
    np.array, np.r_, np.c_ = _array, _RClass(), _CClass()
    for _module, _names in _LIST_REDUCTIONS:
        for _name in _names:
            # (the table keeps NumPy's own function: __array_function__ is given that one)
            setattr(_module, _name, _taking_lists(getattr(_module, _name)))
