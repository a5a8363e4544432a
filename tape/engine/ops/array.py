"""Shape and indexing ops. Gradients of slicing and gathering are dense scatters."""
from __future__ import annotations

import numpy as np

from ..broadcast import batch_ndim, unbroadcast_plan
from ..registry import defop
from ..structural import mark, mask_of, plain
from ..tensor import Tensor, _wrap, convert_to_tensor
from .cast import conj
from .rules import or_zero, select_series

__all__ = ["broadcast_to", "concat", "expand_dims", "gather", "gather_nd", "identity", "pad",
           "rank", "reshape", "reverse", "shape", "size", "split", "squeeze", "stack", "tile",
           "transpose", "unstack", "where"]


def _shape_tuple(shape, what):
    if isinstance(shape, Tensor):
        shape = shape._value.tolist()
    if isinstance(shape, (int, np.integer)):
        return (int(shape),)
    try:
        return tuple(int(s) for s in shape)
    except TypeError:
        raise TypeError(f"{what}: shape must be a sequence of ints, got {shape!r}") from None


# -- reshape / transpose / broadcast -------------------------------------------------------
def _reshape_np(x, shape):
    try:
        return np.reshape(x, shape)
    except ValueError:
        raise ValueError(f"reshape: cannot reshape a tensor of shape {np.shape(x)} "
                         f"({np.size(x)} elements) into shape {shape}") from None


_reshape = defop("Reshape", _reshape_np, lambda n, g: [
    _reshape(g, shape=tuple(g.shape[:batch_ndim(n, g)]) + tuple(n.inputs[0].shape))], linear=True)


def reshape(tensor, shape, name=None):
    """``tensor`` with a new shape of the same number of elements (one entry may be -1)."""
    x = convert_to_tensor(tensor)
    shape = _shape_tuple(shape, "reshape")
    if shape == tuple(x._value.shape):
        return x
    return _reshape(x, shape=shape)


def _transpose_grad(node, g):
    nb = batch_ndim(node, g)
    inverse = np.argsort(node.attrs["axes"])
    return [_transpose(g, axes=tuple(range(nb)) + tuple(nb + int(p) for p in inverse))]


_transpose = defop("Transpose", lambda x, axes: np.transpose(x, axes), _transpose_grad, linear=True)


def transpose(a, perm=None, conjugate=False, name=None):
    """Permute axes (reverse them when ``perm`` is None)."""
    x = convert_to_tensor(a)
    nd = x.ndim
    perm = tuple(range(nd - 1, -1, -1)) if perm is None else _shape_tuple(perm, "transpose")
    if sorted(p % max(nd, 1) for p in perm) != list(range(nd)):
        raise ValueError(f"transpose: perm {perm} is not a permutation of the {nd} axes of a "
                         f"tensor of shape {tuple(x.shape)}")
    perm = tuple(p % nd for p in perm)
    out = _transpose(x, axes=perm) if perm != tuple(range(nd)) else x
    if conjugate and out._value.dtype.kind == "c":
        out = conj(out)
    return out


def _broadcast_to_np(x, shape):
    try:
        return np.broadcast_to(x, shape)
    except ValueError:
        raise ValueError(f"broadcast_to: shape {np.shape(x)} cannot be broadcast to {shape}") from None


_broadcast_to = defop("BroadcastTo", _broadcast_to_np,
                      lambda n, g: [unbroadcast(g, n.inputs[0].shape, batch_ndim(n, g))], linear=True)


def broadcast_to(input, shape, name=None):
    x = convert_to_tensor(input)
    shape = _shape_tuple(shape, "broadcast_to")
    return x if shape == tuple(x.shape) else _broadcast_to(x, shape=shape)


def expand_dims(input, axis, name=None):
    """Insert an axis of length 1 at ``axis``."""
    x = convert_to_tensor(input)
    nd = x.ndim
    axis = int(axis)
    if not -nd - 1 <= axis <= nd:
        raise ValueError(f"expand_dims: axis {axis} is out of range for a tensor of rank {nd}")
    axis = axis % (nd + 1)
    shape = tuple(x.shape)
    return reshape(x, shape[:axis] + (1,) + shape[axis:])


