"""The verdict of ``tape check`` and how evidence becomes one (shared by ``homework.py`` and
``curves.py``), and the reading of an answer both of them make.

A confirmed counterexample makes the answer ``wrong``. ``homework.py`` accepts agreement at
``ENOUGH`` high-precision points spread over the domain at once (``"method": "numeric"``);
``settle`` is the rest: SymPy is asked for a proof within ``--timeout``, zero meaning
``correct`` (``"method": "symbolic"``). SymPy giving up (timeout, failure, "unknown") is never
agreement: ``correct`` then needs agreement at ``ENOUGH`` high-precision points (``"method":
"numeric"``, with a warning saying why), and without it the verdict is undecided (exit 3, with
the reason).
"""
from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import Callable, Optional

from ..expr import tree as E
from ..expr.errors import UNDECIDED, CLIError
from ..expr.highprec import AGREED_DIGITS
from ..calculus.timelimit import SymbolicFailure, SymbolicTimeout, run_limited, run_optional

#: high-precision agreements needed to accept without a symbolic proof
ENOUGH = 16
#: seconds for display work (the tidy derivative, the diagnosis) on a wrong answer
POLISH = 3.0


@dataclass
class Verdict:
    """The verdict on one answer (``tape.grading.check``): ``correct`` is True, False or None
    (undecided, ``reason`` says why); ``to_dict()`` is the JSON document ``tape check --format
    json`` prints."""

    correct: Optional[bool]        # None: undecided
    method: str                    # "symbolic" or "numeric"
    expected: Optional[str]        # the right derivative (None when SymPy did not finish)
    counterexample: Optional[dict] = None
    valid_points: int = 0
    note: Optional[str] = None     # e.g. why the decision is numeric
    diagnosis: Optional[dict] = None
    label: str = "d/dx"            # the derivative asked for, as written before EXPR
    extra: dict = field(default_factory=dict)
    #: how both texts were read (SPEC section 4): {"expression": ..., "answer": ...}
    read_as: Optional[dict] = None
    #: with a counterexample: derivative - answer there in high precision (for the plain
    #: text, where the two floats alone may print alike)
    gap: Optional[str] = None
    #: the texts as given, and what was differentiated: ``wrt`` ("x", "x,y" for a mixed
    #: partial), ``variables`` (the expression's names, those differentiated first)
    expression: str = ""
    answer: str = ""
    wrt: str = ""
    variables: list = field(default_factory=list)
    #: the reading notes of both texts (the answer's prefixed ``--answer:``)
    notes: list = field(default_factory=list)
    #: a text read with a rule that has another plausible reading under which the verdict
    #: differs (SPEC section 10)
    ambiguous: bool = False
    #: why the verdict is undecided (``correct`` is None)
    reason: Optional[str] = None
    #: the expression's text asked for the derivative itself (``d/dx`` in front)
    asks: bool = False
    #: where the two sides were compared when that is not the whole real line (``"x > 0"``:
    #: elsewhere a side is not real), else None
    compared_on: Optional[str] = None
    #: with ``ambiguous``: every reading, ``{"read_as": {"expression", "answer"}, "correct",
    #: "write": {"expression", "answer"}}`` (the texts written so that nobody reads them
    #: another way), the reading as read first
    readings: Optional[list] = None

    def to_dict(self) -> dict:
        """The JSON document of ``tape check`` (SPEC sections 3, 5 and 8)."""
        doc = {"expression": self.expression}
        if self.read_as and any(v is not None for v in self.read_as.values()):
            doc["read_as"] = self.read_as
        doc.update({"answer": self.answer, "correct": self.correct, "method": self.method,
                    "expected": self.expected, "counterexample": self.counterexample,
                    "diagnosis": self.diagnosis, **self.extra})
        if self.compared_on:
            doc["compared_on"] = self.compared_on
        if self.ambiguous:
            doc["ambiguous"] = True
            doc["readings"] = self.readings
        if self.note:
            doc["warnings"] = [self.note]
        return doc


class AnswerNameError(CLIError):
    """The answer uses a name the expression does not have (``3X^2`` for x^3, an answer in y):
    bad input for ``tape check`` (exit 2), a wrong answer for a gradebook, which gives
    ``message`` as the reason. ``names`` are the answer's extra names, ``variables`` the
    expression's (the integrand's, for an antiderivative)."""

    def __init__(self, message: str, names: list, variables: list):
        super().__init__(message)
        self.names, self.variables = list(names), list(variables)


def optional_work(deadline: float, fn: Callable, *args):
    """``fn(*args)`` in a child for something the verdict does not depend on (a display form,
    the diagnosis): None when it runs out of time or fails."""
    try:
        return run_optional(deadline, fn, *args)
    except SymbolicFailure:
        return None


def shown(deadline: float, renderers: tuple, args: tuple) -> Optional[str]:
    """The right derivative for display: the first renderer (tidy) by ``deadline``, else the
    second (as differentiated) within a second more; None when neither finishes."""
    tidy, raw = renderers
    return optional_work(deadline, tidy, *args) or \
        optional_work(time.monotonic() + 1.0, raw, *args)


def settle(agree: int, where: str, prove: Callable, args: tuple, renderers: tuple,
           timeout: float, hint: Optional[str] = None, **details) -> Verdict:
    """The verdict without a counterexample: ``prove(*args)`` in a child (True when SymPy
    proves the answer right), else ``agree`` high-precision agreements ``where`` (e.g. "spread
    over the domain"). ``renderers`` show the right derivative (see ``shown``); ``hint`` ends
    the message of an undecided verdict (why so few points could be checked)."""
    start = time.monotonic()
    reason = None
    try:
        zero = run_limited(prove, *args, timeout=timeout, what="the symbolic proof",
                           consequence="")
    except (SymbolicTimeout, SymbolicFailure) as exc:
        zero, reason = None, exc.message
    expected = shown(start + timeout, renderers, args)
    if zero:
        return Verdict(True, "symbolic", expected, valid_points=agree, **details)
    reason = reason or "SymPy could not simplify the difference to 0"
    if agree >= ENOUGH:
        return Verdict(True, "numeric", expected, valid_points=agree,
                        note=f"{reason}; both sides agree to {AGREED_DIGITS} digits at {agree} "
                             f"points {where}", **details)
    raise CLIError(f"undecided: {reason}, and only {agree} points {where} could be checked "
                   f"(at least {ENOUGH} are needed)" + (f"; {hint}" if hint else ""),
                   UNDECIDED)

def in_the_names_of(answer, used, names):
    """The answer's tree with a Greek letter spelled the other way than in the expression
    renamed to the expression's spelling (``cos(theta)`` for ``sin θ``)."""
    from ..expr.notation import greek_twin

    twins = {n: greek_twin(n) for n in used if n not in names and greek_twin(n) in names}
    return E.renamed(answer, twins) if twins else answer


def refuse_a_question(answer: str, asks: bool) -> None:
    """An answer that starts with ``d/dx`` asks for the derivative instead of giving it (read
    as the expression after it, it would be compared as if it were the derivative). ``asks``:
    the answer's reading found the ``d/dx`` in front (``Reading.asks``)."""
    if asks:
        raise CLIError(f"--answer: '{answer.strip()}' asks for a derivative instead of "
                       f"giving one; write the derivative itself (a label such as "
                       f"dy/dx = ... in front of it is fine)")
