"""``tape diff`` as a call: ``derivative(text)`` gives a ``Derivative`` that knows its text in
every notation, its step-by-step derivation, and shows itself as math in Jupyter.

>>> from tape.calculus import derivative
>>> d = derivative("x^2 sin x")
>>> d.text
'x**2*cos(x) + 2*x*sin(x)'
>>> d.math
'x^2 cos(x) + 2x sin(x)'
"""
from __future__ import annotations

from typing import Optional, Union

from ..expr.symbolic import in_notation
from .limits import TIMEOUT


class Derivative:
    """The derivative of ``expression`` of ``order`` along ``wrt`` (its variables' names), as
    ``tape diff`` gives it: ``text`` in SymPy syntax, ``math`` and ``latex`` in those
    notations; each is one string for one partial, else a dict by partial (``x``, ``y``;
    ``x,y`` for a mixed one). ``steps`` is ``tape diff --steps``'s derivation."""

    def __init__(self, expression: str, wrt: list[str], order: int, labels: list[str],
                 texts: list[str], timeout: float = TIMEOUT) -> None:
        self.expression = expression
        self.wrt = wrt
        self.order = order
        self._labels = labels
        self._texts = texts
        self._timeout = timeout
        self._steps: Optional[dict] = None

    def _in(self, notation: str) -> Union[str, dict]:
        texts = [in_notation(t, notation) for t in self._texts]
        return texts[0] if len(texts) == 1 else dict(zip(self._labels, texts))

    @property
    def text(self) -> Union[str, dict]:
        return self._in("python")

    @property
    def math(self) -> Union[str, dict]:
        return self._in("math")

    @property
    def latex(self) -> Union[str, dict]:
        return self._in("latex")

    @property
    def steps(self) -> dict:
        """The derivation, rule by rule (``formulas.steps``' document: ``{"steps":
        {variable: [root step per order]}, "derivative": {variable: text}}``)."""
        if self._steps is None:
            from .formulas import steps

            self._steps = steps(self.expression, wrt=",".join(self.wrt), order=self.order,
                                timeout=self._timeout).document
        return self._steps

    def __str__(self) -> str:
        text = self.text
        return text if isinstance(text, str) else "; ".join(f"{k}: {v}" for k, v in
                                                            text.items())

    def __repr__(self) -> str:
        return f"Derivative({self.expression!r}, wrt={self.wrt!r}, order={self.order}: {self})"

    def _repr_latex_(self) -> str:
        latex = self.latex
        if isinstance(latex, str):
            return f"$\\displaystyle {latex}$"
        return "$\\displaystyle " + r",\quad ".join(
            rf"\partial_{{{k}}}: {v}" for k, v in latex.items()) + "$"


def derivative(text: str, wrt: Optional[str] = None, order: int = 1,
               timeout: float = TIMEOUT) -> Derivative:
    """``tape diff TEXT [--wrt WRT] [--order ORDER]`` as a call (``formulas.derivatives``):
    raises ``CLIError`` for text that cannot be read or an impossible request."""
    from .formulas import derivatives

    found = derivatives(text, wrt=wrt, order=order, style="plain", timeout=timeout)
    comps = found.components
    labels = [",".join(comps[i].label for i in key) for key in found.keys]
    return Derivative(text, found.wrt, found.order, labels, found.texts, timeout)