def squeeze(input, axis=None, name=None):
    """Remove axes of length 1 (all of them, or those in ``axis``)."""
    x = convert_to_tensor(input)
    shape = tuple(x.shape)
    if axis is None:
        axes = {i for i, n in enumerate(shape) if n == 1}
    else:
        axes = {int(a) % max(len(shape), 1) for a in np.atleast_1d(axis)}
        bad = [a for a in axes if shape[a] != 1]
        if bad:
            raise ValueError(f"squeeze: axis {bad[0]} has length {shape[bad[0]]}, not 1 "
                             f"(shape {shape})")
    return reshape(x, tuple(n for i, n in enumerate(shape) if i not in axes))


# -- indexing ------------------------------------------------------------------------------
def _normalise_key(key):
    if not isinstance(key, tuple):
        key = (key,)
    out = []
    for k in key:
        if isinstance(k, Tensor):
            k = k._value
            k = k.item() if k.ndim == 0 and k.dtype.kind in "iu" else k
        elif isinstance(k, list):
            k = np.asarray(k)
        out.append(k)
    return tuple(out)


def _getitem_np(x, key):
    try:
        return x[key]                   # (structural zeros keep their mark: structural.py)
    except IndexError as exc:
        raise IndexError(f"index {key!r} is invalid for a tensor of shape {np.shape(x)}: {exc}") from None


def _scatter_np(g, shape, key):
    out = np.zeros(shape, dtype=g.dtype)
    if any(isinstance(k, np.ndarray) for k in key):
        np.add.at(out, key, plain(g))     # repeated indices accumulate
        return out
    out[key] = plain(g)
    # every element the key does not reach is identically zero (structural.py)
    structural = np.ones(shape, bool)
    structural[key] = False if mask_of(g) is None else mask_of(g)
    return mark(out, structural)


def _batched_key(key, nb):
    return (slice(None),) * nb + key


_getitem = defop("StridedSlice", _getitem_np, lambda n, g: [scatter_into(
    g, shape=tuple(g.shape[:batch_ndim(n, g)]) + tuple(n.inputs[0].shape),
    key=_batched_key(n.attrs["key"], batch_ndim(n, g)))], linear=True)
scatter_into = defop("ScatterKey", _scatter_np, lambda n, g: [_getitem(
    g, key=_batched_key(n.attrs["key"], g.ndim - len(n.attrs["shape"])))], linear=True)


def getitem(tensor, key):
    """``tensor[key]`` with NumPy's basic and advanced indexing."""
    x = convert_to_tensor(tensor)
    return _getitem(x, key=_normalise_key(key))


def gather(params, indices, validate_indices=None, axis=None, batch_dims=0, name=None):
    """Slices of ``params`` along ``axis`` at ``indices`` (gradient: a dense scatter-add)."""
    x = convert_to_tensor(params)
    idx = np.asarray(indices._value if isinstance(indices, Tensor) else indices)
    if idx.dtype.kind not in "iu":
        raise TypeError(f"gather: indices must be integers, got {idx.dtype}")
    b = int(batch_dims) + (idx.ndim if batch_dims < 0 else 0)
    axis = b if axis is None else int(axis) % max(x.ndim, 1)
    if not 0 <= b <= min(idx.ndim, axis) or idx.shape[:b] != x.shape[:b]:
        raise ValueError(f"gather: batch_dims={batch_dims} needs the first {b} dimensions of params "
                         f"{tuple(x.shape)} and indices {tuple(idx.shape)} to match, and axis >= batch_dims")
    if idx.size and (idx.max() >= x.shape[axis] or idx.min() < -x.shape[axis]):
        raise IndexError(f"gather: indices out of range [0, {x.shape[axis]}) for axis {axis} of "
                         f"shape {tuple(x.shape)}")
    if not b:
        return _getitem(x, key=(slice(None),) * axis + (idx,))
    # batch_dims (TF): out[b..., i..., rest] = params[b..., idx[b..., i...], rest]; the batch
    # positions index with aranges shaped to broadcast against idx
    batch = tuple(np.arange(n).reshape((1,) * j + (n,) + (1,) * (idx.ndim - j - 1))
                  for j, n in enumerate(idx.shape[:b]))
    out = _getitem(x, key=batch + (slice(None),) * (axis - b) + (idx,))
    if axis == b:
        return out
    # NumPy put the broadcast index dimensions first; TF keeps params' dims b..axis-1 before them
    ni, mid = idx.ndim - b, axis - b
    perm = (list(range(b)) + [idx.ndim + k for k in range(mid)] + [b + k for k in range(ni)]
            + list(range(idx.ndim + mid, out.ndim)))
    return transpose(out, perm)


