"""The expression language: text as people write it, the one tree, and its lowerings to tape,
SymPy, mpmath and text (SPEC sections 4 and 8).

>>> import tape.expr
>>> reading = tape.expr.read("x^2 sin x")
>>> reading.read_as
'x**2*sin(x)'

The calls are looked up when first used, so ``import tape.expr`` loads no module a command does
not need (SymPy and mpmath load only where a lowering asks for them).
"""
from __future__ import annotations

from .lazy import lazy_attributes

__all__ = ["read", "Reading", "ReadError"]

__getattr__, __dir__ = lazy_attributes(__name__, {
    "read": ("parse", "read"), "Reading": ("parse", "Reading"),
    "ReadError": ("errors", "ExprError")})
