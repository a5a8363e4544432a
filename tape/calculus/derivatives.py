"""Derivatives of a target at many points, through the public ``tape`` API.

``run`` evaluates a target at every point: expressions in one vectorized pass per chunk of
points, as many as the memory budget holds (``budget``: the first chunk is measured); a script
is also tried vectorized (its function gets ``(N,)`` / ``(N, k)`` tensors), and the result is
trusted only if it has one row per point and matches one-point calls at the first and last
points; otherwise the script is called point by point with the
shapes it was written for (scalars ``()``, vectors ``(k,)``).

The routines below ``run`` take a batched function ``fn(*tensors)`` (points along the first
axis, see ``targets.Target.batched``) and the stacked input arrays. Because the function treats
points independently, the gradient of the *sum* over points gives every point's own gradient;
nested tapes repeat the trick for higher orders (each gradient rule is differentiable).

Derivatives are taken with respect to *components*: a scalar variable is one component, a
vector variable of length k contributes k (``x[0]``, ``x[1]``, ...), in ``wrt`` order.
"""
from __future__ import annotations

import contextlib
import itertools
import math
import os
import warnings
from typing import Callable, Iterator, Optional

import numpy as np

from tape import pointwise_partials

from . import budget as B
from ..expr.errors import CLIError
from ..expr.record import Frozen, Record
from .targets import ScriptError, Target

#: most points per vectorized pass (fewer when the memory budget says so: every recorded op
#: keeps an (N, k) array)
CHUNK = 65_536
#: rows (points x directions) per Taylor-mode pass of ``taylor_partials``
TAYLOR_ROWS = 32_768
#: no progress to show: ``advance(n)`` does nothing. A caller that shows progress passes
#: ``progress(total, description)``, a context manager that yields ``advance``
NO_PROGRESS = contextlib.nullcontext(lambda n: None)
#: the highest order taken with nested tapes (their cost grows exponentially with the order)
NESTED_MAX_ORDER = 10


class Points(Record):
    """Stacked points: ``arrays[name]`` is ``(N,)`` (scalar) or ``(N, k)`` (vector)."""

    _fields = ("names", "arrays", "count")

    def __init__(self, names: list[str], arrays: dict[str, np.ndarray], count: int) -> None:
        self.names = names
        self.arrays = arrays
        self.count = count

    def sizes(self) -> dict[str, int | None]:
        """Each variable's vector length, or None for a scalar variable."""
        return {n: (a.shape[1] if a.ndim == 2 else None) for n, a in self.arrays.items()}

    def all_at(self) -> list[dict]:
        """Every point as a plain dict (as ``at`` would give), built column-wise (fast)."""
        columns = [self.arrays[n].tolist() for n in self.names]
        return [dict(zip(self.names, row)) for row in zip(*columns)] if columns else \
            [{} for _ in range(self.count)]

    def slice(self, start: int, stop: int) -> "Points":
        """Points ``start:stop`` (for chunked evaluation)."""
        arrays = {n: a[start:stop] for n, a in self.arrays.items()}
        return Points(self.names, arrays, min(stop, self.count) - start)


class StreamedMatrix:
    """One point's ``rows`` x ``cols`` matrix too big to hold whole (a Jacobian beyond the
    memory budget): ``blocks()`` computes it as (r, cols) blocks of consecutive rows while it
    is written, and notes whether any entry was inf or nan. As a report's ``derivatives`` it
    stands for the (1, rows * cols) row, which the command line writes block by block."""

    def __init__(self, rows: int, cols: int, blocks: Callable[[], Iterator[np.ndarray]]) -> None:
        self.shape = (1, rows * cols)
        self._blocks = blocks
        self.nonfinite = False

    def guard(self, wrap: Callable[[Iterator[np.ndarray]], Iterator[np.ndarray]]) -> None:
        """Compute the blocks through ``wrap(blocks)`` (the caller's warning handling)."""
        produce = self._blocks
        self._blocks = lambda: wrap(iter(produce()))

    def blocks(self) -> Iterator[np.ndarray]:
        for block in self._blocks():
            if not np.isfinite(block).all():
                self.nonfinite = True
            yield block


class Outcome(Record):
    """Results for all points: ``value`` (N,) or (N, m); ``partials`` maps a multiset of
    component indices to (N,); ``jacobian`` is (N, m, d) (for mode "hessian" the Hessian,
    the Jacobian of the gradient). ``warnings`` come from the engine. ``digits`` maps a
    multiset to (N,) estimated correct significant digits of that partial (whole numbers,
    see ``digits_of``), NaN where the number is trusted; only the partials with some point
    below trust are there (none when no estimate was made)."""

    _fields = ("value", "partials", "jacobian", "warnings", "digits")

    def __init__(self, value: np.ndarray, partials: dict | None = None,
                 jacobian: np.ndarray | None = None, warnings: list[str] | None = None,
                 digits: dict | None = None) -> None:
        self.value = value
        self.partials = {} if partials is None else partials
        self.jacobian = jacobian
        self.warnings = [] if warnings is None else warnings
        self.digits = {} if digits is None else digits


