"""``tape check``: is ANSWER the (N-th) derivative of EXPR? (homework; see ``homework.py``)

Plain output: ``correct`` or ``wrong`` on the first line; for a wrong answer, then the likely
mistake (when one is found), a point where the two differ with both values, and the right
derivative. A table shows first how both texts were read. Exit 0 correct, 1 wrong, 2 bad input,
3 undecided.
"""
from __future__ import annotations

from typing import Annotated, Optional

import typer

from .. import options as O, output
from ...expr.errors import CHECK_FAILED, UNDECIDED, CLIError


AnswersOption = Annotated[Optional[str], typer.Option(
    "--answers", metavar="FILE",
    help="Many answers: one 'expression,answer' per line of FILE ('-': standard input; "
         "CSV-quoted when the expression has commas), each verdict on its own line.")]


def check(
    expression: Annotated[Optional[str], typer.Argument(
        metavar="EXPR", help="The function, e.g. 'sin(x)^2'.")] = None,
    answer: O.AnswerOption = None,
    wrt: O.CheckWrtOption = None,
    order: O.CheckOrderOption = 1,
    notation: O.NotationOption = None,
    fmt: O.FormatOption = O.Format.auto,
    timeout: O.TimeoutOption = O.TIMEOUT,
    implicit: O.ImplicitOption = False,
    dependent: O.DependentOption = O.DEPENDENT,
    antiderivative: O.AntiderivativeOption = False,
    constant: O.ConstantOption = None,
    answers: AnswersOption = None,
    on_error: O.OnErrorOption = O.OnError.stop,
) -> None:
    """Is ANSWER the derivative of EXPR (or, with --antiderivative, an antiderivative)? Exit 0
    correct, 1 wrong (with a counterexample). --answers FILE: one 'expression,answer' per line
    (exit 0 all correct, 1 some wrong, 3 some undecided)."""
    from ...grading import check as grade_answer
    along = len(wrt.split(",")) if wrt else 1
    if along > O.CHECK_MAX_ORDER:   # --wrt x,x,...,x is an order too, bounded like --order
        output.abort(f"--wrt names {along} differentiations (a mixed partial of order {along}); "
                     f"the limit is {O.CHECK_MAX_ORDER}, as for --order")
    settings = dict(wrt=wrt, order=order, timeout=timeout, implicit=implicit,
                    dependent=dependent, antiderivative=antiderivative, constant=constant)
    if answers is not None:
        if expression is not None or answer is not None:
            output.abort("--answers reads every expression and answer from its lines: give "
                         "EXPR and --answer, or --answers, not both")
        return each_line(answers, output.resolve_format(fmt), O.OnError(on_error).value,
                         lambda e, a: grade_answer(e, a, **settings), order)
    if answer is None:
        output.abort("Missing option '--answer' (or --answers FILE, one 'expression,answer' "
                     "per line).")
    if expression is None:
        output.abort("Missing argument 'EXPR'.")
    verdict = grade_answer(expression, answer, **settings)
    if verdict.correct is None and not verdict.ambiguous:
        output.abort(verdict.reason, UNDECIDED)
    fmt = output.resolve_format(fmt)
    output.render(CheckResult(verdict, expression, answer, verdict.wrt, order).written_in(
        output.resolve_notation(notation, fmt)), fmt)
    if verdict.ambiguous:
        output.abort(code=UNDECIDED)
    if not verdict.correct:
        output.abort(code=CHECK_FAILED)


#: the header line an answers file may start with
ANSWERS_HEADER = ["expression", "answer"]


def each_line(source: str, fmt: O.Format, on_error: str, decide, order: int) -> None:
    """``tape check --answers FILE``: ``decide(expression, answer)`` (``tape.grading.check``)
    for each ``expression,answer`` line, its verdict on its own line as it is decided
    (``per_line.answer_lines``); then exit 1 if an answer was wrong, else 3 if one was
    undecided or ambiguous, else 0."""
    import csv
    import sys

    from ..per_line import Answer, answer_lines, lines_of

    verdicts = {"correct": 0, "wrong": 0, "undecided": 0, "ambiguous": 0}

    def pair(text: str) -> list[str]:
        fields = next(csv.reader([text], skipinitialspace=True))
        if len(fields) != 2:
            raise CLIError(f"{len(fields)} field{'s' if len(fields) != 1 else ''} "
                                  f"where 'expression,answer' is expected (quote an "
                                  f"expression that has commas: \"atan2(y, x)\",answer)")
        return fields

    def answer(text: str) -> Answer:
        expression, proposed = pair(text)
        verdict = decide(expression, proposed)
        word = "ambiguous" if verdict.ambiguous else _word(verdict.correct)
        verdicts[word] += 1
        shown = CheckResult(verdict, expression, proposed, verdict.wrt, order)
        return Answer(word, [expression, proposed, word, verdict.expected or ""],
                      output.json_document(shown, shown.warnings()))

    def failed(text: str, message: str) -> Answer:
        return Answer("nan", [text, "", "nan", ""], {"line": text, "error": message})

    def header(number: int, text: str) -> bool:
        return number == 1 and [f.strip().lower() for f in next(csv.reader([text]), [])] \
            == ANSWERS_HEADER

    lines, where = lines_of(source, sys.stdin, "--answers")
    answer_lines(lines, where, fmt, on_error, answer, failed,
                 ["expression", "answer", "verdict", "expected"],
                 "no answers given (one 'expression,answer' per line)", header)
    if verdicts["wrong"]:
        output.abort(code=CHECK_FAILED)
    if verdicts["undecided"] or verdicts["ambiguous"]:
        output.abort(code=UNDECIDED)


