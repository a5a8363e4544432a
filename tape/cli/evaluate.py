"""Running a target over all points: chunking, progress, scripts, and engine warnings.

Expressions are evaluated in one vectorized pass per chunk of ``CHUNK`` points. A script is
also tried vectorized (its function gets ``(N,)`` / ``(N, k)`` tensors); the result is trusted
only if it has one row per point and matches one-point calls at the first and last points.
Otherwise the script is called point by point with the shapes it was written for (scalars
``()``, vectors ``(k,)``).
"""
from __future__ import annotations

import warnings
from typing import Callable

import numpy as np

from . import compute
from .errors import CLIError
from .output import progress
from .points import Points
from .record import Record
from .targets import ScriptError, Target

#: points per vectorized pass (bounds memory: every recorded op keeps an (N, k) array)
CHUNK = 65_536


class Outcome(Record):
    """Results for all points: ``value`` (N,) or (N, m); ``partials`` maps a multiset of
    component indices to (N,); ``jacobian`` is (N, m, d). ``warnings`` come from the engine."""

    _fields = ("value", "partials", "jacobian", "warnings")

    def __init__(self, value: np.ndarray, partials: dict | None = None,
                 jacobian: np.ndarray | None = None, warnings: list[str] | None = None) -> None:
        self.value = value
        self.partials = {} if partials is None else partials
        self.jacobian = jacobian
        self.warnings = [] if warnings is None else warnings


def run(target: Target, points: Points, variables: list[str], comps, mode: str,
        order: int = 1, show_progress: bool = False) -> Outcome:
    """Evaluate ``mode`` ("partials" of ``order``, or "jacobian") at every point."""
    sizes = points.sizes()
    arrays = [points.arrays[n] for n in variables]

    def compute_on(fn, chunk_arrays):
        if mode == "jacobian":
            value, jac = compute.jacobian(fn, chunk_arrays, comps)
            return Outcome(value, jacobian=jac)
        if not comps:
            return Outcome(compute.value_only(fn, chunk_arrays))
        if order > 1 and len(comps) == 1:
            taylor = compute.single_derivative(fn, chunk_arrays, comps[0], order)
            if taylor is not None:
                return Outcome(*taylor)
        value, parts = compute.partials(fn, chunk_arrays, comps, order)
        return Outcome(value, parts)

    with warnings.catch_warnings(record=True) as caught, np.errstate(all="ignore"):
        warnings.simplefilter("always")
        if target.is_script and points.count > 0:
            outcome = _run_script(target, arrays, variables, sizes, points.count, compute_on,
                                  show_progress)
        else:
            outcome = _run_chunked(target, arrays, variables, sizes, points.count, compute_on,
                                   show_progress)
    outcome.warnings = _distinct_messages(caught)
    return outcome


def _distinct_messages(caught) -> list[str]:
    seen = []
    for w in caught:
        # the engine warns with UserWarning (e.g. a NumPy call it does not differentiate);
        # NumPy's overflow/invalid RuntimeWarnings are reported as non-finite results instead
        if not issubclass(w.category, UserWarning):
            continue
        text = str(w.message)
        if text not in seen:
            seen.append(text)
    return seen


def _run_chunked(target, arrays, variables, sizes, count, compute_on, show_progress):
    starts = list(range(0, max(count, 1), CHUNK))
    pieces = []
    with progress(count, "evaluating", show_progress and len(starts) > 1) as advance:
        for start in starts:
            chunk = [a[start:start + CHUNK] for a in arrays]
            n = min(CHUNK, count - start) if count else 1
            fn = target.batched(variables, sizes, n)
            pieces.append(compute_on(fn, chunk))
            advance(n)
    return _join(pieces)


def _run_script(target, arrays, variables, sizes, count, compute_on, show_progress):
    def one(i):
        fn = compute.unbatched(target.batched(variables, sizes, 1))
        return _differentiate_script(compute_on, fn, [a[i:i + 1] for a in arrays])

    first = one(0)
    if count == 1:
        return first
    try:
        whole = _run_chunked(target, arrays, variables, sizes, count,
                             lambda fn, chunk: _differentiate_script(compute_on, fn, chunk),
                             show_progress)
        if _agrees(whole, first, 0, count) and _agrees(whole, one(count - 1), count - 1,
                                                       count):
            return whole
    except CLIError:
        pass
    pieces = [first]
    with progress(count, "evaluating point by point", show_progress) as advance:
        advance(1)
        for i in range(1, count):
            pieces.append(one(i))
            advance(1)
    return _join(pieces)


def _differentiate_script(compute_on: Callable, fn, chunk) -> Outcome:
    try:
        return compute_on(fn, chunk)
    except CLIError:
        raise
    except (LookupError, TypeError, ValueError, IndexError, RuntimeError) as exc:
        raise ScriptError(f"cannot differentiate the script: {type(exc).__name__}: {exc}") \
            from exc


def _agrees(whole: Outcome, single: Outcome, i: int, count: int) -> bool:
    """Whether row ``i`` of a vectorized result equals a one-point evaluation there."""
    if whole.value.shape[:1] != (count,) or whole.value.shape[1:] != single.value.shape[1:]:
        return False
    if set(whole.partials) != set(single.partials):
        return False
    rows = slice(i, i + 1)
    pairs = [(whole.value[rows], single.value)]
    pairs += [(whole.partials[k][rows], single.partials[k]) for k in single.partials]
    if single.jacobian is not None:
        pairs.append((whole.jacobian[rows], single.jacobian))
    return all(a.shape == b.shape and np.allclose(a, b, rtol=1e-9, atol=1e-12, equal_nan=True)
               for a, b in pairs)


def _join(pieces: list[Outcome]) -> Outcome:
    if len(pieces) == 1:
        return pieces[0]
    value = np.concatenate([p.value for p in pieces])
    partials = {k: np.concatenate([p.partials[k] for p in pieces]) for k in pieces[0].partials}
    jac = (np.concatenate([p.jacobian for p in pieces])
           if pieces[0].jacobian is not None else None)
    return Outcome(value, partials, jac)
