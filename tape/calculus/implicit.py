"""Implicit differentiation: dy/dx along a curve F_left(x, y) = F_right(x, y).

What every ``--implicit`` command computes:

* ``Curve`` - the two sides as expression trees, the independent and dependent names;
  ``curve_from_text`` builds one from the reader's ``Relation`` (``expr.read(text,
  relation=True)``);
* ``slope(curve, order)`` - dy/dx (order 1) or d²y/dx² (order 2) as a simplified SymPy
  expression, from F = left - right: y' = -F_x/F_y, y'' = -(F_xx + 2 F_xy y' + F_yy y'²)/F_y;
* ``slope_at(curve, x, y)`` - the number -F_x/F_y at a point, by the tape engine;
* ``residual(curve, x, y)`` / ``require_on_curve`` - F at a point, and an error (exit 2)
  showing it when the point is off the curve;
* ``points_on_curve(curve)`` - points on the curve found numerically (a scan in y for
  many x, each sign change refined to 40 digits), and ``slope_high_precision`` there.

``grading.curves.check_implicit`` grades an answer with these.
"""
from __future__ import annotations

import time
from typing import Optional

import numpy as np

from ..expr import tree as E
from ..expr.errors import CLIError

#: |F| above this (relative to the size of the terms) means the point is off the curve
ON_CURVE_TOL = 1e-9
#: x values tried when looking for points on a curve, and y values scanned for each
_X_SCAN = 60
_Y_SIZES = np.logspace(-3, 7, 1000)
_Y_GRID = np.unique(np.concatenate([-_Y_SIZES, [0.0], _Y_SIZES, np.linspace(-10, 10, 401)]))
#: points on a curve given to a verdict (each is a high-precision slope)
MOST_POINTS = 120


class Curve:
    """``left = right`` in the independent name ``x`` and the dependent name ``y``."""

    def __init__(self, left: E.Expr, right: E.Expr, x: str, y: str, notes: tuple = ()):
        self.left, self.right, self.x, self.y = left, right, x, y
        self.function = E.Binary("-", left, right)      # F = left - right
        self.notes = list(notes)                        # the reading's notes

    @property
    def variables(self) -> list[str]:
        return [self.x, self.y]

    @property
    def read_as(self) -> str:
        """How the equation was read, in SymPy syntax (``x**2 + y**2 = 1``)."""
        from ..expr.printer import read_as

        return read_as(E.Relation(self.left, self.right))


def curve_from_text(text: str, dependent: str = "y", wrt: Optional[str] = None) -> Curve:
    """Read an equation (the reader's ``Relation``); ``dependent`` is y, ``wrt`` (default: the
    other name) is x. Both names are declared to the reader, so they are never split."""
    from ..expr.parse import normalize, read
    from ..expr.notes import tell

    dependent = normalize(dependent)
    wrt = normalize(wrt) if wrt is not None else None
    declared = [dependent] + ([wrt] if wrt else [])
    reading = read(text, names=declared, relation=True)
    if not isinstance(reading.tree, E.Relation):
        why = ("its left side is a label (a lone name or f(x)), so it reads as the expression "
               f"{reading.read_as}; write the equation with both names on one side, or check "
               f"the expression without --implicit") if "=" in text else "it has no '='"
        raise CLIError(f"--implicit needs an equation in two names, like 'x^2 + y^2 = 1'; "
                       f"{text.strip()!r}: {why}")
    tell(reading.notes)
    left, right = reading.tree.left, reading.tree.right
    names = sorted(set(E.free_variables(left)) | set(E.free_variables(right)))
    if dependent not in names:
        raise CLIError(f"--dependent: {dependent!r} is not in the equation "
                       f"(its names: {', '.join(names) or 'none'})")
    others = [n for n in names if n != dependent]
    if wrt is not None:
        if wrt not in others:
            raise CLIError(f"--wrt: {wrt!r} is not an independent variable of the equation "
                           f"(its names: {', '.join(names)})")
        others = [wrt] + [n for n in others if n != wrt]
    if len(others) != 1:
        raise CLIError(f"--implicit needs a curve in exactly two names, the dependent "
                       f"{dependent!r} and one other; got {', '.join(names)}")
    return Curve(left, right, others[0], dependent, reading.notes)


# --------------------------------------------------------------------------- symbolic

