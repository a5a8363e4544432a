"""``--check``: a second opinion on every number ``grad``, ``jacobian`` and ``hessian`` print.

Expressions are differentiated by SymPy (through ``symbolic.py``) in a time-limited child
process and evaluated exactly at the same points; script targets are checked by finite
differences with Richardson extrapolation (``fdcheck.py``). ``check`` takes a command's report
and returns a ``Comparison``; the command line renders it (``cli/commands/derive.py``: the JSON's
per-point ``"check"`` and top-level ``"symbolic"``, a check table on a terminal, exit 1 on
disagreement, 3 when SymPy ran out of time).

A ``Layout`` says what the report's flat derivative columns are, so the expected values and the
symbolic strings can be given "in the result's shape" (SPEC section 3).
"""
from __future__ import annotations

import time
from typing import Any, Optional

import numpy as np

from ..expr.errors import CLIError
from ..expr.record import Frozen, Record
from ..calculus.limits import ATOL, RTOL, TIMEOUT
from ..calculus.timelimit import run_limited, run_optional

#: above this many point-by-derivative evaluations, evaluate in float64 (NumPy), not mpmath
EXACT_LIMIT = 20_000


class CheckSettings(Frozen):
    """The ``--check``, ``--rtol``, ``--atol`` and ``--timeout`` options of a command."""

    _fields = ("enabled", "rtol", "atol", "timeout")

    def __init__(self, enabled: bool = False, rtol: float = RTOL, atol: float = ATOL,
                 timeout: float = TIMEOUT) -> None:
        object.__setattr__(self, "enabled", enabled)
        object.__setattr__(self, "rtol", rtol)
        object.__setattr__(self, "atol", atol)
        object.__setattr__(self, "timeout", timeout)


