"""Taylor polynomials of expressions: the coefficients c_k = f^(k)(a)/k! from the engine's Taylor
mode, and SymPy's series as a second opinion (``tape taylor``, ``tape taylor --check``).
"""
from __future__ import annotations

import math

import numpy as np

#: --check: c_k agrees with SymPy's e_k when |c_k - e_k| <= RTOL * (|e_(k-1)| + |e_k| +
#: |e_(k+1)|). The recurrences build c_k from the coefficients next to it, so their rounding
#: is relative to those (a coefficient that is zero or nearly cancels, like sin's even ones at
#: 0, is judged against its neighbours). Measured errors stay below 1e-15 relative (exp, sin,
#: 1/(1-x), log up to order 30); 1e-9 leaves room for ill-conditioned points without
#: letting a wrong coefficient through.
RTOL = 1e-9


def coefficients(tree, name: str, a: float, order: int) -> np.ndarray:
    """c_0 .. c_order of the expression ``tree`` in ``name`` about ``a``, in one Taylor-mode
    pass through the public ``tape.derivative`` (which returns only the top derivative).

    Point k of a batch of order+1 copies of ``a`` evaluates f(x)·(x - a)^(order-k): by Leibniz,
    its order-th derivative at a is order!/k! · f^(k)(a), so dividing by order! leaves c_k.
    The powers are products of the affine factors (x - a) or 1, which the Taylor mode carries
    exactly.
    """
    import tape

    from ..expr.lower import to_tape

    fn = to_tape(tree, [name])
    powers = np.arange(order, -1, -1)

    def shifted(t):
        y = tape.reshape(fn(tape.reshape(t, (-1, 1))), (-1,)) + tape.zeros_like(t)
        s = t - a
        for j in range(order):
            m = (j < powers).astype(np.float64)
            y = y * (s * m + (1.0 - m))
        return y

    with np.errstate(all="ignore"):
        d = tape.derivative(shifted, np.full(order + 1, float(a)), order=order)
    return np.asarray(d.numpy(), dtype=np.float64).reshape(-1) / math.factorial(order)


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