class CheckResult(output.FieldsResult):
    """The verdict on ANSWER: ``correct``/``wrong`` and, when wrong, why."""

    _fields = ("decision", "expression", "answer", "wrt", "order")
    #: how the derivative it shows is written (``written_in``)
    notation = "python"

    def written_in(self, notation: str) -> "CheckResult":
        self.notation = notation
        return self

    @property
    def read_as(self) -> Optional[dict]:
        """How both texts were read: ``{"expression": ..., "answer": ...}`` (None when
        neither text has a reading)."""
        read_as = self.decision.read_as
        return read_as if read_as and any(v is not None for v in read_as.values()) else None

    def warnings(self) -> list[str]:
        return [self.decision.note] if self.decision.note else []

    def document(self) -> dict:
        document = self.decision.to_dict()
        if document.get("expected") and self.notation != "python":
            from ...expr.symbolic import in_notation

            document["expected"] = in_notation(document["expected"], self.notation)
        return document

    def header(self) -> list[str]:
        return ["correct", "method", "expected"]

    def rows(self):
        d = self.decision
        yield [["ambiguous" if d.ambiguous else _word(d.correct), d.method, d.expected or ""]]

    def lines(self):
        yield "".join(line + "\n" for line in
                      _explain(self.decision, self.expression, self.wrt, self.order,
                               self.notation))

    def draw(self, out, precision: int) -> None:
        out.writelines(self.lines())


def _word(correct: Optional[bool]) -> str:
    return {True: "correct", False: "wrong", None: "undecided"}[correct]


def _explain(decision, expression: str, wrt: str, order: int,
             notation: str = "python") -> list[str]:
    if decision.ambiguous:
        return _readings(decision)
    if decision.extra.get("kind") == "antiderivative":
        return _explain_antiderivative(decision)
    lines = [_word(decision.correct)]
    lines += [decision.diagnosis["detail"]] if decision.diagnosis else []
    d = decision.label
    if decision.counterexample:
        c = decision.counterexample
        at = ", ".join(f"{k} = {v!r}" for k, v in c["at"].items())
        line = f"at {at}: the answer gives {c['answer']!r}, the derivative is {c['expected']!r}"
        if decision.gap and _alike(c["answer"], c["expected"]):
            line += f" (apart by {decision.gap}, beyond the digits shown)"
        lines.append(line)
    if decision.compared_on:
        lines.append(f"compared only where both sides are real: {decision.compared_on}")
    if decision.expected is not None:
        asked = f"{d} {expression}"
        if decision.asks:
            # the text's own d/dx names the derivative only when it is the one asked for
            # (not with --order 2 after it)
            shown = (decision.read_as or {}).get("expression") or expression
            asked = expression if expression.strip().startswith(f"{d} ") else f"{d} {shown}"
        from ...expr.symbolic import in_notation

        lines.append(f"{asked} = {in_notation(decision.expected, notation)}")
    return lines


def _readings(decision) -> list[str]:
    """An ambiguous verdict: why, then each reading written so that it reads one way only, with
    its verdict."""
    lines = [decision.reason]
    for reading in decision.readings:
        write = reading["write"]
        lines.append(f"  {_word(reading['correct'])} when written {write['expression']!r} "
                     f"with --answer {write['answer']!r}")
    return lines


def _alike(a: float, b: float) -> bool:
    """Do two floats agree to 9 digits (their difference then needs saying)?"""
    return abs(a - b) <= 1e-9 * max(abs(a), abs(b))


def _explain_antiderivative(decision) -> list[str]:
    """``correct``/``wrong``, the notes, the mistake, a point where the answer's derivative
    and EXPR differ, and the evidence: the answer's derivative as ``tape diff`` gives it."""
    lines = [_word(decision.correct)]
    lines += [f"note: {n}" for n in decision.extra.get("notes", [])]
    lines += [decision.diagnosis["detail"]] if decision.diagnosis else []
    x = decision.wrt
    if decision.counterexample:
        c = decision.counterexample
        at = ", ".join(f"{k} = {v!r}" for k, v in c["at"].items())
        line = (f"at {at}: the answer's derivative is {c['answer']!r}, the integrand is "
                f"{c['expected']!r}")
        if decision.gap and _alike(c["answer"], c["expected"]):
            line += f" (apart by {decision.gap}, beyond the digits shown)"
        lines.append(line)
    derivative = decision.extra.get("derivative")
    if derivative is not None:
        lines.append(f"d/d{x} ({decision.answer.strip()}) = {derivative}")
    if decision.correct is False and decision.expected:
        lines.append(f"an antiderivative: {decision.expected}")
    return lines