class Layout(Record):
    """What the report's flat derivative columns are.

    ``kind``: ``gradient``, ``derivative`` (one N-th derivative), ``partials``, ``hessian``
    or ``jacobian``. ``keys[j]`` is column j as a multiset of component indices (for
    ``jacobian``: ``(output, component)``). ``comps`` are the problem's components.
    """

    _fields = ("kind", "keys", "comps", "outputs")

    def __init__(self, kind: str, keys: list, comps: list, outputs: int = 1) -> None:
        self.kind = kind
        self.keys = keys
        self.comps = comps
        self.outputs = outputs

    @classmethod
    def for_report(cls, command: str, comps, order: int, outputs: int) -> "Layout":
        """The layout of ``command``'s report (``grad`` of ``order``, ``hessian``,
        ``jacobian`` with ``outputs`` rows)."""
        if command == "jacobian":
            return cls.for_jacobian(comps, outputs)
        return cls.for_hessian(comps) if command == "hessian" else cls.for_grad(comps, order)

    @classmethod
    def for_grad(cls, comps, order: int) -> "Layout":
        from ..calculus.derivatives import multisets

        keys = multisets(len(comps), order) if comps else []
        kind = "gradient" if order == 1 else ("derivative" if len(comps) == 1 else "partials")
        return cls(kind, keys, comps)

    @classmethod
    def for_hessian(cls, comps) -> "Layout":
        d = len(comps)
        return cls("hessian", [(i, j) for i in range(d) for j in range(d)], comps)

    @classmethod
    def for_jacobian(cls, comps, outputs: int) -> "Layout":
        return cls("jacobian", [(o, j) for o in range(outputs) for j in range(len(comps))],
                   comps, outputs)

    def shape(self, flat: list) -> Any:
        """Arrange one point's flat column values like the command's JSON result."""
        if self.kind == "gradient":
            out: dict = {}
            for c, v in zip(self.comps, flat):
                if c.index is None:
                    out[c.name] = v
                else:
                    out.setdefault(c.name, []).append(v)
            return out
        if self.kind == "derivative":
            return flat[0] if flat else None
        if self.kind == "partials":
            return list(flat)
        width = len(self.comps)
        return [list(flat[r * width:(r + 1) * width]) for r in range(len(flat) // width or 0)]


class Comparison(Record):
    """The outcome of a check: expected values (N, D), per-point errors and agreement."""

    _fields = ("method", "expected", "max_abs_error", "agree", "entries", "symbolic",
               "estimate", "kink_at")

    def __init__(self, method: str, expected: np.ndarray, max_abs_error: np.ndarray,
                 agree: np.ndarray, entries: np.ndarray, symbolic: Optional[list] = None,
                 estimate: Optional[np.ndarray] = None,
                 kink_at: Optional[dict] = None) -> None:
        self.method = method                # "sympy" or "finite-difference"
        self.expected = expected
        self.max_abs_error = max_abs_error  # (N,)
        self.agree = agree                  # (N,) bool
        self.entries = entries              # (N, D) bool: each number's agreement
        self.symbolic = symbolic            # D strings (sympy)
        self.estimate = estimate            # (N, D) error estimates (finite differences)
        #: point index -> the call with the kink, for the points that disagree and lie on a
        #: kink (``kinks.kink_mask``), where tape's one-sided value and SymPy's convention may
        #: differ: not a failure
        self.kink_at = kink_at or {}

    @property
    def kinks(self) -> np.ndarray:
        """(N,) bool: the points on a kink (``kink_at``)."""
        mask = np.zeros(len(self.agree), dtype=bool)
        mask[list(self.kink_at)] = True
        return mask

    @property
    def failed(self) -> np.ndarray:
        """(N,) bool: the points that count as disagreements."""
        return ~self.agree & ~self.kinks


def check(report, problem, layout: Layout, settings: CheckSettings) -> Comparison:
    """Compute the second opinion for ``report.derivatives`` and compare."""
    tape_values = np.asarray(report.derivatives, dtype=np.float64)
    if problem.target.is_script:
        return _finite_difference(tape_values, problem, layout, settings)
    sizes = problem.points.sizes()
    arrays = [problem.points.arrays[n] for n in problem.variables]
    deadline = time.monotonic() + settings.timeout
    trees = problem.target.trees
    strings, expected = run_limited(_values_job, trees, problem.variables, problem.wrt, sizes,
                                    arrays, layout, timeout=settings.timeout)
    strings = run_optional(deadline, _tidy_job, trees, sizes, problem.wrt, layout) or strings
    expected = np.asarray(expected, dtype=np.float64).reshape(tape_values.shape)
    errors, agree, entries = compare(tape_values, expected, settings.rtol, settings.atol)
    return Comparison("sympy", expected, errors, agree, entries, symbolic=strings,
                   kink_at=_kinks(trees, problem.variables, arrays, ~agree))


def _kinks(trees, variables: list[str], arrays: list[np.ndarray], disagree: np.ndarray
           ) -> dict:
    """The disagreeing points that lie on a kink of one of ``trees``, each with the call that
    has it (the first tree's, where several do); only those points are looked at."""
    from ..expr.kinks import kink_mask

    found_at: dict = {}
    rows = np.flatnonzero(disagree)
    if not len(rows):
        return found_at
    for tree in trees:
        hit, which = kink_mask(tree, variables, [np.asarray(a)[rows] for a in arrays])
        for row, found, name in zip(rows.tolist(), hit.tolist(), which):
            if found:
                found_at.setdefault(row, name)
    return found_at


def compare(tape_values: np.ndarray, expected: np.ndarray, rtol: float, atol: float,
            slack: Optional[np.ndarray] = None):
    """Per point: the largest |tape - expected| and whether every entry agrees; and the
    (N, D) agreement of each entry. Two non-finite numbers agree; ``slack`` (an
    error estimate) widens the tolerance entrywise by 3 times itself.
    """
    with np.errstate(invalid="ignore"):
        diff = np.abs(tape_values - expected)
        # equal numbers agree, and so do two non-finite ones (a pole, or outside the domain:
        # SymPy says "undefined" where the tape says inf or nan; the warning names the point)
        same = (tape_values == expected) | (~np.isfinite(tape_values) & ~np.isfinite(expected))
        diff = np.where(same, 0.0, diff)
        bound = atol + rtol * np.abs(expected) + (0 if slack is None else 3 * slack)
        ok = same | (diff <= bound)
    width = tape_values.shape[1] if tape_values.ndim == 2 else 1
    diff = diff.reshape(len(diff), width)
    errors = np.where(np.isnan(diff).any(axis=1), np.nan,
                      np.max(np.nan_to_num(diff, nan=0.0), axis=1, initial=0.0))
    entries = ok.reshape(len(ok), width)
    return errors, entries.all(axis=1), entries


def _derivatives(trees, sizes, wrt, layout: Layout) -> list:
    """The SymPy derivative behind every report column (repeated partials computed once)."""
    from ..expr import symbolic as S

    comps = S.component_symbols(wrt, sizes)
    if layout.kind == "jacobian":
        outputs = [c for t in trees for c in S.as_vector(S.to_sympy(t, sizes))]
        return [S.derivative(outputs[o], [comps[j]]) for o, j in layout.keys]
    memo: dict = {(): S.as_scalar(S.to_sympy(trees[0], sizes))}

    def partial(key):
        if key not in memo:
            memo[key] = S.derivative(partial(key[:-1]), key[-1:])
        return memo[key]

    return [partial(tuple(comps[i] for i in sorted(key))) for key in layout.keys]


def _values_job(trees, variables, wrt, sizes, arrays, layout: Layout):
    """In a child: each column's derivative as text, and its exact value at every point."""
    from ..expr import symbolic as S

    raw = _derivatives(trees, sizes, wrt, layout)
    symbols = S.variable_symbols({n: sizes[n] for n in variables})
    flat_symbols = [s for n in variables for s in
                    (symbols[n] if isinstance(symbols[n], list) else [symbols[n]])]
    columns = [a.reshape(len(a), -1) for a in arrays]
    table = np.concatenate(columns, axis=1) if columns else np.zeros((1, 0))
    count = table.shape[0]
    if count * max(len(raw), 1) <= EXACT_LIMIT:
        evaluate = S.evaluator(raw, flat_symbols)
        expected = [evaluate(row) for row in table.tolist()]
    else:
        fn = S.sympy().lambdify(flat_symbols, raw, modules="numpy")
        with np.errstate(all="ignore"):
            values = fn(*[table[:, i] for i in range(table.shape[1])])
        expected = np.stack([np.broadcast_to(np.asarray(v, dtype=np.float64), (count,))
                             for v in values], axis=1).tolist() if raw else [[]] * count
    return [S.render(e) for e in raw], expected


def _tidy_job(trees, sizes, wrt, layout: Layout) -> list[str]:
    """In a child: each column's derivative in a readable form (for display only)."""
    from ..expr import symbolic as S

    raw = _derivatives(trees, sizes, wrt, layout)
    tidied: dict = {}
    for e in raw:
        if e not in tidied:
            tidied[e] = S.render(S.tidy(e))
    return [tidied[e] for e in raw]


def _finite_difference(tape_values, problem, layout: Layout, settings: CheckSettings):
    from ..calculus import fdcheck
    from ..calculus.derivatives import run
    from ..calculus.derivatives import Points

    names = problem.variables
    base = [np.asarray(problem.points.arrays[n], dtype=np.float64) for n in names]

    def values(arrays):
        pts = Points(names, dict(zip(names, arrays)), problem.points.count)
        return run(problem.target, pts, names, [], "partials", 1).value

    moves = [(c.var, c.index) for c in layout.comps]
    count = tape_values.shape[0]
    estimate = np.empty_like(tape_values)
    error = np.empty_like(tape_values)
    cache: dict = {}
    for column, key in enumerate(layout.keys):
        output, key = ((key[0], (key[1],)) if layout.kind == "jacobian"
                       else (None, tuple(sorted(key))))
        if key not in cache:
            cache[key] = fdcheck.partial(values, base, moves, key)
        est, err = cache[key]
        if output is not None:
            est = est.reshape(count, -1)[:, output]
            err = err.reshape(count, -1)[:, output]
        estimate[:, column], error[:, column] = est, err
    errors, agree, entries = compare(tape_values, estimate, settings.rtol, settings.atol,
                                     slack=error)
    return Comparison("finite-difference", estimate, errors, agree, entries, estimate=error)
