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

__all__ = ["read", "Reading", "ReadError"]

_WHERE = {"read": ("parse", "read"), "Reading": ("parse", "Reading"),
          "ReadError": ("errors", "ExprError")}


def __getattr__(name: str):
    if name not in _WHERE:
        raise AttributeError(f"module 'tape.expr' has no attribute {name!r}")
    from importlib import import_module

    module, attribute = _WHERE[name]
    value = getattr(import_module(f"{__name__}.{module}"), attribute)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(list(globals()) + __all__)
