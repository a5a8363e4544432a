"""NumPy's functions with NumPy's own arguments, written with tape ops.

Each function here takes what its NumPy namesake takes (``axis``, ``keepdims``, ``offset``,
``ddof``...) and composes the engine's ops, so its gradient, forward and Taylor rules are those of
the ops, to any order. ``numpy_dispatch`` maps the NumPy callables to them.
"""
from __future__ import annotations

import numpy as np

from .ops import array as A, cast as C, fft as F, linalg as L, math as M, reduce as R
from .registry import tracked
from .tensor import Tensor, _wrap, convert_to_tensor, not_differentiable



def unwrap(obj):
    if isinstance(obj, Tensor):
        return obj._value
    if isinstance(obj, (list, tuple)):
        return type(obj)(unwrap(o) for o in obj)
    if isinstance(obj, dict):
        return {k: unwrap(v) for k, v in obj.items()}
    return obj


#: predicates ``tensor -> bool``: whether something is differentiating through the tensor. The
#: tapes' (``registry.tracked``) is first; ``tape.torch`` adds a tensor that requires grad.
FOLLOWED = [tracked]


def _followed(tensor) -> bool:
    return any(f(tensor) for f in FOLLOWED)


def holds_tracked(obj) -> bool:
    """Whether ``obj`` (an argument, or a list, tuple or dict of them) holds a tensor that a
    recorder of this thread follows."""
    if isinstance(obj, Tensor):
        return _followed(obj)
    if isinstance(obj, (list, tuple)):
        return any(holds_tracked(o) for o in obj)
    if isinstance(obj, dict):
        return any(holds_tracked(o) for o in obj.values())
    return False


def plain(func, args, kwargs, name=None):
    """Run ``func`` on plain arrays: its result is a constant, so a tracked tensor among the
    arguments raises ``NotDifferentiableError`` naming the function (``name``, else its own)."""
    if holds_tracked(args) or holds_tracked(kwargs):
        raise not_differentiable(name or _numpy_name(func))
    return func(*unwrap(args), **unwrap(kwargs))


def _numpy_name(func):
    module = getattr(func, "__module__", None) or "numpy"
    return f"{module if module.startswith('numpy') else 'numpy'}.{getattr(func, '__name__', func)}"


def no_out(out):
    if out is not None:
        raise TypeError("out= is not supported for tape tensors (tensors are immutable)")


def diagonal(a, offset=0, axis1=0, axis2=1):
    """``np.diagonal``: axes ``axis1`` and ``axis2`` removed, their diagonal ``offset`` last."""
    x = convert_to_tensor(a)
    if x.ndim < 2:
        raise ValueError(f"diagonal: needs at least 2 dimensions, got shape {tuple(x.shape)}")
    i, j = axis1 % x.ndim, axis2 % x.ndim
    if i == j:
        raise ValueError("diagonal: axis1 and axis2 cannot be the same")
    rest = [k for k in range(x.ndim) if k not in (i, j)]
    moved = A.transpose(x, rest + [i, j])
    n, m, k = x.shape[i], x.shape[j], int(offset)
    rows = np.arange(max(0, min(n, m - k) if k >= 0 else min(n + k, m)))
    if k >= 0:
        return A.getitem(moved, (Ellipsis, rows, rows + k))
    return A.getitem(moved, (Ellipsis, rows - k, rows))


def trace(a, offset=0, axis1=0, axis2=1, dtype=None, out=None):
    """``np.trace``: the sum of ``diagonal(a, offset, axis1, axis2)``."""
    no_out(out)
    total = R.reduce_sum(diagonal(a, offset, axis1, axis2), axis=-1)
    return total if dtype is None else C.cast(total, dtype)


# -- helpers ---------------------------------------------------------------------------------
def _t(x):
    return convert_to_tensor(x)


def _value(x):
    return x._value if isinstance(x, Tensor) else np.asarray(x)


def _flat(x):
    return A.reshape(x, (-1,))


def gathered(x, index_of):
    """``x`` rearranged as ``index_of`` rearranges an array of flat positions: the NumPy
    function that moves, copies or drops elements (``np.roll``, ``np.repeat``, ``np.rot90``...)
    applied to ``np.arange(x.size)``, then one gather, whose gradient is the matching scatter."""
    x = _t(x)
    index = np.asarray(index_of(np.arange(x.size).reshape(x.shape)))
    if index.shape == x.shape and np.array_equal(index.reshape(-1), np.arange(x.size)):
        return x
    return A.getitem(_flat(x), index)


def _axis(axis, ndim):
    axis = int(axis)
    if not -ndim <= axis < max(ndim, 1):
        raise np.exceptions.AxisError(axis, ndim)
    return axis % max(ndim, 1)


# -- statistics --------------------------------------------------------------------------------
def _numpy_only(func, kw, args, kwargs):
    """NumPy's own call when an argument tape does not implement is given (``where=``,
    ``mean=``, ``correction=``...): refused for tracked tensors, as any call without a rule."""
    given = {k: v for k, v in kw.items() if v is not np._NoValue}
    if given:
        return True, plain(func, args, {**kwargs, **given},
                           f"numpy.{func.__name__} with {', '.join(given)}=")
    return False, None


def var(a, axis=None, dtype=None, out=None, ddof=0, keepdims=False, **kw):
    """``np.var``: the mean squared deviation (squared modulus for complex values), divided by
    ``N - ddof``."""
    no_out(out)
    done, res = _numpy_only(np.var, kw, (a,), dict(axis=axis, dtype=dtype, ddof=ddof,
                                                   keepdims=keepdims))
    if done:
        return res
    x = _t(a)
    if dtype is not None:
        x = C.cast(x, dtype)
    axes = A.reduction_axes(axis, x.ndim, "var")
    n = x.size if axes is None else int(np.prod([x.shape[i] for i in axes]))
    d = x - R.reduce_mean(x, axis=axes, keepdims=True)
    squared = C.real(d * C.conj(d)) if x.dtype.is_complex else d * d
    return R.reduce_sum(squared, axis=axes, keepdims=bool(keepdims)) / max(n - ddof, 0)