def run(target: Target, points: Points, variables: list[str], comps, mode: str,
        order: int = 1, progress: Optional[Callable] = None,
        budget: Optional[B.Budget] = None, streamed: bool = False,
        sizes: Optional[dict] = None) -> Outcome:
    """Evaluate ``mode`` ("partials" of ``order``, "jacobian" or "hessian") at every point, in
    passes that fit in ``budget`` (default: ``budget.from_option(None)``). ``streamed``: the
    result is written as it comes, so a Jacobian or Hessian of one point too big to hold whole
    may be a ``StreamedMatrix`` (see ``jacobian``, ``hessian``). ``sizes``:
    ``points.sizes()``, when the caller has it. ``progress(total, description)``: a context
    manager yielding ``advance(n)``, for long runs (None: nothing is shown)."""
    sizes = points.sizes() if sizes is None else sizes
    arrays = [points.arrays[n] for n in variables]
    budget = B.from_option(None) if budget is None else budget

    def compute_on(fn, chunk_arrays):
        if mode in ("jacobian", "hessian"):
            # one point only: results of several points are compared and joined whole
            value, jac = MATRICES[mode](fn, chunk_arrays, comps, budget,
                                        streamed and points.count == 1)
            return Outcome(value, jacobian=jac)
        if not comps:
            return Outcome(value_only(fn, chunk_arrays))
        if order > 1 and len(comps) == 1:
            taylor = single_derivative(fn, chunk_arrays, comps[0], order, return_error=True)
            if taylor is not None:
                value, parts, errors = taylor
                digits = recomputed(target, variables, comps, chunk_arrays, parts,
                                    digits_of(parts, errors))
                return Outcome(value, parts, digits=digits)
        if order > 2 and not target.is_script and all(c.index is None for c in comps):
            value = value_only(fn, chunk_arrays)
            parts, errors = taylor_partials(
                lambda count: target.batched(variables, sizes, count), chunk_arrays, comps,
                order, return_error=True)
            digits = recomputed(target, variables, comps, chunk_arrays, parts,
                                digits_of(parts, errors))
            return Outcome(value, parts, digits=digits)
        if order > NESTED_MAX_ORDER:
            raise CLIError(f"--order {order} with several components of a script or a vector "
                           f"variable takes nested tapes, which stop at order {NESTED_MAX_ORDER}")
        value, parts = partials(fn, chunk_arrays, comps, order)
        return Outcome(value, parts)

    with warnings.catch_warnings(record=True) as caught, np.errstate(all="ignore"):
        warnings.simplefilter("always")
        if target.is_script and points.count > 0:
            outcome = _run_script(target, arrays, variables, sizes, points.count, compute_on,
                                  progress, budget)
        else:
            # the blocks of one run (a long --at - input) share what the first one measured
            work = (id(target), mode, order, tuple(variables), tuple(c.label for c in comps),
                    tuple(sorted(sizes.items())))
            # (one point, or a cost already measured, has nothing to guess)
            probe = 1 if points.count == 1 or work in budget.measured_costs else \
                budget.per_pass(_guessed_cost(target, sizes, mode, order, len(comps)),
                                B.PROBE_POINTS)
            outcome = _run_chunked(target, arrays, variables, sizes, points.count, compute_on,
                                   progress, budget, probe, memo=work)
    _refuse_untracked_conversions(caught, target)
    outcome.warnings = _distinct_messages(caught)
    if isinstance(outcome.jacobian, StreamedMatrix):
        outcome.jacobian.guard(lambda blocks: _noted(blocks, outcome.warnings))
    return outcome


def _noted(blocks: Iterator[np.ndarray], notes: list[str]) -> Iterator[np.ndarray]:
    """``blocks`` computed as ``run`` computes the rest, NumPy's floating-point warnings off
    (inf and nan are reported from the numbers) and the engine's added to ``notes``."""
    while True:
        with warnings.catch_warnings(record=True) as caught, np.errstate(all="ignore"):
            warnings.simplefilter("always")
            block = next(blocks, None)
        notes += [m for m in _distinct_messages(caught) if m not in notes]
        if block is None:
            return
        yield block


def _refuse_untracked_conversions(caught, target: Target) -> None:
    """A script that turned a tracked tensor into a NumPy array or a number has dropped part of
    its gradient: printing that number would be printing a wrong derivative (exit 2)."""
    import tape

    for w in caught:
        if issubclass(w.category, tape.UntrackedConversionWarning):
            where = f" ({os.path.relpath(w.filename)}:{w.lineno})" if w.filename else ""
            raise CLIError(f"{target.source}: the derivative would be wrong{where}: {w.message}")


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


def _guessed_cost(target: Target, sizes: dict, mode: str, order: int, d: int) -> float:
    """Bytes a point may cost an expression's pass, guessed from its size before anything is
    measured, so that the measured first pass itself fits the budget: every node keeps
    ``order + 1`` Taylor coefficients (or a value and an adjoint) of its widest vector, for
    each partial asked."""
    from ..expr.tree import postorder

    nodes = sum(len(postorder(tree) if order is None else order)
                for tree, order in zip(target.trees, target.orders))
    widest = max([k for k in sizes.values() if k] + [1])
    per_node = (order + 1) * (math.comb(d + order - 1, order) if d and order > 1 else 1)
    if mode in ("jacobian", "hessian"):
        per_node = max(per_node, 3 * max(d, 1))
    return GUESSED_BYTES_PER_NODE * nodes * widest * per_node


#: bytes per node, point and coefficient assumed by ``_guessed_cost`` (twice the ~8 that
#: long sums and products measure at order 1 and 30)
GUESSED_BYTES_PER_NODE = 16


