"""Taylor polynomials of expressions: the coefficients c_k = f^(k)(a)/k! from the engine's Taylor
mode, and SymPy's series as a second opinion (``tape taylor``, ``tape taylor --check``).
"""
from __future__ import annotations

import math

import numpy as np

from .derivatives import MAX_RECOMPUTED, digits_of, in_high_precision

#: --check: c_k agrees with SymPy's e_k when |c_k - e_k| <= RTOL * (|e_(k-1)| + |e_k| +
#: |e_(k+1)|). The recurrences build c_k from the coefficients next to it, so their rounding
#: is relative to those (a coefficient that is zero or nearly cancels, like sin's even ones at
#: 0, is judged against its neighbours). Measured errors stay below 1e-15 relative (exp, sin,
#: 1/(1-x), log up to order 30); 1e-9 leaves room for ill-conditioned points without
#: letting a wrong coefficient through.
RTOL = 1e-9


def coefficients(tree, name: str, a: float, order: int) -> tuple[np.ndarray, np.ndarray]:
    """``(c, digits)``: c_0 .. c_order of the expression ``tree`` in ``name`` about ``a``, from
    the engine's Taylor mode with each coefficient's estimated rounding error, those above
    1e-8 relative recomputed from Cauchy's integral where the function is holomorphic around
    ``a`` (``tape.engine.cauchy.coefficients_with_errors``) and, those still doubtful, by
    mpmath (``derivatives.in_high_precision``); and, per coefficient, its estimated correct
    significant digits rounded down (0 to 7) where it is still above 1e-8 relative to its
    scale in the polynomial (``scale``), NaN where it is trusted (see
    ``derivatives.digits_of``)."""
    import tape
    from tape.engine.cauchy import coefficients_with_errors

    from ..expr.lower import to_tape

    fn = to_tape(tree, [name])

    def f(t):
        # elementwise on the points (real, or complex on Cauchy's circles); a constant
        # result is spread over them
        return tape.reshape(fn(tape.reshape(t, (-1, 1))), (-1,)) + tape.zeros_like(t)

    with np.errstate(all="ignore"):
        c, errors = coefficients_with_errors(f, np.array([float(a)]), order)
    c = np.asarray(c, dtype=np.float64).reshape(-1)
    errors = np.asarray(errors, dtype=np.float64).reshape(-1)
    digits = coefficient_digits(c, errors)
    doubtful = np.flatnonzero(~np.isnan(digits))
    if 0 < len(doubtful) <= MAX_RECOMPUTED:
        # taken again by mpmath, as grad's derivatives are
        from ..expr import highprec as H

        exact = H.compile_tree(tree, [name])
        for k in doubtful.tolist():
            d = in_high_precision(exact, [float(a)], [k])
            if d is not None:
                c[k], digits[k] = d / math.factorial(k), np.nan
    return c, digits


def coefficient_digits(c: np.ndarray, errors: np.ndarray) -> np.ndarray:
    """Per Taylor coefficient (``c`` of shape ``(order+1,)`` or ``(order+1, points)``, with
    its estimated absolute ``errors``): the estimated correct significant digits rounded down
    (0 to 7) where the error is above 1e-8 relative to the coefficient's scale in the
    polynomial (``scale``), NaN where it is trusted (``derivatives.digits_of``). A zero
    coefficient (exp(x)*cos(x) at 0 has c_2 = 0) comes out as 0 or 1e-18 with an error of its
    own size: judged against the terms around it, it is trusted."""
    from tape.engine.taylor import TRUSTED_RELATIVE_ERROR

    c = np.asarray(c, dtype=np.float64)
    errors = np.asarray(errors, dtype=np.float64)
    trusted = errors <= TRUSTED_RELATIVE_ERROR * scale(c)
    digits = digits_of({0: c}, {0: np.where(trusted, 0.0, errors)})
    return digits.get(0, np.full(c.shape, np.nan))


def scale(c: np.ndarray) -> np.ndarray:
    """Each coefficient's scale in the polynomial: the larger of |c_k| and the geometric mean
    of its neighbours' (the last one's next neighbour extrapolated from the two before it),
    so that a zero or nearly cancelled coefficient is judged against the terms around it,
    while along a geometric sequence, where the mean is |c_k| itself, nothing is loosened."""
    size = np.abs(np.asarray(c, dtype=np.float64))
    out = size.copy()
    if len(size) < 3:
        return out
    with np.errstate(all="ignore"):
        out[1:-1] = np.maximum(size[1:-1], np.sqrt(size[:-2] * size[2:]))
        beyond = size[-2] ** 2 / size[-3]
        out[-1] = np.where(np.isfinite(beyond),
                           np.maximum(size[-1], np.sqrt(size[-2] * beyond)), size[-1])
    return out


def sympy_series(tree, name: str, a: float, order: int) -> list[float]:
    """SymPy's series coefficients (in the time-limited child)."""
    from ..expr import symbolic as S

    sp = S.sympy()
    x = S.symbol(name)
    t = sp.Symbol("t")
    center = sp.Rational(repr(a)) if math.isfinite(a) else a
    f = S.to_sympy(tree, {name: None}).subs(x, center + t)
    series = sp.series(f, t, 0, order + 1).removeO()
    return [float(sp.N(series.coeff(t, k), 30)) if k else float(sp.N(series.subs(t, 0), 30))
            for k in range(order + 1)]


def check_with_sympy(tree, name: str, a: float, got: list[float], timeout: float) -> dict:
    """SymPy's series coefficients beside ``got`` (c_0 .. c_N), computed in a child within
    ``timeout`` seconds: ``{"method", "expected", "max_abs_error", "agree"}``."""
    from .timelimit import run_limited

    expected = run_limited(sympy_series, tree, name, a, len(got) - 1,
                           timeout=timeout, what="SymPy's series", consequence="")
    errors = [abs(g - e) for g, e in zip(got, expected)]
    agree = all(errors[k] <= RTOL * sum(abs(e) for e in expected[max(k - 1, 0):k + 2])
                for k in range(len(errors)))
    return {"method": "sympy", "expected": expected, "max_abs_error": max(errors),
            "agree": bool(agree)}