def std(a, axis=None, dtype=None, out=None, ddof=0, keepdims=False, **kw):
    """``sqrt(var)``, with slope 0 where all values are equal (the square root's infinite slope
    meets the variance's zero one there: 0 is the one-sided limit along any direction that
    keeps them equal, and NumPy's value is kept)."""
    done, res = _numpy_only(np.std, kw, (a,), dict(axis=axis, dtype=dtype, ddof=ddof,
                                                   keepdims=keepdims))
    if done:
        return res
    v = var(a, axis, dtype, out, ddof, keepdims)
    flat = np.asarray(v._value) == 0
    if not flat.any():
        return M.sqrt(v)
    return A.where(flat, 0.0, M.sqrt(A.where(flat, 1.0, v)))


def mean(a, axis=None, dtype=None, out=None, keepdims=False, **kw):
    no_out(out)
    done, res = _numpy_only(np.mean, kw, (a,), dict(axis=axis, dtype=dtype, keepdims=keepdims))
    if done:
        return res
    res = R.reduce_mean(a, axis=axis, keepdims=bool(keepdims))
    return res if dtype is None else C.cast(res, dtype)


# -- elementwise -------------------------------------------------------------------------------
def logaddexp(a, b):
    """``log(exp(a) + exp(b))`` with NumPy's broadcasting."""
    a, b = _t(a), _t(b)
    shape = np.broadcast_shapes(a.shape, b.shape)
    return R.reduce_logsumexp(A.stack([A.broadcast_to(a, shape), A.broadcast_to(b, shape)]), axis=0)


def logaddexp2(a, b):
    return logaddexp(M.multiply(a, _LN2), M.multiply(b, _LN2)) / _LN2


_LN2 = float(np.log(2.0))


def sinc(x):
    """``sin(pi x) / (pi x)``, 1 at 0 (where the series 1 - (pi x)^2 / 6 gives the slopes)."""
    x = _t(x)
    near = np.abs(x._value) < 1e-4
    if not near.any():
        px = M.multiply(x, np.pi)
        return M.sin(px) / px
    px = M.multiply(A.where(near, 1.0, x), np.pi)
    p2 = M.square(M.multiply(A.where(near, x, 0.0), np.pi))
    return A.where(near, 1.0 - p2 / 6.0 + M.square(p2) / 120.0, M.sin(px) / px)


def deg2rad(x):
    return M.multiply(x, np.pi / 180.0)


def rad2deg(x):
    return M.multiply(x, 180.0 / np.pi)


def real_if_close(a, tol=100):
    x = _t(a)
    if not x.dtype.is_complex:
        return x
    limit = tol * np.finfo(x._value.dtype).eps if tol > 1 else tol
    return C.real(x) if np.all(np.abs(x._value.imag) < limit) else x


def nan_to_num(x, copy=True, nan=0.0, posinf=None, neginf=None):
    """Non-finite values replaced by constants (gradient 0 there, 1 elsewhere)."""
    x = _t(x)
    if x.dtype.is_complex:
        return M.complex_(nan_to_num(C.real(x), copy, nan, posinf, neginf),
                          nan_to_num(C.imag(x), copy, nan, posinf, neginf))
    v = x._value
    if v.dtype.kind != "f" or np.all(np.isfinite(v)):
        return x
    fixed = np.nan_to_num(v, nan=nan, posinf=posinf, neginf=neginf)
    return A.where(np.isfinite(v), x, fixed)


# -- rearranging ---------------------------------------------------------------------------------
def repeat(a, repeats, axis=None):
    return gathered(a, lambda i: np.repeat(i, _value(repeats), axis))


def roll(a, shift, axis=None):
    return gathered(a, lambda i: np.roll(i, shift, axis))


def flip(m, axis=None):
    return gathered(m, lambda i: np.flip(i, axis))


def flipud(m):
    return gathered(m, np.flipud)


def fliplr(m):
    return gathered(m, np.fliplr)


def rot90(m, k=1, axes=(0, 1)):
    return gathered(m, lambda i: np.rot90(i, k, axes))


def sort(a, axis=-1, kind=None, order=None):
    x = _t(a)
    if axis is None:
        x, axis = _flat(x), 0
    order_ = np.argsort(x._value, axis=axis, kind=kind)
    return gathered(x, lambda i: np.take_along_axis(i, order_, axis))


def partition(a, kth, axis=-1, kind="introselect", order=None):
    x = _t(a)
    if axis is None:
        x, axis = _flat(x), 0
    order_ = np.argpartition(x._value, kth, axis=axis, kind=kind)
    return gathered(x, lambda i: np.take_along_axis(i, order_, axis))


def take_along_axis(arr, indices, axis):
    x = _t(arr)
    if axis is None:
        x, axis = _flat(x), 0
    return gathered(x, lambda i: np.take_along_axis(i, _value(indices), axis))


def take(a, indices, axis=None, out=None, mode="raise"):
    no_out(out)
    return gathered(a, lambda i: np.take(i, _value(indices), axis, mode=mode))


def moveaxis(a, source, destination):
    x = _t(a)
    perm = np.moveaxis(np.empty(tuple(range(1, x.ndim + 1)), np.int8), source, destination).shape
    return A.transpose(x, [p - 1 for p in perm])


def swapaxes(a, axis1, axis2):
    x = _t(a)
    perm = list(range(x.ndim))
    i, j = _axis(axis1, x.ndim), _axis(axis2, x.ndim)
    perm[i], perm[j] = perm[j], perm[i]
    return A.transpose(x, perm)


