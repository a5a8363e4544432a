"""The data behind ``tape plot``: f and its first N derivatives on a grid, and a sensible view.

``compute_series`` evaluates the function and every derivative up to ``order`` in vectorized
passes over the grid, as many points at a time as the memory budget holds (``budget``): with
the engine's Taylor-mode ``tape.derivative(f, x, order=k)`` when it exists, otherwise with the
nested tapes of ``derivatives.nested_partials``. Because f acts on each grid point
independently, the gradient of the sum over points is every point's own derivative.

``view`` picks the y-range to show: all of the data when it is reasonable, otherwise (poles such
as ``1/x`` or ``tan(x)``) a robust range from the bulk of the values; points far outside it
become gaps, so a curve is not drawn as a vertical line across a pole. Undefined points
(nan, inf) are always gaps.
"""
from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Optional

import numpy as np

from . import budget as B
from ..expr.errors import CLIError
from .limits import PLOT_MAX_ORDER as MAX_ORDER, PLOT_MAX_POINTS as MAX_POINTS
from .limits import PLOT_NESTED_MAX_ORDER as NESTED_MAX_ORDER
from .targets import ScriptError, Target

#: a y-range this many interquartile ranges tall is taken to come from a pole and is cut ...
POLE_RATIO = 50
#: ... to the quartiles widened by this many interquartile ranges
FENCE = 3


@dataclass
class Series:
    """``x`` (points,) and ``ys[k]`` the k-th derivative at each x (nan where undefined)."""

    x: np.ndarray
    ys: list[np.ndarray]
    variable: str
    expression: str
    #: more curves drawn beside f and its derivatives: (label, values), e.g. a tangent line
    extra: list = field(default_factory=list)
    #: ``{k: (points,) digits}`` for the derivatives of which some points have fewer than 8
    #: estimated correct significant digits (``derivatives.digits_of``; NaN where trusted)
    digits: dict = field(default_factory=dict)

    @property
    def labels(self) -> list[str]:
        return [derivative_label(k) for k in range(len(self.ys))] + [l for l, _ in self.extra]

    @property
    def curves(self) -> list[np.ndarray]:
        """Every curve, in ``labels`` order: f, its derivatives, then the extra ones."""
        return self.ys + [y for _, y in self.extra]


def derivative_label(k: int) -> str:
    """``f``, ``f'``, ``f''``, ``f'''``, then ``f^(4)``."""
    return "f" + "'" * k if k <= 3 else f"f^({k})"




def plot_function(target: Target, count: int):
    """``(variable, f)``: the target as a function of one ``(count,)`` tensor."""
    names = target.ordered([])
    if len(names) > 1:
        raise CLIError(f"tape plot draws functions of one variable; {target.source!r} has "
                       f"{len(names)} ({', '.join(names)})")
    if not names:  # a constant: draw it over x, its derivatives are zero
        run = target.batched([], {}, count)
        return "x", lambda x: run() + 0.0 * x
    if not target.is_script:
        target.output_shape({names[0]: None})
    return names[0], target.batched(names, {names[0]: None}, count)


