"""``tape check``: is ANSWER the (N-th) derivative of EXPR? (homework; see ``homework.py``)

Plain output: ``correct`` or ``wrong`` on the first line; for a wrong answer, then a point where
the two differ with both values, and the right derivative. Exit 0 correct, 1 wrong, 2 bad
input, 3 undecided.
"""
from __future__ import annotations

import csv
import json
import sys
from typing import Annotated, Optional

import typer

from .. import output
from ..crosscheck import TIMEOUT, TimeoutOption
from ..errors import CHECK_FAILED, UNDECIDED


def check(
    expression: Annotated[str, typer.Argument(
        metavar="EXPR", help="The function, e.g. 'sin(x)^2'.")],
    answer: Annotated[str, typer.Option(
        "--answer", metavar="ANSWER",
        help="The proposed derivative, same syntax (^, 2x, ln), e.g. '2sin(x)*cos(x)'.")],
    wrt: Annotated[Optional[str], typer.Option(
        "--wrt", "-w", metavar="VAR[,VAR...]",
        help="The variable to differentiate by (needed when EXPR has several); "
             "x,y is the mixed partial d/dx then d/dy.")] = None,
    order: Annotated[int, typer.Option(
        "--order", "-n", min=1, max=10, help="Check the N-th derivative.")] = 1,
    fmt: output.FormatOption = output.Format.auto,
    timeout: TimeoutOption = TIMEOUT,
    implicit: Annotated[bool, typer.Option(
        "--implicit", help="EXPR is a curve F(x,y) = G(x,y); ANSWER is dy/dx on it.")] = False,
    dependent: Annotated[str, typer.Option(
        "--dependent", metavar="NAME", help="With --implicit: the dependent variable.")] = "y",
) -> None:
    """Is ANSWER the derivative of EXPR? Exit 0 correct, 1 wrong (with a counterexample)."""
    from ..homework import decide

    fmt = output.resolve_format(fmt)
    decision, wrt_name, _ = decide(expression, answer, wrt, order, timeout, implicit, dependent)
    if decision.note:
        output.warn(decision.note)
    if fmt is output.Format.json:
        sys.stdout.write(json.dumps(decision.document(expression, answer),
                                    ensure_ascii=False) + "\n")
    elif fmt is output.Format.csv:
        writer = csv.writer(sys.stdout, lineterminator="\n")
        writer.writerow(["correct", "method", "expected"])
        writer.writerow([_word(decision.correct), decision.method, decision.expected or ""])
    else:
        sys.stdout.write("".join(line + "\n" for line in
                                 _explain(decision, expression, wrt_name, order)))
    sys.stdout.flush()
    if decision.correct is None:
        raise typer.Exit(UNDECIDED)
    if not decision.correct:
        raise typer.Exit(CHECK_FAILED)


def _word(correct: Optional[bool]) -> str:
    return {True: "correct", False: "wrong", None: "undecided"}[correct]


def _explain(decision, expression: str, wrt: str, order: int) -> list[str]:
    lines = [_word(decision.correct)]
    lines += [decision.diagnosis["detail"]] if decision.diagnosis else []
    d = decision.label
    if decision.counterexample:
        c = decision.counterexample
        at = ", ".join(f"{k} = {v!r}" for k, v in c["at"].items())
        lines.append(f"at {at}: the answer gives {c['answer']!r}, "
                     f"the derivative is {c['expected']!r}")
    if decision.expected is not None:
        lines.append(f"{d} {expression} = {decision.expected}")
    return lines