def rollaxis(a, axis, start=0):
    x = _t(a)
    perm = np.rollaxis(np.empty(tuple(range(1, x.ndim + 1)), np.int8), axis, start).shape
    return A.transpose(x, [p - 1 for p in perm])


def transpose(a, axes=None):
    return A.transpose(a, axes)


def tri_masked(m, k, lower):
    x = _t(m)
    rows, cols = x.shape[-2:] if x.ndim >= 2 else (x.shape[0], x.shape[0])
    mask = np.tri(rows, cols, k, dtype=bool)
    if not lower:
        mask = ~np.tri(rows, cols, k - 1, dtype=bool)
    return A.where(mask, x, np.zeros((), x._value.dtype))


def tril(m, k=0):
    return tri_masked(m, k, True)


def triu(m, k=0):
    return tri_masked(m, k, False)


def diag(v, k=0):
    """``np.diag``: the ``k``-th diagonal of a matrix, or a matrix with ``v`` on it."""
    x = _t(v)
    if x.ndim == 2:
        return diagonal(x, k)
    if x.ndim != 1:
        raise ValueError("diag: input must be 1-D or 2-D")
    n = x.shape[0] + abs(int(k))
    rows = np.arange(x.shape[0]) + max(-int(k), 0)
    cols = np.arange(x.shape[0]) + max(int(k), 0)
    return A.scatter_into(x, shape=(n, n), key=(rows, cols))


def diagflat(v, k=0):
    return diag(_flat(_t(v)), k)


def pad(array, pad_width, mode="constant", **kwargs):
    x = _t(array)
    widths = np.broadcast_to(np.asarray(pad_width, dtype=np.int64).reshape(-1, 2)
                             if np.ndim(pad_width) > 1 else np.asarray(pad_width, dtype=np.int64),
                             (x.ndim, 2))
    if callable(mode):
        raise not_differentiable("numpy.pad with a function as mode")
    if mode == "constant":
        values = kwargs.get("constant_values", 0)
        if np.ndim(values) == 0 and not isinstance(values, Tensor):
            return A.pad(x, widths.tolist(), constant_values=values)
        if isinstance(values, Tensor) and values.ndim == 0:      # the padding's own slope
            edges = np.pad(np.zeros(x.shape, x._value.dtype), widths, constant_values=1)
            return A.pad(x, widths.tolist(), constant_values=0) + edges * values
        if holds_tracked(values):
            raise not_differentiable("numpy.pad with per-axis constant_values that are tracked")
        inner = A.pad(x, widths.tolist(), constant_values=0)
        edges = np.pad(np.zeros(x.shape, x._value.dtype), widths, mode="constant",
                       constant_values=_value(values))
        return inner + edges
    if mode in ("edge", "reflect", "symmetric", "wrap"):
        return gathered(x, lambda i: np.pad(i, widths, mode=mode, **kwargs))
    raise not_differentiable(f"numpy.pad with mode={mode!r}",
                             "use mode 'constant', 'edge', 'reflect', 'symmetric' or 'wrap'")


# -- joining and splitting ---------------------------------------------------------------------
def atleast_1d(*arys):
    out = [A.reshape(a, (1,)) if np.ndim(a) == 0 else _t(a) for a in arys]
    return out[0] if len(out) == 1 else out


def atleast_2d(*arys):
    out = []
    for a in arys:
        a = _t(a)
        out.append(A.reshape(a, (1, 1)) if a.ndim == 0 else A.reshape(a, (1,) + tuple(a.shape))
                   if a.ndim == 1 else a)
    return out[0] if len(out) == 1 else out


def atleast_3d(*arys):
    out = []
    for a in arys:
        a = _t(a)
        shape = tuple(a.shape)
        new = {0: (1, 1, 1), 1: (1,) + shape + (1,), 2: shape + (1,)}.get(a.ndim, shape)
        out.append(A.reshape(a, new))
    return out[0] if len(out) == 1 else out


def _as_list(result):
    return result if isinstance(result, list) else [result]


def _as_dtype(x, dtype):
    return x if dtype is None else C.cast(x, dtype)


def concatenate(arrays, axis=0, out=None, dtype=None, **kw):
    no_out(out)
    arrays = [_t(a) for a in arrays]
    if axis is None:
        return _as_dtype(A.concat([_flat(x) for x in arrays], 0), dtype)
    return _as_dtype(A.concat(arrays, axis), dtype)


def vstack(tup, *, dtype=None, **kw):
    return _as_dtype(A.concat(_as_list(atleast_2d(*tup)), 0), dtype)


def hstack(tup, *, dtype=None, **kw):
    arrs = _as_list(atleast_1d(*tup))
    return _as_dtype(A.concat(arrs, 0 if arrs[0].ndim == 1 else 1), dtype)


def dstack(tup):
    return A.concat(_as_list(atleast_3d(*tup)), 2)


def column_stack(tup):
    cols = []
    for a in tup:
        a = _t(a)
        cols.append(A.reshape(a, (-1, 1)) if a.ndim < 2 else a)
    return A.concat(cols, 1)


def append(arr, values, axis=None):
    if axis is None:
        return A.concat([_flat(_t(arr)), _flat(_t(values))], 0)
    return A.concat([_t(arr), _t(values)], axis)


def array_split(ary, indices_or_sections, axis=0):
    x = _t(ary)
    axis = _axis(axis, x.ndim)
    n = x.shape[axis]
    if np.ndim(indices_or_sections) == 0:
        sections = int(indices_or_sections)
        if sections <= 0:
            raise ValueError("number sections must be larger than 0.")
        each, extra = divmod(n, sections)
        sizes = [each + 1] * extra + [each] * (sections - extra)
        bounds = np.concatenate([[0], np.cumsum(sizes)])
    else:
        bounds = np.concatenate([[0], np.asarray(indices_or_sections, dtype=np.int64), [n]])
    lead = (slice(None),) * axis
    return [A.getitem(x, lead + (slice(int(lo), int(hi)),)) for lo, hi in zip(bounds[:-1], bounds[1:])]


