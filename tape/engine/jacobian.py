"""Vectorized Jacobians: one backward sweep that carries a batch of cotangents (an identity)."""
from __future__ import annotations

import numpy as np

from . import nest
from .tensor import Tensor, _wrap


def _check_target(target, what):
    if not isinstance(target, Tensor):
        raise ValueError(f"{what}: target must be a single Tensor, got {type(target).__name__}")


def _sources(sources, what):
    flat = nest.flatten(sources)
    for s in flat:
        if not isinstance(s, Tensor):
            raise ValueError(f"{what}: sources must be Tensors or Variables, got {type(s).__name__}")
    return flat


def _check_usable(tape, what):
    """The tape's state is checked before the arguments, as TensorFlow does."""
    if tape._used and not tape._persistent:
        tape._begin_use(what)             # raises the RuntimeError


def _chunks(n, parallel_iterations):
    if parallel_iterations is None or parallel_iterations >= n:
        return [(0, n)]
    step = int(parallel_iterations)
    if step <= 0:
        raise ValueError(f"parallel_iterations must be a positive int, got {parallel_iterations}")
    return [(i, min(i + step, n)) for i in range(0, n, step)]


def _batched_gradients(tape, target, flat_sources, seed_rows, parallel_iterations, use_pfor, what):
    """Rows of cotangents ``seed_rows(start, stop)`` pushed back to each source; None if unconnected."""
    from .tape import UnconnectedGradients
    n = seed_rows.n
    tape._begin_use(what)
    if not use_pfor:
        if not tape._persistent:
            raise RuntimeError(f"GradientTape.{what} with experimental_use_pfor=False runs one sweep "
                               "per output element and needs GradientTape(persistent=True)")
        chunks = [(i, i + 1) for i in range(n)]
    else:
        chunks = _chunks(n, parallel_iterations)
    valid = [s for s in flat_sources if s.dtype.is_differentiable]
    persistent = tape._persistent
    if len(chunks) > 1:
        tape._persistent = True          # keep the nodes alive between chunks
    try:
        parts = [[] for _ in flat_sources]
        for start, stop in chunks:
            seed = seed_rows(start, stop)
            grads = tape._sweep({target: seed}, valid, 1) if target.dtype.is_differentiable else {}
            for k, s in enumerate(flat_sources):
                g = grads.get(s)
                parts[k].append(None if g is None else tape._finish(s, g, UnconnectedGradients.NONE,
                                                                     (stop - start,)))
    finally:
        tape._persistent = persistent
    tape._release()
    out = []
    for k, s in enumerate(flat_sources):
        if not chunks:                    # a zero-size target: an empty Jacobian, as with pfor
            out.append(_wrap(np.zeros((0,) + s._value.shape, s._value.dtype)))
            continue
        if all(p is None for p in parts[k]):
            out.append(None)
            continue
        rows = [p._value if p is not None else np.zeros((stop - start,) + s._value.shape, s._value.dtype)
                for p, (start, stop) in zip(parts[k], chunks)]
        if len(rows) == 1:
            out.append(parts[k][0] if parts[k][0] is not None else _wrap(rows[0]))
        else:
            from .ops.array import concat
            out.append(concat([p if p is not None else _wrap(r) for p, r in zip(parts[k], rows)], 0))
    return out


class _IdentityRows:
    def __init__(self, target):
        self.n = int(target._value.size)
        self.shape = tuple(target._value.shape)
        self.dtype = target._value.dtype

    def __call__(self, start, stop):
        rows = np.zeros((stop - start, self.n), self.dtype)
        rows[np.arange(stop - start), np.arange(start, stop)] = 1
        return _wrap(rows.reshape((stop - start,) + self.shape))


class _BatchIdentityRows:
    """Row j: ones over the batch axis times a one-hot over the per-example axes."""

    def __init__(self, target):
        self.b = target._value.shape[0]
        self.inner = tuple(target._value.shape[1:])
        self.n = int(np.prod(self.inner, dtype=np.int64))
        self.dtype = target._value.dtype

    def __call__(self, start, stop):
        rows = np.zeros((stop - start, self.b, self.n), self.dtype)
        rows[np.arange(stop - start), :, np.arange(start, stop)] = 1
        return _wrap(rows.reshape((stop - start, self.b) + self.inner))


def _zeros_or_none(shape, dtype, mode):
    from .tape import UnconnectedGradients, _unconnected_mode
    if _unconnected_mode(mode) is UnconnectedGradients.ZERO:
        return _wrap(np.zeros(shape, dtype)[()])
    return None


def tape_jacobian(tape, target, sources, unconnected_gradients, parallel_iterations, use_pfor):
    from .ops.array import reshape
    from .tape import _unconnected_mode
    _check_usable(tape, "jacobian")
    _unconnected_mode(unconnected_gradients)
    _check_target(target, "jacobian")
    flat = _sources(sources, "jacobian")
    rows = _IdentityRows(target)
    grads = _batched_gradients(tape, target, flat, rows, parallel_iterations, use_pfor, "jacobian")
    results = []
    for s, g in zip(flat, grads):
        shape = rows.shape + tuple(s._value.shape)
        if g is None:
            results.append(_zeros_or_none(shape, s._value.dtype, unconnected_gradients))
        else:
            results.append(reshape(g, shape))
    return nest.pack_sequence_as(sources, results)


def tape_batch_jacobian(tape, target, source, unconnected_gradients, parallel_iterations, use_pfor):
    from .ops.array import reshape, transpose
    from .tape import _unconnected_mode
    _check_usable(tape, "batch_jacobian")
    _unconnected_mode(unconnected_gradients)
    _check_target(target, "batch_jacobian")
    if not isinstance(source, Tensor):
        raise ValueError(f"batch_jacobian: source must be a single Tensor, got {type(source).__name__}")
    for name, t in (("target", target), ("source", source)):
        if t.ndim < 2:
            raise ValueError(f"batch_jacobian: {name} shape {tuple(t.shape)} must have rank at least 2 "
                             "(a batch dimension and at least one more)")
    if target.shape[0] != source.shape[0]:
        raise ValueError(f"batch_jacobian: Need first dimension of target shape {tuple(target.shape)} "
                         f"and source shape {tuple(source.shape)} to match")
    rows = _BatchIdentityRows(target)
    (g,) = _batched_gradients(tape, target, [source], rows, parallel_iterations, use_pfor,
                              "batch_jacobian")
    b = rows.b
    shape = (b,) + rows.inner + tuple(source._value.shape[1:])
    if g is None:       # TF returns zeros of the target's dtype here, whatever unconnected_gradients says
        return _wrap(np.zeros(shape, target._value.dtype))
    # g: (n_inner, b, x...) -> (b, n_inner, x...) -> (b, y..., x...)
    perm = (1, 0) + tuple(range(2, g.ndim))
    return reshape(transpose(g, perm), shape)
