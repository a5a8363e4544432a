"""Derivatives over many points in one vectorized pass, through the public ``tape`` API.

Every routine takes a batched function ``fn(*tensors)`` (points along the first axis, see
``targets.Target.batched``) and the stacked input arrays. Because the function treats points
independently, the gradient of the *sum* over points gives every point's own gradient; nested
tapes repeat the trick for higher orders (each gradient rule is differentiable).

Derivatives are taken with respect to *components*: a scalar variable is one component, a
vector variable of length k contributes k (``x[0]``, ``x[1]``, ...), in ``wrt`` order.
"""
from __future__ import annotations

import itertools

import numpy as np

from .record import Frozen


class Component(Frozen):
    """One differentiable component: variable ``name`` (index ``var`` among the inputs) and,
    for a vector variable, the component ``index``."""

    _fields = ("name", "var", "index")

    def __init__(self, name: str, var: int, index: int | None) -> None:
        object.__setattr__(self, "name", name)
        object.__setattr__(self, "var", var)
        object.__setattr__(self, "index", index)

    @property
    def label(self) -> str:
        return self.name if self.index is None else f"{self.name}[{self.index}]"


def components(variables: list[str], wrt: list[str], sizes: dict) -> list[Component]:
    """The wrt components in order (vectors flattened)."""
    out = []
    for name in wrt:
        var = variables.index(name)
        if sizes[name] is None:
            out.append(Component(name, var, None))
        else:
            out.extend(Component(name, var, i) for i in range(sizes[name]))
    return out


def multisets(n_components: int, order: int) -> list[tuple[int, ...]]:
    """Every distinct order-``order`` partial, as sorted index tuples, in lexicographic order."""
    return list(itertools.combinations_with_replacement(range(n_components), order))


def _as_numpy(t) -> np.ndarray:
    return np.asarray(t.numpy() if hasattr(t, "numpy") else t, dtype=np.float64)


def partials(fn, arrays: list[np.ndarray], comps: list[Component], order: int):
    """The value and every distinct partial derivative of order ``order``.

    Returns ``(value, {multiset: array (N,)})`` where each multiset is a sorted tuple of
    indices into ``comps`` (order 1: one entry per component, i.e. the gradient).
    Uses ``order`` nested persistent tapes: the innermost differentiates the value, each outer
    one differentiates the partials of the tape inside it.
    """
    import tape

    xs = [tape.constant(a) for a in arrays]
    wrt_vars = sorted({c.var for c in comps}, key=[c.var for c in comps].index)
    sources = [xs[v] for v in wrt_vars]
    slot = {v: i for i, v in enumerate(wrt_vars)}
    tapes = [tape.GradientTape(persistent=True) for _ in range(order)]
    entered = []
    try:
        for t in tapes:
            t.__enter__()
            entered.append(t)
            t.watch(sources)
        value = fn(*xs)
        level = {(): value}
        for _ in range(order):
            t = entered.pop()
            t.__exit__(None, None, None)
            following = {}
            for key, z in level.items():
                grads = t.gradient(z, sources, unconnected_gradients="zero")
                first = key[-1] if key else 0
                for ci in range(first, len(comps)):
                    c = comps[ci]
                    g = grads[slot[c.var]]
                    following[key + (ci,)] = g if c.index is None else g[:, c.index]
            level = following
    finally:
        while entered:
            entered.pop().__exit__(None, None, None)
    return _as_numpy(value), {k: _as_numpy(v) for k, v in level.items()}


def single_derivative(fn, arrays: list[np.ndarray], comp: Component, order: int):
    """The ``order``-th derivative along one scalar variable, by the engine's Taylor mode
    (``tape.derivative``) when it exists and handles the batch; None otherwise (the caller
    then uses ``partials``)."""
    import tape

    derivative = getattr(tape, "derivative", None)
    if derivative is None or comp.index is not None:
        return None
    xs = [tape.constant(a) for a in arrays]

    def along(x):
        return fn(*[x if i == comp.var else t for i, t in enumerate(xs)])

    try:
        got = _as_numpy(derivative(along, xs[comp.var], order=order))
        value = value_only(fn, arrays)
    except (TypeError, ValueError, NotImplementedError, LookupError):
        return None
    if got.shape != value.shape:
        return None
    return value, {(0,) * order: got}


def value_only(fn, arrays: list[np.ndarray]) -> np.ndarray:
    """Just the function's value at every point."""
    import tape

    return _as_numpy(fn(*[tape.constant(a) for a in arrays]))


def jacobian(fn, arrays: list[np.ndarray], comps: list[Component]):
    """Value ``(N, m)`` and Jacobian ``(N, m, len(comps))`` of a vector-valued function.

    Points are independent, so each variable's block is one ``batch_jacobian``: a single
    backward sweep carrying all m output rows, whatever m is.
    """
    import tape

    wrt_vars = sorted({c.var for c in comps}, key=[c.var for c in comps].index)
    # batch_jacobian wants sources of rank >= 2: each variable is watched as (N, k), k = 1 for a scalar
    sources = {v: tape.constant(arrays[v].reshape(len(arrays[v]), -1)) for v in wrt_vars}
    with tape.GradientTape(persistent=True) as t:
        t.watch(list(sources.values()))
        xs = [tape.reshape(sources[i], a.shape) if i in sources else tape.constant(a)
              for i, a in enumerate(arrays)]
        y = fn(*xs)
        if len(y.shape) == 1:
            y = tape.reshape(y, (-1, 1))
    n, m = int(y.shape[0]), int(y.shape[1])
    jac = np.zeros((n, m, len(comps)))
    blocks = {v: _as_numpy(t.batch_jacobian(y, sources[v], unconnected_gradients="zero"))
              for v in wrt_vars}                     # (N, m, k)
    blocks = {v: b[:, :, 0] if arrays[v].ndim == 1 else b for v, b in blocks.items()}
    for j, c in enumerate(comps):
        block = blocks[c.var]
        jac[:, :, j] = block if c.index is None else block[:, :, c.index]
    jac += 0.0        # a zero cotangent row times a negative partial gives -0.0: print it as 0.0
    return _as_numpy(y), jac


def unbatched(fn):
    """Adapt a function written for one point (scalars ``()``, vectors ``(k,)``) to the
    batched layout with N = 1: the inputs are sliced inside the tape, so gradients flow."""
    import tape

    def run(*tensors):
        out = fn(*[x[0] for x in tensors])
        return tape.expand_dims(out, 0)

    return run