def split(ary, indices_or_sections, axis=0):
    x = _t(ary)
    if np.ndim(indices_or_sections) == 0 and x.shape[_axis(axis, x.ndim)] % int(indices_or_sections):
        raise ValueError("array split does not result in an equal division")
    return array_split(x, indices_or_sections, axis)


def vsplit(ary, indices_or_sections):
    if np.ndim(ary) < 2:
        raise ValueError("vsplit only works on arrays of 2 or more dimensions")
    return split(ary, indices_or_sections, 0)


def hsplit(ary, indices_or_sections):
    if np.ndim(ary) == 0:
        raise ValueError("hsplit only works on arrays of 1 or more dimensions")
    return split(ary, indices_or_sections, 1 if np.ndim(ary) > 1 else 0)


def dsplit(ary, indices_or_sections):
    if np.ndim(ary) < 3:
        raise ValueError("dsplit only works on arrays of 3 or more dimensions")
    return split(ary, indices_or_sections, 2)


def select(condlist, choicelist, default=0):
    if len(condlist) != len(choicelist):
        raise ValueError("list of cases must be same length as list of conditions")
    result = _t(default)
    for cond, choice in reversed(list(zip(condlist, choicelist))):
        result = A.where(np.asarray(_value(cond), dtype=bool), choice, result)
    shape = np.broadcast_shapes(*[np.shape(c) for c in condlist], *[np.shape(c) for c in choicelist])
    return result if tuple(result.shape) == shape else A.broadcast_to(result, shape)


def linspace(start, stop, num=50, endpoint=True, retstep=False, dtype=None, axis=0):
    start, stop = _t(start), _t(stop)
    num = int(num)
    div = (num - 1) if endpoint else num
    shape = np.broadcast_shapes(start.shape, stop.shape)
    steps = np.arange(num, dtype=np.float64).reshape((-1,) + (1,) * len(shape))
    delta = stop - start
    step = delta / div if div > 0 else delta * np.nan
    y = start + (steps / div if div > 0 else steps * 0.0) * delta
    if endpoint and num > 1:
        last = (np.arange(num) == num - 1).reshape((-1,) + (1,) * len(shape))
        y = A.where(last, A.broadcast_to(stop, shape), y)
    if axis != 0:
        y = moveaxis(y, 0, axis)
    if dtype is not None:
        y = C.cast(y, dtype)
    return (y, step) if retstep else y


def gradient(f, *varargs, axis=None, edge_order=1):
    """``np.gradient`` with scalar spacings: central differences inside, one-sided at the
    edges (first or second order, as ``edge_order``)."""
    x = _t(f)
    axes = list(range(x.ndim)) if axis is None else [_axis(a, x.ndim) for a in np.atleast_1d(axis)]
    spacing = list(varargs) or [1.0]
    if len(spacing) == 1:
        spacing = spacing * len(axes)
    if holds_tracked(spacing):
        raise not_differentiable("numpy.gradient with tracked spacings")
    if len(spacing) != len(axes) or any(np.ndim(h) != 0 for h in spacing):
        raise not_differentiable("numpy.gradient with coordinate arrays",
                                 "give scalar spacings")
    out = []
    for ax, h in zip(axes, spacing):
        h = float(_value(h))
        n = x.shape[ax]
        if n < edge_order + 1:
            raise ValueError("Shape of array too small to calculate a numerical gradient, "
                             "at least (edge_order + 1) elements are required.")

        def part(sl):
            return A.getitem(x, (slice(None),) * ax + (sl,))

        inner = (part(slice(2, None)) - part(slice(None, -2))) / (2.0 * h)
        if edge_order == 1:
            first = (part(slice(1, 2)) - part(slice(0, 1))) / h
            last = (part(slice(-1, None)) - part(slice(-2, -1))) / h
        else:
            first = (-1.5 * part(slice(0, 1)) + 2.0 * part(slice(1, 2)) - 0.5 * part(slice(2, 3))) / h
            last = (0.5 * part(slice(-3, -2)) - 2.0 * part(slice(-2, -1)) + 1.5 * part(slice(-1, None))) / h
        out.append(A.concat([first, inner, last], ax))
    return out[0] if len(out) == 1 else out


def diff(a, n=1, axis=-1, prepend=np._NoValue, append=np._NoValue):
    x = _t(a)
    axis = _axis(axis, x.ndim)
    parts = []
    if prepend is not np._NoValue:
        p = _t(prepend)
        if p.ndim == 0:
            shape = list(x.shape)
            shape[axis] = 1
            p = A.broadcast_to(p, shape)
        parts.append(p)
    parts.append(x)
    if append is not np._NoValue:
        q = _t(append)
        if q.ndim == 0:
            shape = list(x.shape)
            shape[axis] = 1
            q = A.broadcast_to(q, shape)
        parts.append(q)
    if len(parts) > 1:
        x = A.concat(parts, axis)
    lead = (slice(None),) * axis
    for _ in range(int(n)):
        x = A.getitem(x, lead + (slice(1, None),)) - A.getitem(x, lead + (slice(None, -1),))
    return x


def kron(a, b):
    a, b = _t(a), _t(b)
    nd = max(a.ndim, b.ndim)
    sa = (1,) * (nd - a.ndim) + tuple(a.shape)
    sb = (1,) * (nd - b.ndim) + tuple(b.shape)
    ea = A.reshape(a, tuple(v for n in sa for v in (n, 1)))
    eb = A.reshape(b, tuple(v for n in sb for v in (1, n)))
    return A.reshape(M.multiply(ea, eb), tuple(p * q for p, q in zip(sa, sb)))


