"""Derivatives of expressions and scripts: numbers at many points, symbolic, step by step,
implicit, Taylor polynomials, plots, traces.

``tape.calculus.derivative(text, wrt=None, order=1)`` is ``tape diff`` as a call (loaded when
first used; its module is not named ``derivative``, which importing would bind over the call)."""
from ..expr.lazy import lazy_attributes

__all__ = ["derivative", "Derivative"]

__getattr__, __dir__ = lazy_attributes(__name__, {
    "derivative": ("derivative_call", "derivative"),
    "Derivative": ("derivative_call", "Derivative")})