def slope(curve: Curve, order: int = 1):
    """dy/dx (order 1) or d²y/dx² (order 2) on the curve, simplified (SymPy)."""
    from ..expr import symbolic as S

    if order not in (1, 2):
        raise CLIError("--implicit gives dy/dx (--order 1) or d²y/dx² (--order 2)")
    sp = S.sympy()
    x, y = S.symbol(curve.x), S.symbol(curve.y)
    f = S.as_scalar(S.to_sympy(curve.function, {curve.x: None, curve.y: None}))
    first = -S.derivative(f, [x]) / S.derivative(f, [y])
    if order == 1:
        return sp.simplify(first)
    second = S.derivative(first, [x]) + S.derivative(first, [y]) * first
    return sp.simplify(second)


# --------------------------------------------------------------------------- numbers

def _engine(curve: Curve, x: float, y: float, along=()):
    """F at (x, y) and its partial derivative along ``along`` (``values_at``): two floats
    (the derivative None when ``along`` is empty)."""
    from .derivatives import values_at

    value, partial = values_at(curve.function, curve.variables, np.array([[x, y]]), along)
    return float(value[0]), (None if partial is None else np.float64(partial[0]))


def residual(curve: Curve, x: float, y: float) -> float:
    """F = left - right at (x, y), by the engine."""
    return _engine(curve, x, y)[0]


def require_on_curve(curve: Curve, x: float, y: float) -> None:
    """CLIError (exit 2) printing F when (x, y) is off the curve."""
    f = residual(curve, x, y)
    size = 1.0 + abs(x) + abs(y)
    if not np.isfinite(f) or abs(f) > ON_CURVE_TOL * size:
        raise CLIError(f"the point {curve.x}={x!r}, {curve.y}={y!r} is not on the curve: "
                       f"left - right = {f!r} there")


def slope_at(curve: Curve, x: float, y: float, order: int = 1) -> float:
    """dy/dx = -F_x/F_y (order 1) or d²y/dx² = -(F_xx + 2 F_xy y' + F_yy y'²)/F_y (order 2) at
    (x, y), from the partials of F by the tape engine (nan where F_y = 0)."""
    cx, cy = curve.x, curve.y
    fx, fy = (_engine(curve, x, y, [n])[1] for n in (cx, cy))
    with np.errstate(all="ignore"):
        dy = -fx / fy
        if order == 1:
            return float(dy)
        fxx, fxy, fyy = (_engine(curve, x, y, a)[1] for a in ([cx, cx], [cx, cy], [cy, cy]))
        return float(-(fxx + 2 * fxy * dy + fyy * dy * dy) / fy)


def slope_text(curve: Curve, order: int, style: str, timeout: float) -> str:
    """dy/dx or d²y/dx² in ``style`` (plain, pretty or latex), simplified by SymPy within
    ``timeout`` seconds."""
    from .timelimit import run_limited

    return run_limited(_slope_rendered, curve, order, style, timeout=timeout,
                       what="implicit differentiation", consequence="")


def _slope_rendered(curve: Curve, order: int, style: str) -> str:
    from ..expr import symbolic as S

    return S.render(slope(curve, order), style)