def cross(a, b, axisa=-1, axisb=-1, axisc=-1, axis=None):
    if axis is not None:
        axisa = axisb = axisc = axis
    a, b = moveaxis(_t(a), axisa, -1), moveaxis(_t(b), axisb, -1)
    if a.shape[-1] not in (2, 3) or b.shape[-1] not in (2, 3):
        raise ValueError("incompatible dimensions for cross product\n"
                         "(dimension must be 2 or 3)")

    def comp(v, i):
        return A.getitem(v, (Ellipsis, i)) if i < v.shape[-1] else None

    a0, a1, a2 = (comp(a, i) for i in range(3))
    b0, b1, b2 = (comp(b, i) for i in range(3))
    z = a0 * b1 - a1 * b0
    if a2 is None and b2 is None:
        return z
    x = (a1 * b2 if b2 is not None else 0.0) - (a2 * b1 if a2 is not None else 0.0)
    y = (a2 * b0 if a2 is not None else 0.0) - (a0 * b2 if b2 is not None else 0.0)
    shape = np.broadcast_shapes(*[np.shape(c) for c in (x, y, z)])
    out = A.stack([A.broadcast_to(c, shape) for c in (x, y, z)], axis=-1)
    return moveaxis(out, -1, axisc)


# -- np.linalg -----------------------------------------------------------------------------------
def slogdet(a):
    """``(sign, log|det a|)``: the sign a constant; the logarithm computed as
    ``n log c + log|det(a / c)|`` with ``c`` NumPy's own ``|det a|^(1/n)``, so that the
    determinant taken on the tape neither overflows nor underflows."""
    x = _t(a)
    L._check_square(x, "linalg.slogdet")
    sign, logdet = np.linalg.slogdet(x._value)
    n = x.shape[-1]
    scale = np.exp(np.where(np.isfinite(logdet), logdet, 0.0) / max(n, 1))
    scale = scale.reshape(scale.shape + (1, 1)) if np.ndim(scale) else scale
    scaled = L.det(x / scale)
    log_scale = n * np.log(scale.reshape(np.shape(logdet)) if np.ndim(scale) else scale)
    return _wrap(np.asarray(sign)[()]), M.log(M.abs(scaled)) + log_scale


def solve(a, b):
    """``np.linalg.solve``: a 1-D ``b`` is one right-hand side (NumPy 2's rule)."""
    b = _t(b)
    if b.ndim == 1:
        return A.reshape(L.solve(a, A.reshape(b, (-1, 1))) if _t(a).ndim == 2 else
                         L.solve(a, A.broadcast_to(A.reshape(b, (-1, 1)),
                                                   tuple(_t(a).shape[:-1]) + (1,))),
                         tuple(_t(a).shape[:-1]))
    return L.solve(a, b)


def _vector_norm(x, ord, axis, keepdims):
    axes = (axis,)
    if ord in (None, 2, 2.0):
        return L.norm(x, "euclidean", axes, keepdims)
    ax = M.abs(x)
    if ord == np.inf:
        return R.reduce_max(ax, axis=axes, keepdims=keepdims)
    if ord == -np.inf:
        return R.reduce_min(ax, axis=axes, keepdims=keepdims)
    if ord == 0:
        return R.reduce_sum(C.cast(_wrap(np.asarray(x._value != 0)), ax.dtype), axis=axes,
                            keepdims=keepdims)
    if ord == 1:
        return R.reduce_sum(ax, axis=axes, keepdims=keepdims)
    if isinstance(ord, str):
        raise ValueError(f"Invalid norm order '{ord}' for vectors")
    p = float(ord)
    return M.pow(R.reduce_sum(M.pow(ax, p), axis=axes, keepdims=keepdims), 1.0 / p)


def _matrix_norm(x, ord, row, col, keepdims):
    nd = x.ndim
    if ord in (None, "fro", "f"):
        return L.norm(x, "euclidean", (row, col), keepdims)
    if ord in (2, -2, "nuc"):
        rest = [i for i in range(nd) if i not in (row, col)]
        s = svd(A.transpose(x, rest + [row, col]), compute_uv=False)
        res = {2: R.reduce_max, -2: R.reduce_min, "nuc": R.reduce_sum}[ord](s, axis=-1)
    elif ord in (1, -1, np.inf, -np.inf):
        summed, over = (row, col) if ord in (1, -1) else (col, row)
        sums = R.reduce_sum(M.abs(x), axis=summed, keepdims=True)
        pick = R.reduce_max if ord in (1, np.inf) else R.reduce_min
        res = pick(sums, axis=over, keepdims=True)
        return res if keepdims else A.reshape(res, tuple(n for i, n in enumerate(x.shape)
                                                         if i not in (row, col)))
    else:
        raise ValueError("Invalid norm order for matrices.")
    if keepdims:
        shape = list(x.shape)
        shape[row] = shape[col] = 1
        res = A.reshape(res, tuple(shape))
    return res


def norm(x, ord=None, axis=None, keepdims=False):
    """``np.linalg.norm`` with NumPy's meaning of ``ord`` for vectors and for matrices."""
    x = _t(x)
    if not x.dtype.is_floating and not x.dtype.is_complex:
        x = C.cast(x, "float64")
    keepdims = bool(keepdims)
    if axis is None:
        if ord is None:
            return L.norm(x, "euclidean", None, keepdims)
        if x.ndim == 1:
            return _vector_norm(x, ord, 0, keepdims)
        if x.ndim == 2:
            return _matrix_norm(x, ord, 0, 1, keepdims)
        raise ValueError("Improper number of dimensions to norm.")
    axes = tuple(np.atleast_1d(axis).tolist())
    if len(axes) == 1:
        return _vector_norm(x, ord, _axis(axes[0], x.ndim), keepdims)
    if len(axes) == 2:
        row, col = _axis(axes[0], x.ndim), _axis(axes[1], x.ndim)
        if row == col:
            raise ValueError("Duplicate axes given.")
        return _matrix_norm(x, ord, row, col, keepdims)
    raise ValueError("Improper number of dimensions to norm.")


