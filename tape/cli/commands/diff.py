"""``tape diff``: the symbolic derivative of an expression, written simply.

The derivative is tape's own (``calculus.treediff``: the textbook rules on tape's tree, like
terms collected, numbers folded), shown only after the engine's derivative agrees with it at
random points. SymPy takes over for what those rules do not cover (``erf``, ``max``, vector
components, trees too large) or for a derivative the engine does not confirm, and on request:
``--simplify`` shows SymPy's derivative in its simplest form it finds in time.

The derivative is written in ``--notation``: on a terminal a textbook's (``2x sin(x)``),
piped SymPy syntax (several variables: one ``x: 2*x*y`` line each); ``--latex`` is
``--notation latex``, in every format; JSON is
``{"expression", "wrt", "order", "derivative"}`` with a dict for several variables.
"""
from __future__ import annotations

from typing import Annotated

import typer

from .. import options as O, output
from ...calculus import formulas
from .derive import by_variable, derivative_labels

SimplifyOption = Annotated[bool, typer.Option(
    "--simplify", help="Let SymPy differentiate and simplify (slower; it may find a shorter "
                       "form, e.g. with trigonometric identities).")]


def diff(
    expression: Annotated[str, typer.Argument(
        metavar="EXPR", help="An expression such as 'x^2*sin(y)' (variables are scalars); "
                             "'-' reads one expression per line from standard input.")],
    wrt: O.WrtOption = None,
    order: O.DiffOrderOption = 1,
    latex: O.LatexOption = False,
    notation: O.NotationOption = None,
    fmt: O.FormatOption = O.Format.auto,
    timeout: O.TimeoutOption = O.TIMEOUT,
    steps: O.StepsOption = False,
    implicit: O.ImplicitOption = False,
    dependent: O.DependentOption = O.DEPENDENT,
    simplify: SimplifyOption = False,
    on_error: O.OnErrorOption = O.OnError.stop,
) -> None:
    """Symbolic derivative of EXPR, written simply (tape's own rules, checked by the engine;
    --simplify: SymPy's simplified form). EXPR '-': one expression per line of standard
    input, each answered on its own line.

    With --implicit, EXPR is an equation such as 'x^2 + y^2 = 1' and the result is dy/dx
    along the curve (--order 2: d2y/dx2; --dependent names y)."""
    fmt = output.resolve_format(fmt)
    if expression.strip() == "-":
        if steps:
            output.abort("--steps shows one derivation: give the expression itself, not '-'")
        if dependent != O.DEPENDENT and not implicit:
            output.abort("--dependent goes with --implicit")
        style = output.STYLE_OF[output.resolve_notation(notation, fmt, latex)]
        return each_line(wrt, order, style, fmt, timeout, implicit,
                         dependent, simplify, O.OnError(on_error).value)
    notation = output.resolve_notation(notation, fmt, latex)
    style = output.STYLE_OF[notation]
    if implicit:
        if steps:
            output.abort("--steps and --implicit do not go together: give one of them")
        return output.render(implicit_derivative(expression, wrt, dependent, order, style,
                                                 timeout, simplify), fmt)
    if dependent != O.DEPENDENT:
        output.abort("--dependent goes with --implicit")
    if steps:
        if simplify:
            output.abort("--steps and --simplify do not go together: give one of them")
        from ..mathtext import derivation_steps
        return output.render(derivation_steps(expression, wrt, order, notation, timeout), fmt)
    output.render(differentiate(expression, wrt, order, style, timeout, simplify), fmt)


def each_line(wrt, order: int, style: str, fmt: O.Format, timeout: float, implicit: bool,
              dependent: str, simplify: bool, on_error: str) -> None:
    """``tape diff -``: the derivative of each line of standard input, on its own line, as
    ``tape diff`` gives it for that line (``per_line.answer_lines``)."""
    import sys

    from ..per_line import Answer, answer_lines, lines_of

    def answer(text: str) -> Answer:
        if implicit:
            found = implicit_derivative(text, wrt, dependent, order, style, timeout, simplify)
            line = found.text
        else:
            found = differentiate(text, wrt, order, style, timeout, simplify)
            line = found.texts[0] if found.single else "; ".join(
                f"{label}: {t}" for label, t in zip(found.labels, found.texts))
        return Answer(line, [text, line], output.json_document(found, found.warnings()))

    def failed(text: str, message: str) -> Answer:
        return Answer("nan", [text, "nan"], {"expression": text, "error": message})

    lines, where = lines_of("-", sys.stdin, "tape diff -")
    answer_lines(lines, where, fmt, on_error, answer, failed, ["expression", "derivative"],
                 "no expressions given (one per line)")


