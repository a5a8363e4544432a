"""``tape check EQUATION --implicit --answer A``: an answer graded against dy/dx (or d²y/dx²)
at points on the curve, by the same evidence rules as every verdict: a confirmed
counterexample is ``wrong`` and agreement at ``ENOUGH`` points ``correct`` without waiting for
SymPy, the slope shown as ``tape diff --implicit`` writes it (``treediff.implicit_slope``, tape's
own rules); only with fewer agreements does SymPy's proof decide (``verdict.settle``), and
SymPy writes the slope only where tape's rules have none.
"""
from __future__ import annotations

import time
from typing import Optional

from ..calculus.implicit import Curve, curve_from_text, points_on_curve, slope, slope_high_precision
from ..calculus.targets import expression_target
from ..expr import highprec as H
from ..expr import tree as E
from ..expr.errors import CLIError
from .diagnosis import scaled_or_shifted
from .verdict import (ENOUGH, POLISH, AnswerNameError, Verdict, in_the_names_of,
                      refuse_a_question, settle, shown)


def check_implicit(equation: str, answer: str, wrt: Optional[str], order: int, dependent: str,
                   timeout: float):
    """``tape check EQUATION --implicit --answer A`` (``homework.check`` with ``implicit``)."""
    curve = curve_from_text(equation, dependent, wrt)
    if order not in (1, 2):
        raise CLIError("--implicit checks dy/dx (--order 1) or d²y/dx² (--order 2)")
    answer_target = expression_target(answer, label="--answer", declared=curve.variables)
    refuse_a_question(answer, answer_target.asks)
    given = in_the_names_of(answer_target.trees[0], answer_target.names, curve.variables)
    extra = [n for n in E.free_variables(given) if n not in curve.variables]
    if extra:
        raise AnswerNameError(f"the answer uses {', '.join(map(repr, extra))}, which the "
                              f"equation does not (its names: {', '.join(curve.variables)})",
                              extra, curve.variables)
    f = H.compile_tree(curve.function, curve.variables)
    a = H.compile_tree(given, curve.variables)
    agree, counterexample, pairs = 0, None, []
    for x, y in points_on_curve(curve):
        expected = slope_high_precision(curve, f, x, y, order)
        got = H.value_at(a, [x, y]) if expected is not None else None
        if got is None:
            continue
        pairs.append((expected, got))
        if counterexample is not None:
            pass
        elif H.agree(expected, got):
            agree += 1
        elif _gap_persists(curve, f, a, x, y, order, expected - got):
            counterexample = {"at": {curve.x: float(x), curve.y: float(y)},
                              "answer": float(got), "expected": float(expected)}
        if counterexample and len(pairs) >= 6:
            break
    label = f"d{curve.y}/d{curve.x}" if order == 1 else f"d2{curve.y}/d{curve.x}2"
    details = {"label": f"{label} on", "extra": {"dependent": curve.y},
               "read_as": {"expression": curve.read_as, "answer": answer_target.read_as}}
    args = (curve, given, order)
    renderers = (_slope_text, _slope_text)
    if counterexample or agree >= ENOUGH:
        expected = _own_slope_text(curve, order) or \
            shown(time.monotonic() + min(timeout, POLISH), renderers, args)
    if counterexample:
        found = scaled_or_shifted(pairs, expected or f"d{curve.y}/d{curve.x}")
        decision = Verdict(False, "numeric", expected, counterexample, agree,
                            diagnosis=found, **details)
    elif agree >= ENOUGH:
        decision = Verdict(True, "numeric", expected, valid_points=agree, **details)
    else:
        decision = settle(agree, "on the curve", _slope_minus_answer_is_zero, args, renderers,
                          timeout, **details)
    decision.wrt, decision.variables = curve.x, curve.variables
    decision.notes = [*curve.notes, *(f"--answer: {n}" for n in answer_target.notes)]
    return decision


def _gap_persists(curve: Curve, f, a, x, y, order: int, gap) -> Optional[bool]:
    """The slope and the answer did not agree at (x, y), ``gap`` apart: the point polished
    onto the curve at more digits and both sides recomputed there
    (``highprec.same_gap_again``: True for a real difference)."""
    mp = H.mpmath()
    digits = H.MORE_DIGITS
    with mp.workdps(digits + 10):
        try:
            y = mp.findroot(lambda t: f(x, t), y, tol=mp.mpf(10) ** (-2 * digits))
        except (H.Undefined, ValueError, ZeroDivisionError):
            return None
    expected = slope_high_precision(curve, f, x, y, order, digits)
    return H.same_gap_again(expected, H.value_at(a, [x, y], digits), gap)


def _own_slope_text(curve: Curve, order: int) -> Optional[str]:
    """The slope by tape's own rules, each partial checked against the engine
    (``treediff.implicit_slope``, as ``tape diff --implicit`` shows it); None where a rule is
    missing."""
    from ..calculus.treediff import implicit_slope
    from ..expr.printer import read_as

    tree = implicit_slope(curve.function, curve.x, curve.y, order)
    return None if tree is None else read_as(tree)


def _slope_text(curve: Curve, given, order: int) -> str:
    from ..expr import symbolic as S

    return S.render(slope(curve, order))


def _slope_minus_answer_is_zero(curve: Curve, given, order: int):
    from ..expr import symbolic as S

    a = S.as_scalar(S.to_sympy(given, {curve.x: None, curve.y: None}))
    return S.is_zero(slope(curve, order) - a)