def svd(a, full_matrices=True, compute_uv=True, hermitian=False):
    x = _t(a)
    m, n = x.shape[-2:]
    if full_matrices and compute_uv and m != n:
        return plain(np.linalg.svd, (x,), dict(full_matrices=True), "numpy.linalg.svd with "
                     "full_matrices=True of a non-square matrix (the extra columns are not "
                     "unique; pass full_matrices=False)")
    u, s, vh = L.svd(x)
    return (u, s, vh) if compute_uv else s


def eig(a):
    return L.eig(a)


def eigvals(a):
    return L.eig(a)[0]


def eigh(a, UPLO="L"):
    return L.eigh(a, UPLO)


def eigvalsh(a, UPLO="L"):
    return L.eigh(a, UPLO)[0]


def cholesky(a, upper=False):
    low = L.cholesky(a)
    return L._adjoint(low) if upper else low


def pinv(a, rcond=None, hermitian=False, rtol=np._NoValue):
    if rtol is not np._NoValue and rtol is not None:
        rcond = rtol
    return L.pinv(a, rcond)


def det(a):
    return L.det(a)


def inv(a):
    return L.inv(a)


# -- building arrays of tensors -----------------------------------------------------------------
def array_of(obj, dtype=None, copy=True, order="K", subok=False, ndmin=0, like=None):
    """``np.array(obj)`` for a (nested) list or tuple holding tensors: the stacked tensor."""
    def stacked(o):
        if isinstance(o, (list, tuple)):
            parts = [stacked(p) for p in o]
            if not parts:
                return _wrap(np.zeros((0,)))
            shape = np.broadcast_shapes(*[tuple(p.shape) for p in parts])
            if any(tuple(p.shape) != tuple(parts[0].shape) for p in parts):
                raise ValueError("setting an array element with a sequence: the requested "
                                 "array has an inhomogeneous shape")
            del shape
            kind = np.result_type(*[p._value.dtype for p in parts])
            return A.stack([p if p._value.dtype == kind else C.cast(p, kind) for p in parts])
        return _t(o)

    out = stacked(obj)
    if dtype is not None:
        out = C.cast(out, dtype)
    if out.ndim < ndmin:
        out = A.reshape(out, (1,) * (ndmin - out.ndim) + tuple(out.shape))
    return out


def _concatenator_parts(items, column):
    parts = []
    for item in items:
        if isinstance(item, slice):
            item = np.r_[item]
        x = _t(item)
        if x.ndim == 0:
            x = A.reshape(x, (1, 1) if column else (1,))
        elif column and x.ndim == 1:
            x = A.reshape(x, (-1, 1))
        parts.append(x)
    kind = np.result_type(*[p._value.dtype for p in parts])
    return [p if p._value.dtype == kind else C.cast(p, kind) for p in parts]


def r_(items):
    """``np.r_[a, b, ...]`` with tensors among the items: joined along the first axis."""
    return A.concat(_concatenator_parts(items, False), 0)


def c_(items):
    """``np.c_[a, b, ...]`` with tensors among the items: 1-D items become columns, joined
    along the last axis."""
    return A.concat(_concatenator_parts(items, True), -1)


# -- piecewise constant and integer-valued functions ---------------------------------------------
def constant_of(func):
    """``func`` run on the values, its result a new constant: the functions whose result has no
    derivative (integers, booleans, or piecewise constant values: ``np.argmax``, ``np.trunc``),
    as ``floor`` and the comparisons are ops without a gradient."""
    def call(*args, **kwargs):
        out = func(*unwrap(args), **unwrap(kwargs))
        if isinstance(out, np.ndarray) and out.dtype.kind in "fc":
            return _wrap(out)
        return out
    call.__name__ = getattr(func, "__name__", "constant")
    return call


def copysign(a, b):
    return M.abs(a) * np.where(np.signbit(_value(b)), -1.0, 1.0)


def fmod(a, b):
    a, b = _t(a), _t(b)
    return a - b * np.trunc(a._value / b._value)


def ldexp(x, i):
    return M.multiply(x, np.ldexp(1.0, _value(i)))


def modf(x):
    whole = np.trunc(_value(x))
    return _t(x) - whole, _wrap(whole)


def frexp(x):
    mantissa, exponent = np.frexp(_value(x))
    return M.multiply(x, np.ldexp(1.0, -exponent)), exponent


def divmod_(a, b):
    return M.floordiv(a, b), M.floormod(a, b)


def vecdot(a, b):
    a = _t(a)
    return R.reduce_sum((C.conj(a) if a.dtype.is_complex else a) * b, axis=-1)


def matvec(a, v):
    return A.squeeze(L.matmul(a, A.expand_dims(v, -1)), -1)


def vecmat(v, a):
    v = _t(v)
    v = C.conj(v) if v.dtype.is_complex else v
    return A.squeeze(L.matmul(A.expand_dims(v, -2), a), -2)


#: NumPy functions whose results have no derivative (integers, booleans, shapes, values that
#: do not depend on the arguments' values, piecewise constants): they run on the values, tracked
#: or not. (Functions that return some of their arguments' values, as np.unique, are not here.)
WITHOUT_DERIVATIVE = (
    "all", "any", "argmax", "argmin", "argpartition", "argsort", "argwhere", "nonzero",
    "flatnonzero", "count_nonzero", "searchsorted", "allclose", "isclose", "array_equal",
    "array_equiv", "iscomplexobj", "isrealobj", "iscomplex", "isreal", "isscalar", "result_type",
    "size", "zeros_like", "ones_like", "empty_like", "round", "around", "fix",
    "isneginf", "isposinf", "digitize", "sign", "floor",
    "ceil", "trunc", "rint", "signbit", "may_share_memory", "shares_memory",
    "can_cast", "min_scalar_type", "isfortran", "lexsort", "unravel_index", "ravel_multi_index",
    "nanargmax", "nanargmin", "isin", "in1d",
)


