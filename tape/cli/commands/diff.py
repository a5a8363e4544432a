"""``tape diff``: the symbolic derivative of an expression, written simply.

The derivative is tape's own (``calculus.treediff``: the textbook rules on tape's tree, like
terms collected, numbers folded), shown only after the engine's derivative agrees with it at
random points. SymPy takes over for what those rules do not cover (``erf``, ``max``, vector
components, trees too large) or for a derivative the engine does not confirm, and on request:
``--simplify`` shows SymPy's derivative in its simplest form it finds in time.

On a terminal the derivative is pretty-printed; piped, it is one line of plain text (several
variables: one ``x: 2*x*y`` line each); ``--latex`` gives LaTeX in every format; JSON is
``{"expression", "wrt", "order", "derivative"}`` with a dict for several variables.
"""
from __future__ import annotations

import time
from typing import Annotated

import typer

from .. import options as O, output
from ...calculus.timelimit import run_limited, run_optional
from .derive import by_variable, check_partial_count, derivative_labels, parse_wrt

#: the most distinct partial derivatives one ``tape diff`` prints
MAX_PARTIALS = 200

SimplifyOption = Annotated[bool, typer.Option(
    "--simplify", help="Let SymPy differentiate and simplify (slower; it may find a shorter "
                       "form, e.g. with trigonometric identities).")]


def diff(
    expression: Annotated[str, typer.Argument(
        metavar="EXPR", help="An expression such as 'x^2*sin(y)' (variables are scalars).")],
    wrt: O.WrtOption = None,
    order: O.DiffOrderOption = 1,
    latex: O.LatexOption = False,
    fmt: O.FormatOption = O.Format.auto,
    timeout: O.TimeoutOption = O.TIMEOUT,
    steps: O.StepsOption = False,
    implicit: O.ImplicitOption = False,
    dependent: O.DependentOption = O.DEPENDENT,
    simplify: SimplifyOption = False,
) -> None:
    """Symbolic derivative of EXPR, written simply (tape's own rules, checked by the engine;
    --simplify: SymPy's simplified form).

    With --implicit, EXPR is an equation such as 'x^2 + y^2 = 1' and the result is dy/dx
    along the curve (--order 2: d2y/dx2; --dependent names y)."""
    fmt = output.resolve_format(fmt)
    style = "latex" if latex else ("pretty" if fmt is O.Format.table else "plain")
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
        return output.render(derivation_steps(expression, wrt, order, latex, fmt, timeout), fmt)
    output.render(differentiate(expression, wrt, order, style, timeout, simplify), fmt)


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
    """Every distinct partial of ``order`` of ``expression``, written in ``style`` (plain,
    pretty or latex): tape's own derivatives where they have rules and the engine confirms
    them, else (and with ``simplify``) SymPy's, tidied when that finishes within ``timeout``
    seconds."""
    from ...calculus.derivatives import components, multisets
    from ...expr.symbolic import infer_sizes
    from ...calculus.targets import declared_names, expression_target
    from ...expr.notation import stated_order

    target = expression_target(expression, declared=declared_names(wrt=wrt))
    names = target.wrt_names(wrt)
    target.names = target.names or names or ["x"]   # a constant: a function of any variable
    asked, operator = stated_order(expression, declared_names(wrt=wrt))
    if operator and order not in (1, asked):
        output.abort(f"the text asks for derivative order {asked} and --order says {order}; "
                     f"give one of them")
    order = asked if operator else order
    variables = target.ordered(names)
    wrt_names = names or list(variables)
    sizes = {n: None for n in variables} | infer_sizes(target.trees[0])
    # counted before the components and their multisets are listed: both can be huge
    n_components = sum(1 if sizes[name] is None else sizes[name] for name in wrt_names)
    check_partial_count(n_components, order, MAX_PARTIALS, "variables", "diff")
    comps = components(variables, wrt_names, sizes)
    keys = multisets(len(comps), order)
    labels = [c.label for c in comps] if order == 1 else \
        [derivative_labels(comps, k, len(comps) == 1)[0] for k in keys]
    if not simplify and all(sizes[name] is None for name in variables):
        started = time.monotonic()
        texts = _own(target.trees[0], variables, [[comps[i].name for i in key] for key in keys],
                     sizes, style)
        if texts is not None:
            _in_time(started, timeout, "symbolic differentiation")
            return DiffResult(expression, target, wrt_names, order, comps, labels, texts)
    deadline = time.monotonic() + timeout
    job = (target.trees[0], sizes, wrt_names, keys, style)
    raw = run_limited(_differentiate, *job, False, timeout=timeout,
                      what="symbolic differentiation", consequence="")
    texts = run_optional(deadline, _differentiate, *job, True)
    if texts is None:
        output.warn(f"simplifying did not finish in {timeout:g} s; the derivative is shown "
                    f"as differentiated")
        texts = raw
    return DiffResult(expression, target, wrt_names, order, comps, labels, texts)


def _own(tree, variables: list[str], alongs: list[list[str]], sizes, style: str):
    """Each derivative by tape's own rules, confirmed by the engine, as text in ``style``;
    None when any of them is not (SymPy then does them all)."""
    from ...calculus.treediff import checked

    trees = checked(tree, variables, alongs)
    if any(t is None for t in trees):
        return None
    return [shown(t, sizes, style) for t in trees]


def _in_time(started: float, timeout: float, what: str) -> None:
    """--timeout holds for tape's own derivatives too (they are quick, but bounded all the
    same): exit 3 when they took longer."""
    from ...calculus.timelimit import SymbolicTimeout

    if time.monotonic() - started > timeout:
        raise SymbolicTimeout(timeout, what, "")


def shown(tree, sizes, style: str) -> str:
    """A derivative tree as text: SymPy syntax as tape's printer writes it (``plain``), or
    SymPy's ``pretty``/``latex`` rendering of the same tree."""
    if style == "plain":
        from ...expr.printer import read_as

        return read_as(tree)
    from ...expr import symbolic as S

    return S.render(S.as_scalar(S.to_sympy(tree, sizes)), style)


def _differentiate(tree, sizes, wrt, keys, style, tidy):
    """In a child: each distinct partial (``tidy``: in a readable form), rendered in
    ``style``."""
    from ...expr import symbolic as S

    f = S.as_scalar(S.to_sympy(tree, sizes))
    comps = S.component_symbols(wrt, sizes)
    out = []
    for key in keys:
        d = S.derivative(f, [comps[i] for i in key])
        out.append(S.render(S.tidy(d) if tidy else d, style))
    return out


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
    """dy/dx (order 1) or d²y/dx² (order 2) of the curve ``expression`` (an equation): by
    tape's own rules (each partial confirmed by the engine), else (and with ``simplify``) by
    SymPy."""
    from ...calculus.implicit import curve_from_text, slope_text
    from ...calculus.treediff import implicit_slope

    if order > 2:
        output.abort("--implicit gives dy/dx (--order 1) or d2y/dx2 (--order 2)")
    names = parse_wrt(wrt)
    if len(names) > 1:
        output.abort("--implicit differentiates along one variable: give one name in --wrt")
    curve = curve_from_text(expression, dependent, names[0] if names else None)
    if not simplify:
        started = time.monotonic()
        slope = implicit_slope(curve.function, curve.x, curve.y, order)
        if slope is not None:
            _in_time(started, timeout, "implicit differentiation")
            text = shown(slope, {curve.x: None, curve.y: None}, style)
            return ImplicitResult(expression, curve, order, text)
    return ImplicitResult(expression, curve, order, slope_text(curve, order, style, timeout))