def _run_chunked(target, arrays, variables, sizes, count, compute_on, progress, budget,
                 probe: int = B.PROBE_POINTS, measure: Optional[Callable] = None,
                 memo: Optional[tuple] = None):
    """Passes over the points: the first of ``probe`` points measured by ``measure``
    (``budget.measured`` by default), the others as large as the budget holds at that cost per
    point (at most ``CHUNK``). With a ``memo`` key, the cost is kept in
    ``budget.measured_costs``: a later call for the same work measures nothing."""
    def sized(cost: float) -> int:      # points per pass at ``cost`` bytes a point
        return budget.per_pass(cost, CHUNK) if cost else CHUNK

    pieces = []
    known = budget.measured_costs.get(memo) if memo is not None else None
    start, step = 0, max(1, min(probe, CHUNK)) if known is None else sized(known)
    shown = progress is not None and count > step
    with progress(count, "evaluating") if shown else NO_PROGRESS as advance:
        while start < count or not pieces:
            n = min(step, count - start) if count else 1
            chunk = [a[start:start + n] for a in arrays]
            fn = target.batched(variables, sizes, n)
            if pieces or n >= count or known is not None:     # nothing left to size
                pieces.append(compute_on(fn, chunk))
            else:
                piece, peak = (measure or B.measured)(lambda: compute_on(fn, chunk))
                pieces.append(piece)
                step = sized(peak / n)
                if memo is not None:
                    budget.measured_costs[memo] = peak / n
            start += n
            advance(n)
    return _join(pieces)


def _run_script(target, arrays, variables, sizes, count, compute_on, progress, budget):
    def one(i):
        fn = unbatched(target.batched(variables, sizes, 1))
        return _differentiate_script(compute_on, fn, [a[i:i + 1] for a in arrays])

    if count == 1:
        return one(0)
    # a script's cost is unknown until it runs: what one point took sizes the measured first
    # vectorized pass; when not even two points fit a pass, the points go one at a time (a
    # point of a vectorized pass can cost twice a lone one: its ops hold arrays, not scalars)
    first, cost = B.measured_resident(lambda: one(0))
    probe = budget.per_pass(cost, B.PROBE_POINTS)
    try:
        if probe > 1:
            whole = _run_chunked(target, arrays, variables, sizes, count,
                                 lambda fn, chunk: _differentiate_script(compute_on, fn, chunk),
                                 progress, budget, probe, B.measured_resident)
            if _agrees(whole, first, 0, count) and _agrees(whole, one(count - 1), count - 1,
                                                           count):
                return whole
    except CLIError:
        pass
    pieces = [first]
    with progress(count, "evaluating point by point") if progress else NO_PROGRESS as advance:
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
    flagged = list(dict.fromkeys(k for p in pieces for k in p.digits))
    digits = {k: np.concatenate([p.digits.get(k, np.full(len(p.value), np.nan))
                                 for p in pieces]) for k in flagged}
    return Outcome(value, partials, jac, digits=digits)


class Component(Frozen):
    """One differentiable component: variable ``name`` (index ``var`` among the inputs) and,
    for a vector variable, the component ``index``."""

    _fields = ("name", "var", "index")

    def __init__(self, name: str, var: int, index: int | None) -> None:
        object.__setattr__(self, "name", name)
        object.__setattr__(self, "var", var)
        object.__setattr__(self, "index", index)
        # the name in labels and JSON (``x``, ``w[1]``); not a field: it follows from them
        object.__setattr__(self, "label", name if index is None else f"{name}[{index}]")


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


def as_numpy(t) -> np.ndarray:
    """A tensor (or array) as a float64 NumPy array."""
    return np.asarray(t.numpy() if hasattr(t, "numpy") else t, dtype=np.float64)


def nested_partials(fn, xs: list, comps: list[Component], order: int) -> list[dict]:
    """The value and every distinct partial derivative up to ``order`` at every point, as
    arrays: ``levels[k]`` maps each multiset of ``k`` indices into ``comps`` (a sorted tuple)
    to that partial; ``levels[0]`` is ``{(): value}`` (``tape.pointwise_partials``)."""
    return pointwise_partials(fn, xs, [(c.var, c.index) for c in comps], order)


def partials(fn, arrays: list[np.ndarray], comps: list[Component], order: int):
    """``(value, {multiset: array (N,)})``: every distinct partial derivative of order
    ``order`` (order 1: one entry per component, i.e. the gradient)."""
    levels = nested_partials(fn, arrays, comps, order)
    return as_numpy(levels[0][()]), {k: as_numpy(v) for k, v in levels[-1].items()}


