"""Finite-difference derivatives with Richardson extrapolation and an error estimate.

This is the independent second opinion for script targets (``--check`` on a ``.py`` target),
where SymPy cannot see the function. Only function *values* are used, never the tape's
derivatives.

A partial derivative is a multiset of components, e.g. (x, x, y) for d3f/dx2dy. For each
component with multiplicity m the central difference of order m is applied,

    delta^m f(x) = sum_k (-1)^k C(m, k) f(x + (m/2 - k) h),   d^m f/dx^m ~ delta^m f / h^m,

and the operators for different components are multiplied, so every partial is the stencil on a
small grid of points. Its error is a series in h^2, so a Richardson table over the steps
h, h/2, h/4, ... removes the h^2, h^4, ... terms (Ridders' method). The answer is the table entry
whose estimated error (its difference from its neighbours, plus rounding) is smallest.
"""
from __future__ import annotations

import itertools
from math import comb
from typing import Callable, Sequence

import numpy as np

#: first step, relative to max(1, |x|) of the component being moved
FIRST_STEP = 0.1
#: number of halvings of the step (rows of the Richardson table)
LEVELS = 12


def stencil(counts: Sequence[int]) -> list[tuple[tuple[float, ...], float]]:
    """The offsets (in units of h, one per component) and weights of the product stencil.

    >>> stencil([1])
    [((0.5,), 1.0), ((-0.5,), -1.0)]
    >>> [w for _, w in stencil([2])]
    [1.0, -2.0, 1.0]
    """
    per_component = [[(m / 2 - k, (-1) ** k * comb(m, k)) for k in range(m + 1)]
                     for m in counts]
    out = []
    for combo in itertools.product(*per_component):
        out.append((tuple(float(o) for o, _ in combo), float(np.prod([w for _, w in combo]))))
    return out


def partial(evaluate: Callable[[list[np.ndarray]], np.ndarray], arrays: list[np.ndarray],
            moves: Sequence[tuple[int, int | None]], key: Sequence[int]):
    """One partial derivative at every point, with its error estimate.

    ``evaluate(arrays) -> (N,)`` or ``(N, m)`` evaluates the function at N points, ``arrays``
    in variable order (``(N,)`` for scalars, ``(N, k)`` for vectors). ``moves[c]`` says which
    variable (and vector index, or None) component ``c`` is; ``key`` is the multiset of
    components to differentiate along. Returns ``(estimate, error)`` shaped like the value.
    """
    comps = sorted(set(key))
    counts = [list(key).count(c) for c in comps]
    points = stencil(counts)
    scales = [np.maximum(1.0, np.abs(_component(arrays, moves[c]))) for c in comps]
    eps = np.finfo(np.float64).eps

    rows, rounding = [], []
    for level in range(LEVELS):
        h = [FIRST_STEP * 0.5 ** level * s for s in scales]
        total, biggest = 0.0, 0.0
        for offsets, weight in points:
            moved = [a.copy() for a in arrays]
            for c, off, step in zip(comps, offsets, h):
                _shift(moved, moves[c], off * step)
            with np.errstate(all="ignore"):
                values = np.asarray(evaluate(moved), dtype=np.float64)
            total = total + weight * values
            biggest = np.maximum(biggest, np.abs(values))
        denominator = _broadcast(np.prod(np.stack([step ** m for step, m in zip(h, counts)]),
                                         axis=0), total)
        rows.append(total / denominator)
        rounding.append(4 * eps * biggest * sum(abs(w) for _, w in points) / denominator)
    with np.errstate(all="ignore"):
        return _richardson(rows, rounding)


def _richardson(rows: list[np.ndarray], rounding: list[np.ndarray]):
    """Ridders' table: pick, elementwise, the entry with the smallest error estimate."""
    best = rows[0].copy()
    best_error = np.full(best.shape, np.inf)
    previous = [rows[0]]
    for level in range(1, len(rows)):
        current = [rows[level]]
        for j in range(1, level + 1):
            factor = 4.0 ** j
            current.append(current[j - 1] + (current[j - 1] - previous[j - 1]) / (factor - 1))
            error = np.maximum(np.abs(current[j] - current[j - 1]),
                               np.abs(current[j] - previous[j - 1])) + rounding[level]
            error = np.where(np.isfinite(error) & np.isfinite(current[j]), error, np.inf)
            better = error < best_error
            best = np.where(better, current[j], best)
            best_error = np.where(better, error, best_error)
        previous = current
    best = np.where(np.isfinite(best_error), best, np.nan)
    return best, best_error


def _component(arrays, move) -> np.ndarray:
    var, index = move
    return arrays[var] if index is None else arrays[var][:, index]


def _shift(arrays, move, amount) -> None:
    var, index = move
    if index is None:
        arrays[var] = arrays[var] + amount
    else:
        arrays[var][:, index] = arrays[var][:, index] + amount


def _broadcast(per_point: np.ndarray, like: np.ndarray) -> np.ndarray:
    """(N,) step products against values that may be (N, m)."""
    like = np.asarray(like)
    return per_point.reshape(per_point.shape + (1,) * (like.ndim - per_point.ndim))


def agree(tape: np.ndarray, fd: np.ndarray, estimate: np.ndarray, rtol: float,
          atol: float) -> np.ndarray:
    """SPEC: agree when |tape - fd| <= atol + rtol*|fd| + 3*estimate (nan agrees with nan)."""
    with np.errstate(invalid="ignore"):
        close = np.abs(tape - fd) <= atol + rtol * np.abs(fd) + 3 * estimate
    return close | (np.isnan(tape) & np.isnan(fd))