def full(shape, fill_value, dtype=None, order="C", **kw):
    out = A.broadcast_to(_t(fill_value), tuple(np.atleast_1d(shape).tolist())
                         if np.ndim(shape) else (int(shape),))
    return _as_dtype(out, dtype)


def full_like(a, fill_value, dtype=None, order="K", subok=True, shape=None, **kw):
    return full(np.shape(a) if shape is None else shape, fill_value,
                dtype if dtype is not None else _t(a).dtype)


def astype(x, dtype, copy=True, **kw):
    return C.cast(x, dtype)


def heaviside(x1, x2):
    """0 below 0, 1 above, ``x2`` at 0 (the only place a slope can reach, through ``x2``)."""
    v = _value(x1)
    return A.where(v == 0, x2, np.where(v < 0, 0.0, 1.0))


def cumprod(a, axis=None, dtype=None, out=None):
    """Running products, one multiplication per step along ``axis`` (exact where a factor is
    zero, unlike ``exp(cumsum(log))``)."""
    no_out(out)
    x = _t(a) if dtype is None else C.cast(_t(a), dtype)
    if axis is None:
        x, axis = _flat(x), 0
    axis = _axis(axis, x.ndim)
    lead = (slice(None),) * axis
    running = [A.getitem(x, lead + (0,))]
    for k in range(1, x.shape[axis]):
        running.append(running[-1] * A.getitem(x, lead + (k,)))
    if not running or x.shape[axis] == 0:
        return x
    return A.stack(running, axis)


def ptp(a, axis=None, out=None, keepdims=False):
    no_out(out)
    return (R.reduce_max(a, axis=axis, keepdims=bool(keepdims))
            - R.reduce_min(a, axis=axis, keepdims=bool(keepdims)))


def compress(condition, a, axis=None, out=None):
    no_out(out)
    return gathered(a, lambda i: np.compress(_value(condition), i, axis))


def squeeze(a, axis=None):
    return A.squeeze(a, axis)


def reshape(a, *shape, order="C", **kw):
    if order not in ("C", None):
        raise not_differentiable(f"numpy.reshape with order={order!r}", "use order='C'")
    if not shape:
        shape = (kw.get("shape", kw.get("newshape")),)
    if len(shape) == 1:
        shape = shape[0]
    return A.reshape(a, shape)


# -- ndarray methods and attributes of tensors -------------------------------------------------
def _method(func):
    def method(self, *args, **kwargs):
        return func(self, *args, **kwargs)
    method.__name__ = getattr(func, "__name__", "method")
    method.__doc__ = f"``np.{method.__name__}(tensor, ...)`` as a method, as on an ndarray."
    return method


def _reshape_method(self, *shape, order="C"):
    """``x.reshape(2, 3)`` or ``x.reshape((2, 3))``, as on an ndarray."""
    return reshape(self, *shape, order=order)


def _transpose_method(self, *axes):
    """``x.transpose()``, ``x.transpose(1, 0)`` or ``x.transpose((1, 0))``."""
    if len(axes) == 1 and (axes[0] is None or np.ndim(axes[0]) == 1):
        axes = axes[0]
    return A.transpose(self, list(axes) if axes else None)


def _astype(self, dtype, order="K", casting="unsafe", subok=True, copy=True):
    return C.cast(self, dtype)


#: method name -> the NumPy function it calls on the tensor (through the dispatch table)
NDARRAY_METHODS = (
    "all", "any", "argmax", "argmin", "argpartition", "argsort", "clip", "compress", "cumprod",
    "cumsum", "diagonal", "dot", "max", "mean", "min", "nonzero", "prod", "ptp", "ravel",
    "repeat", "round", "searchsorted", "squeeze", "std", "sum", "swapaxes", "take", "trace",
    "var", "conj", "conjugate",
)


def install_methods(tensor_class):
    """Give tensors the ndarray methods and attributes that autograd differentiates."""
    for name in NDARRAY_METHODS:
        setattr(tensor_class, name, _method(getattr(np, name)))
    tensor_class.flatten = _method(np.ravel)
    tensor_class.reshape = _reshape_method
    tensor_class.transpose = _transpose_method
    tensor_class.astype = _astype
    tensor_class.T = property(lambda self: A.transpose(self), doc="The axes reversed.")
    tensor_class.copy = lambda self, order="C": A.identity(self)


NUMPY_ATTRIBUTES = NDARRAY_METHODS + ("flatten", "reshape", "transpose", "astype", "T", "copy")


def einsum(*operands, out=None, optimize=False, **kwargs):
    """``np.einsum`` in both forms: ``("ij,jk->ik", a, b)`` and the interleaved
    ``(a, [0, 1], b, [1, 2], [0, 2])``."""
    no_out(out)
    if kwargs.get("dtype") is not None or kwargs.get("casting", "safe") != "safe":
        raise not_differentiable("numpy.einsum with dtype= or casting=")
    if isinstance(operands[0], str):
        return L.einsum(operands[0], *operands[1:])
    arrays, subs = list(operands[0::2]), list(operands[1::2])
    output = None
    if len(arrays) > len(subs):            # a trailing output sublist
        output, arrays = arrays[-1], arrays[:-1]

    def letters(sublist):
        return "".join("..." if s is Ellipsis else _EINSUM_LETTERS[int(s)] for s in sublist)

    spec = ",".join(letters(s) for s in subs)
    if output is not None:
        spec += "->" + letters(output)
    return L.einsum(spec, *arrays)


_EINSUM_LETTERS = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"