def compute_series(target: Target, lo: float, hi: float, points: int, order: int,
                   budget: Optional[B.Budget] = None) -> Series:
    """f and its derivatives up to ``order`` on ``points`` evenly spaced x in [lo, hi], in
    passes over the grid that fit in ``budget`` (default: ``budget.from_option(None)``)."""
    if not 2 <= points <= MAX_POINTS:
        raise CLIError(f"--points must be between 2 and {MAX_POINTS}")
    if not 0 <= order <= MAX_ORDER:
        raise CLIError(f"--order must be between 0 and {MAX_ORDER}")
    budget = B.from_option(None) if budget is None else budget
    grid = np.linspace(lo, hi, points)
    variable = None
    pieces = []
    # every recorded op keeps its Taylor coefficients at every point of a pass: the first
    # pass is small (fewer points the higher the order) and measured, the others as large as
    # the budget holds at that cost per point
    start, step = 0, max(1, min(points, B.PROBE_POINTS // (order + 1)))
    while start < points:
        part = grid[start:start + step]
        if pieces or len(part) == points:
            variable, ys, digits = _series_on(target, part, order)
        else:
            (variable, ys, digits), peak = B.measured(lambda: _series_on(target, part, order))
            step = budget.per_pass(peak / len(part), points)
        pieces.append((ys, digits, len(part)))
        start += len(part)
    ys = [np.concatenate([piece[k] for piece, _, _ in pieces]) for k in range(order + 1)]
    undefined = np.isnan(ys[0])  # where f is undefined, so are its derivatives
    for y in ys[1:]:
        y[undefined] = np.nan
    flagged = sorted({k for _, digits, _ in pieces for k in digits})
    digits = {k: np.concatenate([d.get(k, np.full(n, np.nan)) for _, d, n in pieces])
              for k in flagged}
    for d in digits.values():
        d[undefined] = np.nan
    return Series(grid, ys, variable, str(target.source),
                  digits={k: d for k, d in digits.items() if not np.isnan(d).all()})


def _series_on(target: Target, grid: np.ndarray, order: int
               ) -> tuple[str, list[np.ndarray], dict]:
    """The variable's name, f and its derivatives up to ``order`` at the points ``grid`` (one
    vectorized pass), and the derivatives' estimated digits where fewer than 8 (Taylor mode's
    estimate; none for nested tapes, which do not cancel as recurrences do)."""
    import tape

    points = len(grid)
    variable, fn = plot_function(target, points)
    with np.errstate(all="ignore"):
        ys, digits = None, {}
        if order:
            ys, digits = _taylor(fn, grid, order)
        if ys is None and order > NESTED_MAX_ORDER:
            raise CLIError(f"--order {order}: this function cannot go through Taylor mode, and "
                           f"the nested tapes that can differentiate it stop at order "
                           f"{NESTED_MAX_ORDER}")
        if ys is None:
            try:
                ys = _nested(tape, fn, grid, order)
            except ScriptError as exc:
                raise ScriptError(f"{exc.message}\ntape plot calls the function with "
                                  f"x values as a tensor of shape ({points},); write it "
                                  f"with tape or NumPy ops that work elementwise") from exc
    return variable, [_clean(y, points, target) for y in ys], digits


def _taylor(fn, grid, order) -> tuple[Optional[list], dict]:
    """f and every derivative up to ``order`` from one Taylor-mode pass with their estimated
    rounding errors, those above 1e-8 relative recomputed from Cauchy's integral where f is
    holomorphic around the point (``engine.cauchy.coefficients_with_errors``), and
    ``taylor.coefficient_digits`` for what stays doubtful; (None, {}) if Taylor mode cannot do
    this function."""
    from tape.engine.cauchy import coefficients_with_errors
    from tape.engine.taylor import taylor_coefficients

    from .taylor import coefficient_digits

    try:
        try:
            c, errors = coefficients_with_errors(fn, grid, order)
        except MemoryError:
            raise
        except Exception:  # Cauchy's circles are complex, which a script may not take
            c, errors = taylor_coefficients(fn, grid, order, return_error=True)
    except MemoryError:
        raise
    except Exception:  # fall back to nested tapes, which handle every op
        return None, {}
    if np.shape(c) != (order + 1,) + grid.shape:
        return None, {}
    ys = [np.asarray(c[k] * float(math.factorial(k)), dtype=np.float64)
          for k in range(order + 1)]
    # f^(k) = k!·c_k has c_k's relative error: judged as the polynomial's coefficients are
    digits = coefficient_digits(c, errors)
    return ys, {k: digits[k] for k in range(1, order + 1) if not np.isnan(digits[k]).all()}


def _nested(tape, fn, grid, order):
    """f and its derivatives with ``order`` nested tapes (``derivatives.nested_partials``)."""
    from .derivatives import Component, as_numpy, nested_partials

    levels = nested_partials(fn, [tape.constant(grid)], [Component("x", 0, None)], order)
    return [as_numpy(level[(0,) * k]) for k, level in enumerate(levels)]


def _clean(y, points, target) -> np.ndarray:
    y = np.asarray(y, dtype=np.float64)
    if y.shape != (points,):
        if y.size == 1:
            return np.full(points, float(y.reshape(-1)[0]))
        raise CLIError(f"tape plot needs a scalar function; {target.source!r} gives shape "
                       f"{y.shape[1:]} per point")
    y = y.copy()
    y[~np.isfinite(y)] = np.nan
    return y


def view(series: Series) -> tuple[float, float]:
    """The y-range to show.

    All finite values with a 5% margin; but when that range is more than ``POLE_RATIO`` times
    the interquartile range (IQR) of the values (a pole, as in ``1/x`` or ``tan(x)``), it is
    cut to the quartiles widened by ``FENCE`` IQRs. A flat function gets a unit-high window.
    """
    values = np.concatenate([y[np.isfinite(y)] for y in series.ys])
    if values.size == 0:
        return -1.0, 1.0
    lo, hi = float(values.min()), float(values.max())
    q1, q3 = (float(v) for v in np.percentile(values, [25, 75]))
    iqr = q3 - q1
    if iqr > 0 and hi - lo > POLE_RATIO * iqr:
        lo, hi = max(lo, q1 - FENCE * iqr), min(hi, q3 + FENCE * iqr)
    if hi - lo <= 1e-12 * max(1.0, abs(hi)):
        return lo - 0.5, hi + 0.5
    margin = 0.05 * (hi - lo)
    return lo - margin, hi + margin


def visible(y: np.ndarray, limits: tuple[float, float]) -> np.ndarray:
    """``y`` with points far outside ``limits`` (over one window height away) made gaps."""
    lo, hi = limits
    span = hi - lo
    out = y.copy()
    with np.errstate(invalid="ignore"):
        out[(out < lo - span) | (out > hi + span)] = np.nan
    return out


def line_breaks(defined: np.ndarray) -> list[int]:
    """Positions, among the defined points only, of those that follow a gap.

    A chart drawn from the defined points must not join point ``i - 1`` to point ``i`` for
    these ``i``: ``[T, F, T, T, F, F, T]`` -> ``[1, 3]``.
    """
    kept = np.flatnonzero(defined)
    return (np.flatnonzero(np.diff(kept) > 1) + 1).tolist()


def tangent_line(target: Target, series: Series, a: float, text: str | None = None
                 ) -> tuple[str, np.ndarray]:
    """The tangent of f at ``a`` over the series' grid, as (label, values): f(a) + f'(a)(x - a),
    both by the engine (``tangents.evaluate``, as ``tape tangent`` takes them). ``text`` is
    ``a`` as the user typed it, for messages."""
    from .tangents import evaluate

    text = repr(a) if text is None else text
    # the series' target has one variable (compute_series refuses more); a constant is drawn
    # over x: its value, and a slope of 0
    found = evaluate(target, {n: a for n in target.ordered([])})
    if found.kink is not None:
        raise CLIError(f"--tangent {text}: f is not differentiable at {series.variable} = "
                       f"{a!r} ({found.kink} has a kink or jump there), so there is no "
                       f"tangent line there")
    value, slope = found.value, found.slopes.get(series.variable, 0.0)
    if not (np.isfinite(value) and np.isfinite(slope)):
        raise CLIError(f"--tangent {text}: f has no finite value and slope at "
                       f"{series.variable} = {a!r} (value {value!r}, slope {slope!r}), so there "
                       f"is no tangent line there")
    return f"tangent at {series.variable}={a!r}", value + slope * (series.x - a)