class DiffResult(output.FieldsResult):
    """The derivatives of ``expression``: ``texts[j]`` is the partial named ``labels[j]``."""

    _fields = ("expression", "target", "wrt", "order", "comps", "labels", "texts")

    @property
    def single(self) -> bool:
        return len(self.comps) == 1

    def document(self) -> dict:
        derivative = self.texts[0] if self.single else (
            by_variable(self.comps, self.texts) if self.order == 1
            else dict(zip(self.labels, self.texts)))
        return {"expression": self.expression, "wrt": self.wrt, "order": self.order,
                "derivative": derivative}

    def header(self) -> list[str]:
        return ["wrt", "derivative"]

    def rows(self):
        yield list(zip(self.labels, self.texts))

    def lines(self):
        if self.single:
            yield self.texts[0] + "\n"
        else:
            yield "".join(f"{label}: {text}\n" for label, text in zip(self.labels, self.texts))

    def draw(self, out, precision: int) -> None:
        if self.single:
            out.write(self.texts[0] + "\n")
            return
        for label, text in zip(self.labels, self.texts):
            lines = text.splitlines() or [""]
            if len(lines) == 1:
                out.write(f"{label}: {lines[0]}\n")
            else:
                out.write(f"{label}:\n" + "".join(f"  {line}\n" for line in lines))


def differentiate(expression: str, wrt, order: int, style: str, timeout: float,
                  simplify: bool = False) -> DiffResult:
    """``formulas.derivatives`` labelled for display; a warning when SymPy's simplification
    did not finish in time and the derivative is shown as differentiated."""
    found = formulas.derivatives(expression, wrt=wrt, order=order, style=style,
                                 timeout=timeout, simplify=simplify)
    if not found.simplified:
        output.warn(f"simplifying did not finish in {timeout:g} s; the derivative is shown "
                    f"as differentiated")
    comps = found.components
    labels = [c.label for c in comps] if found.order == 1 else \
        [derivative_labels(comps, k, len(comps) == 1)[0] for k in found.keys]
    return DiffResult(expression, found.target, found.wrt, found.order, comps, labels,
                      found.texts)


class ImplicitResult(output.FieldsResult):
    """dy/dx (or d²y/dx²) along a curve, as ``tape diff --implicit`` prints it."""

    _fields = ("expression", "curve", "order", "text")
    reading = "curve"

    def document(self) -> dict:
        return {"expression": self.expression, "wrt": [self.curve.x], "order": self.order,
                "derivative": self.text, "dependent": self.curve.y}

    def header(self) -> list[str]:
        return ["wrt", "dependent", "derivative"]

    def rows(self):
        yield [[self.curve.x, self.curve.y, self.text]]

    def lines(self):
        yield self.text + "\n"

    def draw(self, out, precision: int) -> None:
        d = "d" if self.order == 1 else f"d{self.order}"
        lines = self.text.splitlines() or [""]
        if len(lines) == 1:
            out.write(f"{d}{self.curve.y}/d{self.curve.x}{'' if self.order == 1 else self.order}"
                      f" = {lines[0]}\n")
        else:
            out.write("".join(line + "\n" for line in lines))


def implicit_derivative(expression: str, wrt, dependent: str, order: int, style: str,
                        timeout: float, simplify: bool = False) -> ImplicitResult:
    """``formulas.implicit_derivative`` for display."""
    found = formulas.implicit_derivative(expression, wrt=wrt, dependent=dependent,
                                         order=order, style=style, timeout=timeout,
                                         simplify=simplify)
    return ImplicitResult(expression, found.curve, found.order, found.text)
