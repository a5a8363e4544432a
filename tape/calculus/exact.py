"""Exact tangents and Taylor polynomials, where the input is exact (SPEC section 13).

An expression is exact when every number in it is an integer (``x^2/3``, ``sin(pi/6)``, not
``0.5x``); a point when its text is such an expression without variables (``1``, ``pi/6``).
Then SymPy gives the tangent line ``y = 2x - 1`` and the Taylor polynomial
``x - x^3/6 + x^5/120`` in exact numbers. Each exact number is compared with the engine's
float before it is used (an exact result never disagrees with the numeric one), and the work
runs in a child stopped after its time limit: ``None`` then, and the command gives floats.
"""
from __future__ import annotations

import math
import time
from typing import Optional

from ..expr import tree as E
from .limits import TIMEOUT
from .timelimit import run_optional

#: how far an exact number may be from the engine's float (relative) and still be its value
AGREE = 1e-9


def is_exact(tree) -> bool:
    """Whether every number in ``tree`` is an integer (so SymPy can keep it exact)."""
    return all(not isinstance(node, E.Number) or (
        math.isfinite(node.value) and float(node.value).is_integer())
        for node, _ in E.postorder(tree))


def exact_point(texts: dict) -> Optional[dict]:
    """``{name: text}`` of a point's coordinates as exact SymPy numbers (``pi/6`` -> pi/6),
    or None when one is not exact or cannot be read as a constant."""
    from ..expr import read
    from ..expr import symbolic as S
    from ..expr.errors import ExprError

    point = {}
    for name, text in texts.items():
        try:
            tree = read(text).tree
        except ExprError:
            return None
        if E.free_variables(tree) or not is_exact(tree):
            return None
        point[name] = S.as_scalar(S.to_sympy(tree, {}))
    return point


def _agrees(exact, value: float) -> bool:
    try:
        number = complex(exact.evalf(30))
    except (TypeError, ValueError):
        return False
    return abs(number.imag) <= AGREE * max(1.0, abs(value)) and \
        abs(number.real - value) <= AGREE * max(1.0, abs(value))


def _tangent_child(tree, point: dict, value: float, slopes: dict):
    from ..expr import symbolic as S

    sp = S.sympy()
    names = list(point)
    symbols = {n: S.symbol(n) for n in names}
    f = S.as_scalar(S.to_sympy(tree, {n: None for n in names}))
    at = {symbols[n]: point[n] for n in names}
    f_a = sp.simplify(f.subs(at))
    d = {n: sp.simplify(sp.diff(f, symbols[n]).subs(at)) for n in names}
    if not _agrees(f_a, value) or any(not _agrees(d[n], slopes[n]) for n in names):
        return None
    return {"point": point, "value": f_a, "slopes": d}


def tangent(tree, point: dict, value: float, slopes: dict,
            timeout: float = TIMEOUT) -> Optional[dict]:
    """``{"point", "value", "slopes"}``: the exact value and first partials (SymPy numbers) of
    ``tree`` at the exact ``point``; None when the input is not exact, SymPy does not finish in ``timeout`` seconds, or its numbers are not
    the engine's ``value`` and ``slopes``."""
    if point is None or not is_exact(tree):
        return None
    return run_optional(time.monotonic() + timeout, _tangent_child, tree, point, value, slopes)


def _taylor_child(tree, name: str, a, order: int, coefficients: list):
    from ..expr import symbolic as S

    sp = S.sympy()
    x = S.symbol(name)
    t = sp.Symbol("t")
    f = S.as_scalar(S.to_sympy(tree, {name: None}))
    series = sp.series(f.subs(x, a + t), t, 0, order + 1).removeO()
    exact = [sp.simplify(series.coeff(t, k) if k else series.subs(t, 0))
             for k in range(order + 1)]
    scale = max([1.0] + [abs(c) for c in coefficients])
    for c, value in zip(exact, coefficients):
        number = complex(c.evalf(30))
        if abs(number.imag) > AGREE * scale or abs(number.real - value) > 1e-7 * scale:
            return None
    return {"coefficients": exact}


def taylor(tree, name: str, a, order: int, coefficients: list,
           timeout: float = TIMEOUT) -> Optional[dict]:
    """``{"coefficients"}``: the exact c_0 .. c_order of ``tree`` about the exact point ``a``
    (SymPy numbers), from SymPy's series; None when the input is not exact,
    SymPy does not finish in ``timeout`` seconds, or a coefficient is not the engine's."""
    if a is None or not is_exact(tree):
        return None
    return run_optional(time.monotonic() + timeout, _taylor_child, tree, name, a, order,
                        [float(c) for c in coefficients])
