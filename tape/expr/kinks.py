"""Points where an expression is not smooth: the kink of ``abs``/``relu`` at 0, a jump of
``sign``, ``floor``, ``ceil``, ``max``/``min`` where their arguments tie, ``norm`` at the zero
vector; and for ``--check`` also the vertical tangent of ``sqrt``, ``cbrt``, ``root`` and a
fractional power below 1 where their argument is 0 (``sqrt(x^2)`` is ``|x|``).

The engine differentiates such functions one-sidedly (``abs'(0) = 0``), which is right for
gradients but would make a tangent line or a Taylor polynomial there a wrong answer; the
commands that need smoothness ask ``kink_at`` first and refuse (exit 2). ``--check`` asks
``kink_mask`` which points lie on a kink: there tape's one-sided value and SymPy's convention
(``Heaviside(0) = 1/2``) may both be defensible, so a difference is reported as a point where f
may not be differentiable, not as a disagreement.

A kink found here is a kink of one call inside the expression: the whole expression may still
be smooth there (``x*abs(x)`` at 0), so callers say "may not be differentiable".
"""
from __future__ import annotations

from typing import Callable, Iterator

import numpy as np

from . import tree as E


def _zero(a: list) -> np.ndarray:
    return a[0] == 0


def _integer(a: list) -> np.ndarray:
    return np.isfinite(a[0]) & (a[0] == np.floor(a[0]))


def _tie(a: list) -> np.ndarray:
    return a[0] == a[1]


def _zero_vector(a: list) -> np.ndarray:
    return np.all(a[0] == 0, axis=-1) if a[0].ndim > 1 else a[0] == 0


def _root_at_zero(a: list) -> np.ndarray:
    """``root(x, n)`` is ``x^(1/n)``: a vertical tangent at x = 0 for n > 1."""
    return (a[0] == 0) & (np.abs(a[1]) > 1)


#: functions that are not differentiable where ``at_kink(argument values)`` is true (arrays of
#: the batched layout: (N,) or (N, k))
KINKS: dict[str, Callable[[list], np.ndarray]] = {
    "abs": _zero,
    "relu": _zero,
    "sign": _zero,
    "sgn": _zero,
    "floor": _integer,
    "ceil": _integer,
    "max": _tie,
    "min": _tie,
    "norm": _zero_vector,
}
#: functions with a vertical tangent where ``at_vertical(argument values)`` is true; a tangent
#: or Taylor polynomial there is refused for its infinite slope, so only --check asks for them
VERTICAL: dict[str, Callable[[list], np.ndarray]] = {
    "sqrt": _zero,
    "cbrt": _zero,
    "root": _root_at_zero,
}


def _fractional_power_at_zero(a: list) -> np.ndarray:
    """``u^p`` with 0 < p < 1 not an integer: a vertical tangent at u = 0 (``(x^2)^(1/2)``)."""
    base, exponent = a
    return (base == 0) & (exponent > 0) & (exponent < 1)


def _nodes(tree: E.Expr, vertical: bool
           ) -> Iterator[tuple[E.Expr, list[E.Expr], Callable]]:
    """Each non-smooth node with its arguments and kink test, outermost first (``vertical``:
    vertical tangents too)."""
    stack = [tree]
    while stack:
        node = stack.pop()
        stack.extend(reversed(E.children(node)))
        if isinstance(node, E.Call) and node.name in KINKS:
            yield node, list(node.args), KINKS[node.name]
        elif not vertical:
            continue
        elif isinstance(node, E.Call) and node.name in VERTICAL:
            yield node, list(node.args), VERTICAL[node.name]
        elif isinstance(node, E.Binary) and node.op == "**":
            yield node, [node.left, node.right], _fractional_power_at_zero


def kink_notes(trees: list[E.Expr], orders: list, names: list[str],
               arrays: list[np.ndarray]) -> list[str]:
    """A note for each call with a kink or jump at some of the N points (``abs`` at 0, ``floor``
    at an integer, ``max`` at a tie): the derivative may not exist there, and the number shown
    is the engine's one-sided value. Worded alike for every block of points, so that a stream
    says it once. ``orders``: each tree's postorder list when the reader made one (None
    otherwise), so a tree without such calls is not walked again."""
    calls: dict[str, None] = {}
    for tree, order in zip(trees, orders):
        found = (any(type(node) is E.Call and node.name in KINKS for node, _ in order)
                 if order is not None else next(_nodes(tree, False), None) is not None)
        if found:
            _, which = kink_mask(tree, names, arrays, vertical=False)
            calls.update(dict.fromkeys(w for w in which if w is not None))
    return [f"{call} has a kink or jump at some of the points asked for: the derivative may not "
            f"exist there, and what is shown is the one-sided value (as TensorFlow gives it)"
            for call in calls]


def kink_mask(tree: E.Expr, names: list[str], arrays: list[np.ndarray],
              vertical: bool = True) -> tuple[np.ndarray, list[str | None]]:
    """Which of N points lie on a kink of ``tree``: ``(mask, which)`` where ``mask[i]`` is
    true when point i does and ``which[i]`` names the call (``"relu(x)"``) or is None.

    ``arrays[j]`` holds variable ``names[j]`` at every point, (N,) or (N, k). ``vertical``:
    count vertical tangents (``sqrt`` at 0) as kinks too.
    """
    import tape

    from .printer import read_as
    from .lower import to_tape

    count = len(arrays[0]) if arrays else 1
    mask = np.zeros(count, dtype=bool)
    which: list[str | None] = [None] * count
    inputs = [np.asarray(a, dtype=np.float64) for a in arrays]
    for node, args, at_kink in _nodes(tree, vertical):
        values = []
        with np.errstate(all="ignore"):
            for arg in args:
                out = to_tape(arg, names)(*[tape.constant(a) for a in inputs])
                value = np.asarray(out.numpy(), dtype=np.float64)
                values.append(np.broadcast_to(value, (count,) + value.shape[1:])
                              if value.ndim else np.full(count, float(value)))
            if len(values) == 2 and values[0].ndim != values[1].ndim:  # a scalar and a vector
                values = [v if v.ndim > 1 else v[:, None] for v in values]
            hit = np.asarray(at_kink(values))
        hit = hit.reshape(count, -1).any(axis=1) if hit.ndim else np.full(count, bool(hit))
        text = _text(node, read_as)
        for i in np.flatnonzero(hit & ~mask).tolist():
            which[i] = text
        mask |= hit
    return mask, which


def _text(node: E.Expr, read_as) -> str:
    if isinstance(node, E.Call):
        return f"{node.name}({', '.join(read_as(a) for a in node.args)})"
    return read_as(node)


def kink_at(tree: E.Expr, point: dict[str, float]) -> str | None:
    """The first non-smooth call (as text, e.g. ``"abs(x - 1)"``) whose kink lies at
    ``point``, or None when the expression is smooth there as far as its functions go."""
    names = sorted(point)
    _, which = kink_mask(tree, names, [np.array([point[n]], dtype=np.float64) for n in names],
                         vertical=False)
    return which[0]