def taylor_partials(batched: Callable, arrays: list[np.ndarray], comps: list[Component],
                    order: int, return_error: bool = False):
    """``{multiset: array (N,)}`` (with ``return_error``, and a dict of Taylor mode's estimates
    of their rounding errors): every distinct partial of ``order`` of an expression, with
    respect to scalar components, by ``tape.partials`` (one Taylor-mode pass along
    C(n+order-1, order) directions per point; cost grows with the number of partials, where
    nested tapes grow exponentially with the order). ``batched(count)`` builds the expression's
    function for ``count`` rows; the directions of a point are consecutive rows, so the
    variables held constant are repeated to match."""
    import tape

    count = _point_count(arrays)
    x = np.stack([np.asarray(arrays[c.var], dtype=np.float64) for c in comps], axis=1)
    per_point = math.comb(len(comps) + order - 1, order)
    step = max(1, TAYLOR_ROWS // per_point)
    functions = {}

    def along(*moving):
        rows = int(moving[0].shape[0])
        if rows not in functions:
            functions[rows] = batched(rows)
        repeat = rows // len(block[0])
        xs = [tape.constant(np.repeat(a, repeat, axis=0)) for a in block]
        for c, t in zip(comps, moving):
            xs[c.var] = t
        return functions[rows](*xs)

    pieces, errors = [], []
    for start in range(0, count, step):
        block = [a[start:start + step] for a in arrays]
        got = tape.partials(along, x[start:start + step], order, return_error=return_error)
        got, error = got if return_error else (got, got)
        pieces.append(np.atleast_2d(got))
        errors.append(np.atleast_2d(error))
    got, error = np.concatenate(pieces), np.concatenate(errors)
    keys = multisets(len(comps), order)
    values = {key: got[:, j] for j, key in enumerate(keys)}
    return (values, {key: error[:, j] for j, key in enumerate(keys)}) if return_error else values


def single_derivative(fn, arrays: list[np.ndarray], comp: Component, order: int,
                      return_error: bool = False):
    """``(value, {multiset: derivative})``: the ``order``-th derivative along one scalar
    variable, by the engine's Taylor mode (``tape.derivative``) when it handles the batch;
    None otherwise (the caller then uses ``partials``). With ``return_error`` a third item,
    ``{multiset: estimated error}`` (a doubtful derivative is then first recomputed from
    Cauchy's integral by the engine)."""
    import tape

    derivative = getattr(tape, "derivative", None)
    if derivative is None or comp.index is not None:
        return None
    xs = [tape.constant(a) for a in arrays]

    def along(x):
        return fn(*[x if i == comp.var else t for i, t in enumerate(xs)])

    try:
        got = derivative(along, xs[comp.var], order=order, return_error=return_error)
        got, error = (as_numpy(got[0]), as_numpy(got[1])) if return_error else (as_numpy(got), None)
        value = value_only(fn, arrays)
    except (TypeError, ValueError, NotImplementedError, LookupError):
        return None
    if got.shape != value.shape:
        return None
    key = (0,) * order
    return (value, {key: got}, {key: error}) if return_error else (value, {key: got})


#: the most doubtful derivatives of one pass recomputed in high precision (each takes 10 to
#: 100 ms); past it they are reported with their estimated digits
MAX_RECOMPUTED = 32
#: a recomputed derivative is kept when its values at 40 and at 60 digits agree this closely
RECOMPUTED_RTOL = 1e-13
#: seconds that recomputing mixed partials may take in all: mpmath nests one differentiation
#: per variable, each at a higher precision, so a tenth-order partial along five variables
#: takes minutes (along one, 40 ms); each runs in a child that is killed at this deadline
MIXED_RECOMPUTE_SECONDS = 1.0
#: a mixed partial is recomputed only when mpmath's nested differences take at most this many
#: evaluations (prod of order + 1 over its variables): 20 took 0.3 s, 64 took 7 s
MIXED_MOST_EVALUATIONS = 24


def recomputed(target: Target, variables: list[str], comps: list[Component],
               arrays: list[np.ndarray], parts: dict, digits: dict) -> dict:
    """``digits`` (``digits_of``) less the derivatives recomputed here: for an expression of
    scalar variables with at most ``MAX_RECOMPUTED`` doubtful numbers, each is taken again by
    mpmath's differentiation of the same tree at 40 and at 60 digits, and where the two agree
    the number in ``parts`` is replaced by it (in place) and trusted."""
    count = sum(int(np.count_nonzero(~np.isnan(d))) for d in digits.values())
    if (not count or count > MAX_RECOMPUTED or target.is_script or len(target.trees) != 1
            or any(c.index is not None for c in comps)):
        return digits
    from ..expr import highprec as H

    try:
        fn = H.compile_tree(target.trees[0], variables)
    except Exception:  # noqa: BLE001  (a tree mpmath cannot take keeps its estimate)
        return digits
    import time

    from .timelimit import SymbolicFailure, run_optional

    left = {}
    deadline = time.monotonic() + MIXED_RECOMPUTE_SECONDS
    # the cheapest first: one variable in-process, then by mpmath's nested work
    for key, flagged in sorted(digits.items(), key=lambda item: _nested_cost(item[0])):
        orders = [0] * len(variables)
        for i in key:
            orders[variables.index(comps[i].name)] += 1
        part = parts[key] = np.array(parts[key], dtype=np.float64)   # the engine's is read-only
        for i in np.flatnonzero(~np.isnan(flagged)).tolist():
            point = [float(np.ravel(a)[i]) for a in arrays]
            if sum(k > 0 for k in orders) <= 1:
                exact = in_high_precision(fn, point, orders)
            elif _nested_cost(key)[1] > MIXED_MOST_EVALUATIONS:
                exact = None
            else:
                try:
                    exact = run_optional(deadline, in_high_precision, fn, point, orders,
                                         sympy=False)
                except SymbolicFailure:
                    exact = None
            if exact is not None:
                part.reshape(-1)[i] = exact
                flagged[i] = np.nan
        if not np.isnan(flagged).all():
            left[key] = flagged
    return left


def _nested_cost(key) -> tuple:
    """How long mpmath takes over a partial (``key``: its multiset of components), roughly:
    by the number of variables it is nested over, then the evaluations (prod of order + 1)."""
    counts = [key.count(c) for c in set(key)]
    return len(counts), int(np.prod([k + 1 for k in counts]))


def in_high_precision(fn: Callable, point: list[float], orders: list[int]) -> Optional[float]:
    """The partial derivative with ``orders[i]`` differentiations along variable i of ``fn``
    (``highprec.compile_tree``'s function) at ``point``, by mpmath's differentiation at 40 and
    at 60 digits, when the two agree to ``RECOMPUTED_RTOL``; else None."""
    from ..expr import highprec as H

    mp = H.mpmath()
    at = H.at(point)
    low = H.derivative_at(fn, at, orders, probe=False, digits=H.DIGITS)
    high = H.derivative_at(fn, at, orders, probe=False, digits=60)
    if low is None or high is None:
        return None
    with mp.workdps(60):
        if mp.isfinite(high) and abs(low - high) <= RECOMPUTED_RTOL * abs(high):
            return float(high)
    return None


def digits_of(parts: dict, errors: dict) -> dict:
    """``{multiset: (N,) digits}`` for the partials of which some point's estimated rounding
    error (Taylor mode's, ``errors``) is above ``engine.taylor.TRUSTED_RELATIVE_ERROR``
    relative to it: the estimated correct significant digits there, rounded down (0 to 7),
    NaN where the number is trusted. Inf and nan results are left out (they are reported as
    such): a number is never printed as if exact when it is not."""
    from tape.engine.taylor import correct_digits, inaccurate

    out = {}
    for key, got in parts.items():
        got = np.asarray(got, dtype=np.float64)
        error = np.asarray(errors[key], dtype=np.float64)
        bad = inaccurate(got, error) & np.isfinite(got)
        if bad.any():
            # (an error that is not a number leaves no digit to trust)
            digits = np.nan_to_num(np.floor(correct_digits(got, error)), nan=0.0)
            out[key] = np.where(bad, digits, np.nan)
    return out


def digits_warning(digits: dict, label: Callable[[object, int], str]) -> Optional[str]:
    """The one warning for numbers printed with more digits than they have (``digits``: ``{key:
    (N,) digits}`` as ``digits_of`` gives them, NaN where trusted), naming the number with the
    fewest by ``label(key, index)``, and how many such numbers there are; None for none."""
    count, worst = 0, None
    for key, found in digits.items():
        flagged = ~np.isnan(found)
        if flagged.any():
            count += int(flagged.sum())
            i = int(np.nanargmin(found))
            if worst is None or found[i] < worst[2]:
                worst = (key, i, float(found[i]))
    if worst is None:
        return None
    key, i, fewest = worst
    return digits_message(label(key, i), fewest, count)


def digits_message(label: str, fewest: float, count: int) -> str:
    """The warning for numbers printed with more digits than they have: ``label`` names the
    one with the ``fewest`` estimated correct digits (and its point), of ``count`` such
    numbers (``digits_of``)."""
    accuracy = (f"to only about {int(fewest)} significant digit{'s' if fewest >= 2 else ''}"
                if fewest >= 1 else "to no digit at all")
    others = (f" ({count} of the numbers printed have fewer than 8 estimated correct digits; "
              f"--format json gives each one's \"digits\")" if count > 1 else "")
    return (f"{label} may be accurate {accuracy}{others}: Taylor mode's estimated rounding "
            f"error is above 1e-8 relative, and the digits printed past those are not "
            f"reliable")


def value_only(fn, arrays: list[np.ndarray]) -> np.ndarray:
    """Just the function's value at every point."""
    import tape

    return as_numpy(fn(*[tape.constant(a) for a in arrays]))


def jacobian(fn, arrays: list[np.ndarray], comps: list[Component],
             budget: Optional[B.Budget] = None, streamed: bool = False):
    """Value ``(N, m)`` and Jacobian ``(N, m, len(comps))`` of a vector-valued function.

    Points are independent. With fewer components than outputs, each column is one forward
    (Jacobian-vector) pass; otherwise each variable's block is a ``batch_jacobian``: backward
    sweeps carrying as many of the m output rows at once as the budget holds (a row of
    cotangents costs about what the forward pass recorded). A Jacobian of one point that the
    budget cannot hold whole is, when ``streamed``, a ``StreamedMatrix`` written a
    block of rows at a time (forward mode: from its columns taken once when their raw numbers
    fit, else the passes again for each block); otherwise it is refused before its
    derivatives are taken, and so is one whose single row the budget cannot hold.
    """
    t, y, source = _recorded(fn, arrays, comps)
    n, m, d = int(y.shape[0]), int(y.shape[1]), len(comps)
    if n * m * d > MAX_JACOBIAN_ENTRIES:
        raise CLIError(f"a Jacobian of {m:,} outputs by {d:,} components at {n:,} "
                       f"point{'s' if n != 1 else ''} has {n * m * d:,} entries; the limit is "
                       f"{MAX_JACOBIAN_ENTRIES:,} (about 20 GB of text): ask for fewer "
                       f"components (--wrt) or outputs")
    budget = B.from_option(None) if budget is None else budget
    # the result, each variable's block of it, and for JSON the numbers as Python floats
    # and text (about 64 bytes an entry in all)
    needed = JACOBIAN_BYTES_PER_ENTRY * n * m * d
    if _streams(needed, n, m, budget, streamed):
        # the same sweeps as the whole Jacobian (forward with fewer components than
        # outputs, so every number is the same), keeping a block of rows at a time
        sweep = 0 if d < m else 3 * recorded_bytes(t)
        per_row = sweep + JACOBIAN_BYTES_PER_ENTRY * d
        budget.require(per_row, f"one row of a Jacobian of {m:,} outputs by {d:,} components",
                       "ask for fewer components (--wrt)")
        columns = COLUMN_BYTES_PER_ENTRY * m * d
        cached = d < m and columns + per_row <= budget.bytes * B.PASS_SHARE
        rows = FORCED_ROW_BLOCK or budget.per_pass(per_row, m, reserved=columns if cached else 0)
        if cached:
            # every column once (d forward passes), written a block of rows at a time
            del t
            blocks = (lambda: _split_rows(
                lambda: _forward_jacobian(fn, arrays, comps, (n, m))[0], rows))
        elif d < m:
            # the columns cannot be kept: the d passes again for each block, keeping its rows
            del t
            blocks = (lambda: (_forward_jacobian(fn, arrays, comps, (n, m), slice(s, s + rows))[0]
                               for s in range(0, m, rows)))
        else:
            blocks = (lambda: _jacobian_row_blocks(t, y, source, rows))
        return as_numpy(y), StreamedMatrix(m, d, blocks)
    budget.require(needed, f"a Jacobian of {m:,} outputs by {d:,} components at {n:,} "
                   f"point{'s' if n != 1 else ''}", _whole_advice(n))
    if d < m:
        del t
        return as_numpy(y), _forward_jacobian(fn, arrays, comps, (n, m))
    rows = budget.per_pass(3 * recorded_bytes(t), m)
    return as_numpy(y), _reverse_jacobian(t, y, source, rows)


#: the most entries a Jacobian may have: each block of its rows takes one forward pass per
#: component (or one backward sweep per row), so beyond this a run takes hours or days and
#: its text tens of gigabytes (10,000 outputs by 10,000 components are 10^8)
MAX_JACOBIAN_ENTRIES = 10 ** 9


def hessian(fn, arrays: list[np.ndarray], comps: list[Component],
            budget: Optional[B.Budget] = None, streamed: bool = False):
    """Value ``(N,)`` and Hessian ``(N, d, d)`` of a scalar function, d = ``len(comps)``.

    The Hessian is the Jacobian of the gradient. Row i holds d/dc_j (df/dc_i) for j >= i,
    swept back from the gradient recorded on an outer tape; the entries below the diagonal
    are mirrored from the rows above, so the matrix is exactly symmetric (and -0.0 prints as
    0.0, as in a Jacobian). Rows go one backward sweep each, by nested tapes, when there are
    many points a component or the components are mostly separate variables (``_by_rows``);
    otherwise as blocks of batched cotangent rows as large as the budget holds, as
    ``jacobian`` does: both give the same numbers. A Hessian of one point that the budget
    cannot hold whole is, when ``streamed``, a ``StreamedMatrix`` written a block of
    rows at a time; what mirroring keeps of the rows already written (at most a quarter of
    the matrix, 8 bytes an entry) must fit, or it is refused before the sweeps.
    """
    n, d = _point_count(arrays), len(comps)
    if not comps:
        return value_only(fn, arrays), np.zeros((n, 0, 0))
    budget = B.from_option(None) if budget is None else budget
    needed = JACOBIAN_BYTES_PER_ENTRY * n * d * d
    if not _streams(needed, n, d, budget, streamed):
        budget.require(needed, f"a Hessian of {d:,} by {d:,} components at {n:,} "
                       f"point{'s' if n != 1 else ''}", _whole_advice(n))
        if _by_rows(n, comps):
            value, parts = partials(fn, arrays, comps, 2)
            h = np.zeros((n, d, d))
            for (i, j), column in parts.items():
                h[:, i, j] = h[:, j, i] = column
            h += 0.0            # -0.0 prints as 0.0, as from the batched rows
            return value, h
    values = []
    t, g, source = _recorded(_gradient_of(fn, arrays, comps, values), arrays, comps)
    value = as_numpy(values[0])
    if _streams(needed, n, d, budget, streamed):
        per_row = 3 * recorded_bytes(t) + JACOBIAN_BYTES_PER_ENTRY * d
        kept = MIRROR_BYTES_PER_ENTRY * d * d / 4
        budget.require(kept + per_row, f"a Hessian of {d:,} by {d:,} components, written a "
                       f"row block at a time (a quarter of it kept to mirror)",
                       "ask for fewer components (--wrt)")
        rows = FORCED_ROW_BLOCK or budget.per_pass(per_row, d, reserved=kept)
        return value, StreamedMatrix(d, d, lambda: _mirrored_rows(
            _jacobian_row_blocks(t, g, source, rows), d, rows))
    rows = budget.per_pass(3 * recorded_bytes(t), d)
    h = _reverse_jacobian(t, g, source, rows)
    return value, np.triu(h) + np.swapaxes(np.triu(h, 1), 1, 2)


#: a Hessian's rows are swept one at a time (nested tapes) from this many points per
#: component on, or when its variables have fewer than ``BATCHED_COMPONENTS_PER_VARIABLE``
#: components each on average: batched cotangent rows cost more per point and per variable
#: watched (each variable is a slice of one source), one sweep per row costs Python per row
ROWS_POINTS_PER_COMPONENT = 100
BATCHED_COMPONENTS_PER_VARIABLE = 4


def _by_rows(n: int, comps: list[Component]) -> bool:
    """Whether a Hessian at ``n`` points is swept a row at a time rather than in batches of
    cotangent rows (see the two constants above; measured in benchmarks/README.md)."""
    variables = len({c.var for c in comps})
    return (n >= ROWS_POINTS_PER_COMPONENT * len(comps)
            or len(comps) < BATCHED_COMPONENTS_PER_VARIABLE * variables)


def _recorded(fn, arrays: list[np.ndarray], comps: list[Component]):
    """``(tape, y, source)``: ``fn`` run on a persistent tape watching ``source``, the
    components side by side as one (N, d) tensor (whole variables in order, as
    ``components`` lists them; each variable is a slice of it), so that one backward sweep
    reaches them all; ``y`` is the result as (N, m), the m outputs of a point in row-major
    order."""
    import tape

    order = _variables_of(comps)
    n = _point_count(arrays)
    # (N, k) blocks, k = 1 for a scalar: batch_jacobian wants a source of rank >= 2
    columns = [arrays[v].reshape(n, -1) for v in order]
    joined = len(columns) != 1
    if not joined:
        source = tape.constant(columns[0])
    else:
        source = tape.constant(np.concatenate(columns, axis=1) if columns else np.zeros((n, 0)))
    t = tape.GradientTape(persistent=True)
    with t:
        t.watch(source)
        xs = [tape.constant(a) for a in arrays]
        start = 0
        for v, column in zip(order, columns):
            part = source[:, start:start + column.shape[1]] if joined else source
            xs[v] = tape.reshape(part, arrays[v].shape)
            start += column.shape[1]
        y = fn(*xs)
        if len(y.shape) != 2:
            # one output per point is a column; a matrix (or more) per point is its entries
            # in row-major order, as NumPy's ravel gives them
            y = tape.reshape(y, (n, -1))
    return t, y, source


def _gradient_of(fn, arrays: list[np.ndarray], comps: list[Component], values: list):
    """A function of the inputs giving the (N, d) gradient of ``fn`` along ``comps``
    (whole variables in order, as ``components`` lists them), taken on an inner tape so an
    outer one records it; each call appends ``fn``'s value to ``values``."""
    import tape

    order = _variables_of(comps)

    def gradient(*xs):
        watched = [xs[v] for v in order]
        with tape.GradientTape() as inner:
            inner.watch(watched)
            y = fn(*xs)
        values.append(y)
        grads = inner.gradient(y, watched, unconnected_gradients="zero")
        columns = [tape.reshape(g, (len(arrays[v]), -1)) for v, g in zip(order, grads)]
        return columns[0] if len(columns) == 1 else tape.concat(columns, axis=1)

    return gradient


def _variables_of(comps: list[Component]) -> list[int]:
    """The variables ``comps`` belong to, each once, in the order ``components`` lists them."""
    return list(dict.fromkeys(c.var for c in comps))


def _point_count(arrays: list[np.ndarray]) -> int:
    """Points in a pass (one when the target has no variables)."""
    return len(arrays[0]) if arrays else 1


def _streams(needed: float, n: int, m: int, budget: B.Budget, streamed: bool) -> bool:
    """Whether a matrix of one point needing ``needed`` bytes whole is written a block of its
    ``m`` rows at a time (when the budget cannot hold it whole, or ``FORCED_ROW_BLOCK``)."""
    return bool(streamed and n == 1 and m and
                (needed > budget.bytes * B.PASS_SHARE or FORCED_ROW_BLOCK))


def _whole_advice(n: int) -> str:
    return ("print it with --format plain, csv or json, one point at a time" if n == 1
            else "ask for fewer components (--wrt) or fewer points at once")


def _split_rows(compute: Callable[[], np.ndarray], rows: int) -> Iterator[np.ndarray]:
    """The matrix ``compute()`` gives, as blocks of ``rows`` consecutive rows (computed when
    the first block is asked for, as the other blocks of a ``StreamedMatrix`` are)."""
    matrix = compute()
    for start in range(0, len(matrix), rows):
        yield matrix[start:start + rows]


def _mirrored_rows(blocks: Iterator[np.ndarray], d: int, rows: int) -> Iterator[np.ndarray]:
    """The (r, d) row blocks of a symmetric matrix of which ``blocks`` are computed in full
    (row blocks starting at 0, rows, 2*rows, ...), with each entry below the diagonal taken
    from the row above it: the part of a block right of its own rows is kept, cut at the
    later blocks' starts, until the block it mirrors into comes."""
    kept: dict[int, list[np.ndarray]] = {}
    for start, block in zip(range(0, d, rows), blocks):
        stop = start + len(block)
        above = kept.pop(start, [])
        if above:
            block[:, :start] = np.concatenate(above).T
        local = block[:, start:stop]
        upper = np.triu(local)
        block[:, start:stop] = upper + np.triu(local, 1).T
        for later in range(stop, d, rows):
            kept.setdefault(later, []).append(block[:, later:later + rows].copy())
        yield block


#: bytes a Jacobian takes per entry while it is computed and written (its array, each
#: variable's block of it, the numbers as Python floats and as text)
JACOBIAN_BYTES_PER_ENTRY = 64
#: rows per block of a streamed Jacobian when set (tests: a tiny block on a small Jacobian);
#: None sizes blocks from the budget and streams only Jacobians it cannot hold whole
FORCED_ROW_BLOCK: Optional[int] = None
#: bytes per entry of a streamed forward-mode Jacobian's columns, taken once and kept while
#: its rows are written (the array and its copy with -0.0 cleared)
COLUMN_BYTES_PER_ENTRY = 16
#: bytes per entry a streamed Hessian keeps of its rows written so far, to mirror them
MIRROR_BYTES_PER_ENTRY = 8


#: the routine of each matrix mode of ``run``
MATRICES = {"jacobian": jacobian, "hessian": hessian}


def _reverse_jacobian(t, y, source, rows: int) -> np.ndarray:
    """The (N, m, d) Jacobian of ``y`` recorded on persistent tape ``t`` with respect to its
    (N, d) ``source`` (see ``_recorded``): a ``batch_jacobian``, backward sweeps of ``rows``
    cotangent rows at a time."""
    jac = as_numpy(t.batch_jacobian(y, source, unconnected_gradients="zero",
                                    parallel_iterations=rows))
    # a zero cotangent row times a negative partial gives -0.0: print it as 0.0
    return jac + 0.0


def _jacobian_row_blocks(t, y, source, rows: int) -> Iterator[np.ndarray]:
    """The one point's Jacobian as (rows, d) blocks of consecutive outputs: each block's
    outputs are sliced from ``y`` on the reopened tape and swept back on their own."""
    m = int(y.shape[1])
    for start in range(0, m, rows):
        with t:
            part = y[:, start:start + rows]
        yield _reverse_jacobian(t, part, source, rows)[0]


def _forward_jacobian(fn, arrays: list[np.ndarray], comps: list[Component],
                      shape: tuple[int, int], rows: slice = slice(None)) -> np.ndarray:
    """The (N, m, d) Jacobian a column at a time: one forward-mode pass per component, its
    tangent 1 along that component at every point (d passes instead of m backward rows);
    only its ``rows`` (outputs) are kept."""
    import tape

    n, m = shape
    jac = np.zeros((n, len(range(m)[rows]), len(comps)))
    for j, c in enumerate(comps):
        xs = [tape.constant(a) for a in arrays]
        direction = np.zeros_like(arrays[c.var], dtype=np.float64)
        if c.index is None:
            direction[...] = 1.0
        else:
            direction[:, c.index] = 1.0
        with tape.ForwardAccumulator(xs[c.var], tape.constant(direction)) as acc:
            y = fn(*xs)
        column = acc.jvp(y, unconnected_gradients="zero")
        jac[:, :, j] = as_numpy(column).reshape(n, m)[:, rows]
    return jac + 0.0          # -0.0 from a zero tangent times a negative partial: print 0.0


def recorded_bytes(t) -> int:
    """Bytes of the values tape ``t`` recorded (what one row of cotangents costs, roughly)."""
    total = 0
    for op in t.recorded_operations():
        for out in op.outputs:
            total += 8 * math.prod(int(d) for d in out.shape)
    return total


def unbatched(fn):
    """Adapt a function written for one point (scalars ``()``, vectors ``(k,)``) to the
    batched layout with N = 1: the inputs are sliced inside the tape, so gradients flow."""
    import tape

    def run(*tensors):
        out = fn(*[x[0] for x in tensors])
        return tape.expand_dims(out, 0)

    return run


#: array entries (points x nodes x coefficients) one pass of ``values_at`` may hold
VALUES_AT_ENTRIES = 8_000_000


def values_at(tree, names: list[str], points: np.ndarray, along=()):
    """The value of an expression ``tree`` in scalar variables ``names`` and its derivative
    along ``along`` (one name per differentiation, in order) at every row of the (N, n) array
    ``points``: ``(value, derivative)``, two (N,) float arrays (the derivative is None when
    ``along`` is empty). One vectorized pass through ``expr.lower.to_tape`` and the engine,
    NumPy's floating-point warnings off (a point off the domain gives nan or inf): for
    grading and the other callers that evaluate a few thousand points, where the memory
    budget of ``run`` has nothing to decide.

    >>> from tape.expr import read
    >>> values_at(read("x^3").tree, ["x"], np.array([[2.0]]), ["x", "x"])
    (array([8.]), array([12.]))
    """
    from ..expr.lower import to_tape
    from ..expr.tree import postorder

    points = np.asarray(points, dtype=np.float64).reshape(len(points), len(names))
    count = len(points)
    along = list(along)
    if not count:
        return np.empty(0), (np.empty(0) if along else None)
    # every node keeps an array per point and Taylor coefficient: a large tree is evaluated
    # over fewer points at a time (a fixed bound from its size, nothing measured)
    order = postorder(tree)
    rows = max(256, VALUES_AT_ENTRIES // (len(order) * (len(along) + 1) ** 2))
    if count > rows:
        pieces = [values_at(tree, names, points[i:i + rows], along)
                  for i in range(0, count, rows)]
        return (np.concatenate([p[0] for p in pieces]),
                None if not along else np.concatenate([p[1] for p in pieces]))
    arrays = [np.ascontiguousarray(points[:, i]) for i in range(len(names))]
    return values_of(to_tape(tree, names, count, order, reuse_literals=True), arrays, names,
                     along, lambda rows: to_tape(tree, names, rows, reuse_literals=True))


def values_of(fn, arrays: list[np.ndarray], names: list[str], along=(),
              rebuild: Optional[Callable] = None):
    """``values_at`` for a batched function ``fn`` of the (N,) ``arrays`` (one per name of
    ``names``, a scalar variable each), an expression's or a script's: ``(value,
    derivative)``, (N,) arrays (the derivative None when ``along`` is empty), NumPy's
    floating-point warnings off. ``rebuild(rows)`` builds ``fn`` for ``rows`` rows, for the
    Taylor-mode partials of mixed derivatives above order 2 (without it, nested tapes)."""
    along = list(along)
    with warnings.catch_warnings(), np.errstate(all="ignore"):
        warnings.simplefilter("ignore")
        if not along:
            return np.ravel(value_only(fn, arrays)), None
        wrt = list(dict.fromkeys(along))
        comps = components(names, wrt, {n: None for n in names})
        key = tuple(sorted(wrt.index(n) for n in along))
        found = None
        if len(wrt) == 1 and len(along) > 1:
            found = single_derivative(fn, arrays, comps[0], len(along))
        if found is None and len(along) > 2 and rebuild is not None:
            found = (value_only(fn, arrays), taylor_partials(rebuild, arrays, comps, len(along)))
        if found is None:
            found = partials(fn, arrays, comps, len(along))
        value, parts = found
        return np.ravel(value), np.ravel(parts[key])


def refuse_too_many_partials(n_components: int, order: int, limit: int,
                             unit: str = "components", command: str = "") -> None:
    """Refuse, before any of them is listed, more distinct partials of ``order`` in
    ``n_components`` than ``limit``, naming the count and the limit (``command``: the command
    the limit is for, when it is its own)."""
    count = math.comb(n_components + order - 1, order)
    if count > limit:
        whose = f" for tape {command}" if command else ""
        raise CLIError(f"--order {order} with {n_components} {unit} asks for {count} "
                       f"distinct partial derivatives; the limit{whose} is {limit}")