def gather_nd(params, indices, batch_dims=0, name=None):
    """Elements or slices of ``params`` at the index vectors in the last axis of ``indices``."""
    x = convert_to_tensor(params)
    idx = np.asarray(indices._value if isinstance(indices, Tensor) else indices)
    if idx.dtype.kind not in "iu":
        raise TypeError(f"gather_nd: indices must be integers, got {idx.dtype}")
    if batch_dims:
        raise NotImplementedError("gather_nd: batch_dims is not supported")
    k = idx.shape[-1]
    if k > x.ndim:
        raise ValueError(f"gather_nd: index vectors of length {k} for a tensor of rank {x.ndim}")
    return _getitem(x, key=tuple(idx[..., i] for i in range(k)))


# -- joining and splitting -----------------------------------------------------------------
def _concat_grad(node, g):
    nb = batch_ndim(node, g)
    axis = node.attrs["axis"]
    grads, start = [], 0
    for x in node.inputs:
        stop = start + x.shape[axis]
        grads.append(_getitem(g, key=(slice(None),) * (nb + axis) + (slice(start, stop),)))
        start = stop
    return grads


_concat = defop("ConcatV2", lambda *xs, axis: np.concatenate(xs, axis), _concat_grad, linear=True)


def concat(values, axis, name=None):
    """Join tensors along an existing axis."""
    xs = [convert_to_tensor(v) for v in values]
    if not xs:
        raise ValueError("concat: values must be a non-empty list of tensors")
    nd = xs[0].ndim
    if nd == 0:
        raise ValueError("concat: cannot concatenate scalars (shape ()); use tape.stack")
    axis = int(axis) % nd
    for x in xs[1:]:
        sa, sb = tuple(xs[0].shape), tuple(x.shape)
        if len(sa) != len(sb) or any(a != b for i, (a, b) in enumerate(zip(sa, sb)) if i != axis):
            raise ValueError(f"concat: shapes {sa} and {sb} differ outside axis {axis}")
    return _concat(*xs, axis=axis)


def stack(values, axis=0, name=None):
    """Join tensors of equal shape along a new axis."""
    xs = [convert_to_tensor(v) for v in values]
    if not xs:
        raise ValueError("stack: values must be a non-empty list of tensors")
    shape = tuple(xs[0].shape)
    for x in xs[1:]:
        if tuple(x.shape) != shape:
            raise ValueError(f"stack: all shapes must match, got {shape} and {tuple(x.shape)}")
    axis = int(axis) % (len(shape) + 1)
    return concat([expand_dims(x, axis) for x in xs], axis=axis)


def unstack(value, num=None, axis=0, name=None):
    """Split a tensor into a list of tensors along ``axis``."""
    x = convert_to_tensor(value)
    if x.ndim == 0:
        raise ValueError("unstack: cannot unstack a scalar (shape ())")
    axis = int(axis) % x.ndim
    n = x.shape[axis]
    if num is not None and int(num) != n:
        raise ValueError(f"unstack: num={num} but axis {axis} has length {n}")
    return [_getitem(x, key=(slice(None),) * axis + (i,)) for i in range(n)]