def complex_extreme(a, axis, keepdims, pick):
    """``np.max`` / ``np.min`` of complex values (NumPy orders them by real part, then
    imaginary): the chosen element itself, so its cotangent goes to it alone."""
    x = _t(a)
    if axis is None:
        flat = _flat(x)
        out = A.getitem(flat, int(pick(flat._value)))
        return A.reshape(out, (1,) * x.ndim) if keepdims else out
    if isinstance(axis, tuple):
        raise not_differentiable("numpy.max / numpy.min of complex values over several axes")
    axis = _axis(axis, x.ndim)
    index = np.expand_dims(pick(x._value, axis=axis), axis)
    out = take_along_axis(x, index, axis)
    return out if keepdims else A.squeeze(out, axis)


# -- np.fft -------------------------------------------------------------------------------------
def _fft_axes(x, s, axes, what):
    """NumPy's reading of ``s`` and ``axes``: the axes (negative) and the size of each."""
    if axes is None:
        axes = list(range(-len(s), 0)) if s is not None else list(range(-x.ndim, 0))
    axes = [_axis(a, x.ndim) - x.ndim for a in np.atleast_1d(axes)]
    sizes = [x.shape[a] for a in axes] if s is None else [int(n) for n in np.atleast_1d(s)]
    if len(sizes) != len(axes):
        raise ValueError(f"{what}: s and axes must have the same length")
    return axes, sizes


def _resized(x, axes, sizes):
    """``x`` cropped or padded with zeros to ``sizes`` along ``axes`` (NumPy's ``s`` / ``n``)."""
    for a, n in zip(axes, sizes):
        have = x.shape[a]
        if n < have:
            x = A.getitem(x, (Ellipsis, slice(0, n)) + (slice(None),) * (-a - 1))
        elif n > have:
            pads = [(0, 0)] * x.ndim
            pads[a] = (0, n - have)
            x = A.pad(x, pads)
    return x


def _norm(norm):
    norm = "backward" if norm is None else norm
    if norm not in ("backward", "ortho", "forward"):
        raise ValueError(f'Invalid norm value {norm}; should be "backward","ortho" or "forward".')
    return norm


def _transform(op, a, s, axes, norm, what):
    x = _t(a)
    axes, sizes = _fft_axes(x, s, axes, what)
    x = _resized(x, axes, sizes)
    if not x.dtype.is_complex:
        x = C.cast(x, "complex128" if x._value.dtype != np.float32 else "complex64")
    return op(x, axes=tuple(axes), norm=_norm(norm))


def fftn(a, s=None, axes=None, norm=None, out=None):
    no_out(out)
    return _transform(F.fftn, a, s, axes, norm, "fftn")


def ifftn(a, s=None, axes=None, norm=None, out=None):
    no_out(out)
    return _transform(F.ifftn, a, s, axes, norm, "ifftn")


def fft(a, n=None, axis=-1, norm=None, out=None):
    return fftn(a, None if n is None else [n], [axis], norm, out)


def ifft(a, n=None, axis=-1, norm=None, out=None):
    return ifftn(a, None if n is None else [n], [axis], norm, out)


def fft2(a, s=None, axes=(-2, -1), norm=None, out=None):
    return fftn(a, s, axes, norm, out)


def ifft2(a, s=None, axes=(-2, -1), norm=None, out=None):
    return ifftn(a, s, axes, norm, out)


def rfftn(a, s=None, axes=None, norm=None, out=None):
    """The transform of real values, halved along the last axis (the rest is its mirror)."""
    x = _t(a)
    if x.dtype.is_complex:
        raise TypeError("rfftn: the input must be real")
    full_ = fftn(x, s, axes, norm, out)
    last = _fft_axes(x, s, axes, "rfftn")[0][-1]
    n = full_.shape[last]
    return A.getitem(full_, (Ellipsis, slice(0, n // 2 + 1)) + (slice(None),) * (-last - 1))


def rfft(a, n=None, axis=-1, norm=None, out=None):
    return rfftn(a, None if n is None else [n], [axis], norm, out)


def rfft2(a, s=None, axes=(-2, -1), norm=None, out=None):
    return rfftn(a, s, axes, norm, out)


def irfft(a, n=None, axis=-1, norm=None, out=None):
    """Real values from half a Hermitian spectrum: the spectrum completed by its mirror
    (conjugated), transformed back, its real part (NumPy reads no imaginary part of the
    first and, for even n, the middle coefficient either)."""
    no_out(out)
    x = _t(a)
    ax = _axis(axis, x.ndim) - x.ndim
    m = x.shape[ax]
    n = 2 * (m - 1) if n is None else int(n)
    half = _resized(x, [ax], [n // 2 + 1])
    tail = (slice(None),) * (-ax - 1)
    mirror = C.conj(A.getitem(half, (Ellipsis, slice((n + 1) // 2 - 1, 0, -1)) + tail))
    spectrum = A.concat([half, mirror], ax) if mirror.shape[ax] else half
    return C.real(F.ifftn(C.cast(spectrum, "complex128") if not spectrum.dtype.is_complex
                          else spectrum, axes=(ax,), norm=_norm(norm)))


def irfftn(a, s=None, axes=None, norm=None, out=None):
    x = _t(a)
    axes, sizes = _fft_axes(x, s, axes, "irfftn") if s is not None else \
        (_fft_axes(x, None, axes, "irfftn")[0], None)
    if sizes is None:
        sizes = [x.shape[a] for a in axes[:-1]] + [2 * (x.shape[axes[-1]] - 1)]
    if len(axes) > 1:
        x = ifftn(x, sizes[:-1], axes[:-1], norm, out)
    return irfft(x, sizes[-1], axes[-1], norm, out)


def irfft2(a, s=None, axes=(-2, -1), norm=None, out=None):
    return irfftn(a, s, axes, norm, out)


def fftshift(x, axes=None):
    return gathered(x, lambda i: np.fft.fftshift(i, axes))


def ifftshift(x, axes=None):
    return gathered(x, lambda i: np.fft.ifftshift(i, axes))
