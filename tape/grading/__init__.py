"""Verdicts: is an answer the derivative (``tape check``), and do tape's numbers agree with a
second opinion (``--check``) (SPEC sections 5 and 8); many answers at once (``grade``).

>>> import tape.grading
>>> verdict = tape.grading.check("x^2 sin x", "2x cos x")
>>> verdict.correct, verdict.diagnosis["kind"]
(False, 'product rule')

The calls are looked up when first used: ``import tape.grading`` loads nothing more.
"""
from __future__ import annotations

from ..expr.lazy import lazy_attributes

__all__ = ["check", "check_work", "grade", "Verdict", "WorkVerdict", "AnswerNameError"]

__getattr__, __dir__ = lazy_attributes(__name__, {
    "check": ("homework", "check"), "grade": ("batch", "grade"),
    "Verdict": ("verdict", "Verdict"), "AnswerNameError": ("verdict", "AnswerNameError"),
    "check_work": ("derivation", "check_work"), "WorkVerdict": ("derivation", "WorkVerdict")})
