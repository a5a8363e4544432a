"""Verdicts: is an answer the derivative (``tape check``), and do tape's numbers agree with a
second opinion (``--check``) (SPEC sections 5 and 8).

>>> import tape.grading
>>> verdict = tape.grading.check("x^2 sin x", "2x cos x")
>>> verdict.correct, verdict.diagnosis["kind"]
(False, 'product rule')

The calls are looked up when first used: ``import tape.grading`` loads nothing more.
"""
from __future__ import annotations

__all__ = ["check", "grade", "Verdict"]

_WHERE = {"check": ("homework", "check"), "grade": ("batch", "grade"),
          "Verdict": ("verdict", "Verdict")}


def __getattr__(name: str):
    if name not in _WHERE:
        raise AttributeError(f"module 'tape.grading' has no attribute {name!r}")
    from importlib import import_module

    module, attribute = _WHERE[name]
    value = getattr(import_module(f"{__name__}.{module}"), attribute)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(list(globals()) + __all__)