def split(value, num_or_size_splits, axis=0, name=None):
    x = convert_to_tensor(value)
    axis = int(axis) % x.ndim
    n = x.shape[axis]
    if isinstance(num_or_size_splits, (int, np.integer)):
        k = int(num_or_size_splits)
        if k <= 0 or n % k:
            raise ValueError(f"split: axis {axis} of length {n} cannot be split into {k} equal parts")
        sizes = [n // k] * k
    else:
        sizes = [int(s) for s in num_or_size_splits]
        if sum(sizes) != n:
            raise ValueError(f"split: sizes {sizes} do not add up to axis length {n}")
    out, start = [], 0
    for s in sizes:
        out.append(_getitem(x, key=(slice(None),) * axis + (slice(start, start + s),)))
        start += s
    return out


def _tile_grad(node, g):
    nb = batch_ndim(node, g)
    x = node.inputs[0]
    reps = node.attrs["multiples"]
    split_shape = tuple(g.shape[:nb])
    for r, n in zip(reps, x.shape):
        split_shape += (r, n)
    summed = reduce_sum(reshape(g, split_shape), axis=tuple(nb + 2 * i for i in range(x.ndim)))
    return [summed]


_tile = defop("Tile", lambda x, multiples: np.tile(x, multiples), _tile_grad, linear=True)


def tile(input, multiples, name=None):
    x = convert_to_tensor(input)
    reps = _shape_tuple(multiples, "tile")
    if len(reps) != x.ndim:
        raise ValueError(f"tile: multiples {reps} must have one entry per axis of shape {tuple(x.shape)}")
    return _tile(x, multiples=reps)


def _pad_grad(node, g):
    nb = batch_ndim(node, g)
    key = (slice(None),) * nb + tuple(slice(lo, lo + n) for (lo, _), n in
                                       zip(node.attrs["paddings"], node.inputs[0].shape))
    return [_getitem(g, key=key)]


# affine, not linear (constant_values): tangents and higher coefficients are padded with zeros
_pad = defop("Pad", lambda x, paddings, constant_values: np.pad(x, paddings, constant_values=constant_values),
             _pad_grad,
             jvp=lambda n, t: None if t is None else n.op(t, paddings=n.attrs["paddings"], constant_values=0),
             taylor=lambda n, ins, K: np.pad(ins[0], ((0, 0),) + tuple(n.attrs["paddings"])))


def pad(tensor, paddings, mode="CONSTANT", constant_values=0, name=None):
    if str(mode).upper() != "CONSTANT":
        raise NotImplementedError(f"pad: mode {mode!r} is not supported; use 'CONSTANT'")
    x = convert_to_tensor(tensor)
    pads = tuple((int(a), int(b)) for a, b in np.asarray(paddings).reshape(-1, 2))
    if len(pads) != x.ndim:
        raise ValueError(f"pad: paddings need one (before, after) pair per axis of shape {tuple(x.shape)}")
    return _pad(x, paddings=pads, constant_values=constant_values)


def reverse(tensor, axis, name=None):
    x = convert_to_tensor(tensor)
    axes = {int(a) % x.ndim for a in np.atleast_1d(axis)}
    return _getitem(x, key=tuple(slice(None, None, -1) if i in axes else slice(None)
                                 for i in range(x.ndim)))


# -- selection -----------------------------------------------------------------------------
def _where_grad(node, g):
    cond, a, b = node.inputs
    nb = batch_ndim(node, g)
    zero = _wrap(np.zeros((), g._value.dtype))
    _, need_a, need_b = node.needs_grad
    c = cond._value
    # the branch not taken gets zeros that are structural: a singular slope there (sqrt of a
    # negative number, log 0) is multiplied by them as 0, not as 0 * inf (structural.py)
    ga = unbroadcast(_unselected(_where(cond, g, zero), ~c), a.shape, nb) if need_a else None
    gb = unbroadcast(_unselected(_where(cond, zero, g), c), b.shape, nb) if need_b else None
    return [None, ga, gb]


def _unselected(t, mask):
    v = t._value
    t._value = mark(np.asarray(v) if isinstance(v, np.generic) else v, mask)
    return t


def _where_jvp(node, tc, ta, tb):
    cond, a, b = node.inputs
    if ta is None and tb is None:
        return None
    return _where(cond, or_zero(ta, a), or_zero(tb, b))


_where = defop("SelectV2", np.where, _where_grad, jvp=_where_jvp,
               taylor=select_series(lambda n: n.inputs[0]._value))


def where(condition, x=None, y=None, name=None):
    """Elements of ``x`` where ``condition`` holds, else of ``y`` (broadcasting).

    With only ``condition``: the indices of its true elements, shape ``[n, rank]``.
    """
    if x is None and y is None:
        c = np.asarray(condition._value if isinstance(condition, Tensor) else condition)
        return _wrap(np.argwhere(c).astype(np.int64))
    if x is None or y is None:
        raise ValueError("where: give both x and y, or neither")
    cond = convert_to_tensor(condition)
    if cond.dtype.name != "bool":
        cond = _wrap(np.asarray(cond._value, dtype=bool)[()])
    if not isinstance(x, Tensor) and not isinstance(y, Tensor):
        x = convert_to_tensor(x)
    return _where(cond, x, y)


def shape(input, out_type=None, name=None):
    return _wrap(np.asarray(np.shape(convert_to_tensor(input)._value), dtype=np.int64))


def size(input, out_type=None, name=None):
    return _wrap(np.int64(np.size(convert_to_tensor(input)._value)))


def rank(input, name=None):
    return _wrap(np.int64(np.ndim(convert_to_tensor(input)._value)))


# (name: TensorFlow's argument; accepted and ignored)
identity = defop("Identity", lambda x, name=None: x, lambda n, g: [g], fast=lambda n, g: g, arity=1,
                 linear=True, symmetric=True)


# -- sums: the one reduction the shape ops' rules need (undoing broadcasting) --------------
def reduction_axes(axis, ndim, what):
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


def kept_shape(shape, axes):
    if axes is None:
        return (1,) * len(shape)
    return tuple(1 if i in axes else n for i, n in enumerate(shape))


def spread(node, g):
    """Cotangent of a reduction's output, reshaped and broadcast back to the input's shape."""
    x = node.inputs[0]
    nb = batch_ndim(node, g)
    bshape = tuple(g.shape[:nb])
    kept = kept_shape(x.shape, node.attrs["axis"])
    return broadcast_to(reshape(g, bshape + kept), bshape + tuple(x.shape))


def kept_output(node, g):
    x = node.inputs[0]
    return reshape(node.outputs[0], kept_shape(x.shape, node.attrs["axis"]))


def _sum_fast(node, g):
    x = node.inputs[0]._value
    nb = g.ndim - node.outputs[0]._value.ndim
    kept = g.shape[:nb] + kept_shape(x.shape, node.attrs["axis"])
    return np.broadcast_to(np.reshape(g, kept), g.shape[:nb] + x.shape)     # a view: no copy


_reduce_sum = defop("Sum", lambda x, axis, keepdims: np.sum(x, axis=axis, keepdims=keepdims),
                    lambda n, g: [spread(n, g)], fast=_sum_fast, linear=True)


def reducer(op, what, empty_ok=True):
    def reduce(input_tensor, axis=None, keepdims=False, name=None):
        x = convert_to_tensor(input_tensor)
        axes = reduction_axes(axis, x.ndim, what)
        if not empty_ok and x._value.size == 0:
            raise ValueError(f"{what}: cannot reduce an empty tensor of shape {tuple(x.shape)}")
        return op(x, axis=axes, keepdims=bool(keepdims))
    reduce.__name__ = what
    reduce.__doc__ = f"``{what}`` of the elements over ``axis`` (all axes when None)."
    return reduce


reduce_sum = reducer(_reduce_sum, "reduce_sum")


def unbroadcast(g, shape, nb: int = 0):
    """Sum a cotangent ``g`` (batch axes + broadcast shape) back to ``batch + shape``, with
    tape ops (differentiable again). ``nb`` leading batch axes of ``g`` are kept. Every
    broadcasting rule goes through here (``unbroadcast_array`` is its raw-NumPy twin)."""
    shape = tuple(shape)
    if g._value.shape[nb:] == shape:
        return g
    axes, target = unbroadcast_plan(g._value.shape, shape, nb)
    if axes:
        g = reduce_sum(g, axis=axes)
    return reshape(g, target) if g._value.shape != target else g