def points_on_curve(curve: Curve, count: int = _X_SCAN, seed: int = 20240229,
                    most: int = MOST_POINTS) -> list:
    """Points (x, y) on the curve as 40-digit mpf pairs, on every branch the scan crosses:
    for x values spread over the line and over every magnitude up to 1e6, every sign change
    of F along a y grid reaching 1e7 (``_Y_GRID``: a branch far out, as of a circle of radius
    1250 about y = 1250, is crossed), bisected in floats (one vectorized engine pass per
    halving) and polished to 40 digits; poles (where F changes sign through infinity) are
    dropped. At most ``most`` points, spread evenly over the x values (each x keeps all its
    branches together)."""
    from ..expr import highprec as H

    mp = H.mpmath()
    rng = np.random.default_rng(seed)
    k = max(1, count // 3)
    sizes = 10 ** rng.uniform(-3, 6, k)
    xs = np.concatenate([[0.5, -0.5, 0.3, 1.5, -1.5, 2.0, 0.0, 1.0, -1.0],
                         rng.uniform(-1, 1, k), rng.uniform(-5, 5, k),
                         rng.choice([-1, 1], k) * sizes])
    grid_x = np.repeat(xs, len(_Y_GRID))
    grid_y = np.tile(_Y_GRID, len(xs))
    values = _values(curve, grid_x, grid_y).reshape(len(xs), len(_Y_GRID))
    ok = np.isfinite(values)
    crossing = ok[:, :-1] & ok[:, 1:] & (np.sign(values[:, :-1]) * np.sign(values[:, 1:]) < 0)
    rows, cols = np.nonzero(crossing)
    exact = np.nonzero(ok & (values == 0))
    x = xs[rows]
    lo, hi = _Y_GRID[cols].copy(), _Y_GRID[cols + 1].copy()
    flo = values[rows, cols]
    for _ in range(64):                          # bisection, every bracket at once
        mid = 0.5 * (lo + hi)
        fm = _values(curve, x, mid)
        left = np.sign(fm) == np.sign(flo)
        lo, flo = np.where(left, mid, lo), np.where(left, fm, flo)
        hi = np.where(left, hi, mid)
    brackets = sorted(zip(x, lo, hi), key=lambda b: (list(xs).index(b[0]), b[1]))
    if len(brackets) > most:
        keep = np.linspace(0, len(brackets) - 1, most).round().astype(int)
        brackets = [brackets[i] for i in keep]
    exact_fn = H.compile_tree(curve.function, curve.variables)
    found = []
    for bx, blo, bhi in brackets:
        root = _root(exact_fn, float(bx), float(blo), float(bhi), H)
        if root is not None:
            found.append((mp.mpf(float(bx)), root))
    for i, j in zip(*exact):
        found.append((mp.mpf(float(xs[i])), mp.mpf(float(_Y_GRID[j]))))
    return found


def _values(curve: Curve, x: np.ndarray, y: np.ndarray) -> np.ndarray:
    """F at the points (x[i], y[i]), by the engine (nan or inf where F is undefined)."""
    from .derivatives import values_at

    return values_at(curve.function, curve.variables, np.stack([x, y], axis=1))[0]


def _root(fn, x: float, lo: float, hi: float, H):
    """The root of F(x, .) in the float bracket [lo, hi], polished to 40 digits
    (``mpmath.findroot``); None at a pole or when the polish leaves the bracket."""
    mp = H.mpmath()
    start = mp.mpf(0.5 * (lo + hi))
    with mp.workdps(H.DIGITS + 10):
        mx = mp.mpf(x)
        try:
            root = mp.findroot(lambda t: fn(mx, t), start, tol=mp.mpf(10) ** (-2 * H.DIGITS))
            value = fn(mx, root)
        except (H.Undefined, ValueError, ZeroDivisionError):
            return None
        width = abs(mp.mpf(hi) - mp.mpf(lo)) + mp.mpf(10) ** -12 * (1 + abs(start))
        if abs(root - start) > width:
            return None
    if abs(value) > mp.mpf(10) ** (-H.DIGITS // 2) * (1 + abs(root) + abs(mx)):
        return None                           # a pole: the sign changed through infinity
    return root


def slope_high_precision(curve: Curve, fn, x, y, order: int = 1, digits: Optional[int] = None):
    """dy/dx (or d²y/dx²) at a point on the curve in 40 digits, from ``fn`` =
    ``highprec.compile_tree(curve.function, curve.variables)``; None where F is not
    differentiable or F_y = 0 (a vertical tangent or a singular point of the curve)."""
    from ..expr import highprec as H

    mp = H.mpmath()
    digits = digits or H.DIGITS
    point = [x, y]
    fx = H.derivative_at(fn, point, (1, 0), digits=digits)
    fy = H.derivative_at(fn, point, (0, 1), digits=digits)
    if fx is None or fy is None:
        return None
    with mp.workdps(digits):
        if abs(fy) <= mp.mpf(10) ** (-H.DIGITS // 3) * (1 + abs(fx)):
            return None
        first = -fx / fy
        if order == 1:
            return first
    fxx = H.derivative_at(fn, point, (2, 0), digits=digits)
    fxy = H.derivative_at(fn, point, (1, 1), digits=digits)
    fyy = H.derivative_at(fn, point, (0, 2), digits=digits)
    if None in (fxx, fxy, fyy):
        return None
    with mp.workdps(digits):
        return -(fxx + 2 * fxy * first + fyy * first ** 2) / fy
