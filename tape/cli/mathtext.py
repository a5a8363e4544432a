"""Showing derivations and formulas: math notation for a terminal, and the step layouts.

``shower(style)`` turns SymPy expressions into text: ``sympy`` (SymPy syntax, what JSON and
plain output carry), ``math`` (for reading on a terminal: ``ln``, ``·``, superscripts, ``√``,
``e^x``, ``|x|``) or ``latex``. ``steps_lines`` / ``steps_latex`` / ``steps_rows`` lay out the
step documents that ``steps.derivation`` computes; ``print_steps`` is ``tape diff --steps``.
"""
from __future__ import annotations

import sys
from typing import Callable

from . import output
from . import symbolic as S

_SUPERSCRIPTS = str.maketrans("0123456789-", "⁰¹²³⁴⁵⁶⁷⁸⁹⁻")

#: the highest --order that --steps shows (each order is a whole derivation)
MAX_STEPS_ORDER = 4


def superscript(n: int) -> str:
    return str(n).translate(_SUPERSCRIPTS)


def _math_printer():
    from sympy.printing.precedence import PRECEDENCE
    from sympy.printing.str import StrPrinter

    sp = S.sympy()

    class MathPrinter(StrPrinter):
        """SymPy's text printer with a textbook's notation."""

        def _group(self, expr) -> str:
            text = self._print(expr)
            plain = (expr.is_Symbol or expr.is_Integer and expr >= 0
                     or expr in (sp.pi, sp.E))
            return text if plain else f"({text})"

        def _print_Pow(self, expr, rational=False):
            base, exp = expr.base, expr.exp
            if exp.is_number and exp.is_negative:
                return "1/" + self.parenthesize(base ** -exp, PRECEDENCE["Mul"], strict=True)
            if exp is sp.S.Half:
                return "√" + self._group(base)
            if base is sp.E:
                return "e^" + self._group(exp)
            if exp.is_Integer:
                return self.parenthesize(base, PRECEDENCE["Pow"], strict=True) \
                    + superscript(int(exp))
            return self.parenthesize(base, PRECEDENCE["Pow"], strict=True) + "^" \
                + self._group(exp)

        def _print_exp(self, expr):
            return "e^" + self._group(expr.args[0])

        def _print_log(self, expr):
            return "ln(" + ", ".join(self._print(a) for a in expr.args) + ")"

        def _print_Abs(self, expr):
            return "|" + self._print(expr.args[0]) + "|"

        def _print_Mul(self, expr):
            return super()._print_Mul(expr).replace("*", "·")

        def _print_Exp1(self, expr):
            return "e"

        def _print_Pi(self, expr):
            return "π"

    return MathPrinter()


def shower(style: str) -> Callable:
    """A function from SymPy expressions to text in ``style`` (``sympy``, ``math``, ``latex``)."""
    if style == "latex":
        return lambda e: S.render(e, "latex")
    if style == "math":
        return _math_printer().doprint
    return str


# --------------------------------------------------------------------------- step layouts

def _rule_label(step: dict) -> str:
    rule = step["rule"]
    label = rule if rule in ("rewrite",) else f"{rule} rule"
    for name, inner in (step.get("substitution") or {}).items():
        label += f", {name} = {inner}"
    return label


def _flatten(step: dict, depth: int = 0):
    yield depth, step
    for s in step["steps"]:
        yield from _flatten(s, depth + 1)


def steps_lines(document: dict, math: bool) -> list[str]:
    """The derivation as indented lines: ``d/dx [expr] = result    (rule)``."""
    lines: list[str] = []
    several = len(document["steps"]) > 1
    for x, roots in document["steps"].items():
        if several:
            lines.append(f"along {x}:")
        for k, root in enumerate(roots, start=1):
            if len(roots) > 1:
                lines.append(f"order {k}:" if k == 1 else
                             f"order {k}: differentiate the order {k - 1} result again")
            rows = []
            for depth, step in _flatten(root):
                wrt = step.get("wrt", x)
                left = "  " * depth
                if step["rule"] == "rewrite":
                    left += f"{step['expression']} = {step['result']}"
                else:
                    d = f"∂/∂{wrt}" if several and math else f"d/d{wrt}"
                    left += f"{d} [{step['expression']}] = {step['result']}"
                rows.append((left, _rule_label(step)))
            width = min(max(len(left) for left, _ in rows), 72)
            lines.extend(f"{left.ljust(width)}   ({label})" for left, label in rows)
    return lines


def steps_latex(document: dict) -> str:
    """An ``align*`` block a student can paste into a LaTeX document."""
    rows = []
    for x, roots in document["steps"].items():
        for k, root in enumerate(roots, start=1):
            if len(roots) > 1:
                rows.append(rf"&\text{{order {k}}}")
            for depth, step in _flatten(root):
                wrt = step.get("wrt", x)
                indent = r"\quad " * depth
                label = step["rule"] if step["rule"] == "rewrite" else f"{step['rule']} rule"
                extra = "".join(rf",\ {u} = {inner}"
                                for u, inner in (step.get("substitution") or {}).items())
                if step["rule"] == "rewrite":
                    left = f"{indent}{step['expression']}"
                else:
                    left = (rf"{indent}\frac{{d}}{{d{wrt}}}\left[{step['expression']}"
                            r"\right]")
                rows.append(rf"{left} &= {step['result']} && \text{{{label}}}{extra}")
    return "\\begin{align*}\n" + " \\\\\n".join(rows) + "\n\\end{align*}"


def steps_rows(document: dict) -> list[list]:
    """CSV rows: one per step (variable, order, depth, rule, wrt, expression, result,
    substitution)."""
    rows = []
    for x, roots in document["steps"].items():
        for k, root in enumerate(roots, start=1):
            for depth, step in _flatten(root):
                sub = "; ".join(f"{u} = {t}" for u, t in
                                (step.get("substitution") or {}).items())
                rows.append([x, k, depth, step["rule"], step.get("wrt", x),
                             step["expression"], step["result"], sub])
    return rows


STEPS_CSV_HEADER = ["variable", "order", "depth", "rule", "wrt", "expression", "result",
                    "substitution"]


def steps_json(expression: str, read_as: str, wrt: list[str], order: int,
               document: dict) -> dict:
    """SPEC's document: one variable gives lists and a string, several give dicts."""
    single = len(wrt) == 1
    return {"expression": expression, "read_as": read_as, "wrt": wrt, "order": order,
            "derivative": document["derivative"][wrt[0]] if single
            else document["derivative"],
            "steps": document["steps"][wrt[0]] if single else document["steps"]}


def _compute_steps(tree, wrt, order, style):
    """In the time-limited child: the verified derivation and the expression as read."""
    from .steps import derivation, read_as

    return derivation(tree, wrt, order, shower(style)), read_as(tree)


def print_steps(expression: str, tree, wrt: list[str], order: int, fmt: output.Format,
                latex: bool, timeout: float) -> None:
    """``tape diff --steps``: compute the verified derivation, then render it in ``fmt``."""
    from .errors import CLIError
    from .timelimit import run_limited

    if order > MAX_STEPS_ORDER:
        raise CLIError(f"--steps shows orders up to {MAX_STEPS_ORDER}; got --order {order} "
                       f"(tape diff without --steps gives any order up to 20)")
    style = "latex" if latex else ("math" if fmt is output.Format.table else "sympy")
    document, read = run_limited(_compute_steps, tree, wrt, order, style, timeout=timeout,
                                 what="the step-by-step derivation", consequence="")
    render_steps(expression, read, wrt, order, document, fmt, latex)


def render_steps(expression: str, read_as: str, wrt: list[str], order: int, document: dict,
                 fmt: output.Format, latex: bool) -> None:
    out = sys.stdout
    if fmt is output.Format.json:
        output.print_json(steps_json(expression, read_as, wrt, order, document))
    elif fmt is output.Format.csv:
        import csv

        writer = csv.writer(out, lineterminator="\n")
        writer.writerow(STEPS_CSV_HEADER)
        writer.writerows(steps_rows(document))
    elif latex:
        out.write(steps_latex(document) + "\n")
    else:
        if fmt is output.Format.table:
            out.write(f"read as {read_as}\n")
        out.write("\n".join(steps_lines(document, fmt is output.Format.table)) + "\n")
    out.flush()


# --------------------------------------------------------------------------- polynomials

def _number_text(value: float, math: bool, precision: int) -> str:
    return f"{value:.{precision}g}" if math else repr(float(value))


def shifted_polynomial(terms: list[tuple[float, dict]], math: bool = False,
                       precision: int = 6) -> str:
    """``c0 + c1*(x - a) + c2*(x - a)**2 ...`` from ``(coefficient, {name: (a, power)})``
    terms: SymPy syntax with every float in full (``math``: a terminal's notation with
    ``precision`` significant digits). Zero coefficients are left out."""
    times, minus = ("·", "−") if math else ("*", "-")
    out = ""
    for coefficient, powers in terms:
        if coefficient == 0:
            continue
        factors = []
        for name, (a, power) in powers.items():
            base = name if a == 0 else (
                f"({name} {minus} {_number_text(a, math, precision)})" if a > 0
                else f"({name} + {_number_text(-a, math, precision)})")
            if power != 1:
                base += superscript(power) if math else f"**{power}"
            factors.append(base)
        size = abs(coefficient)
        if factors and size == 1:
            body = times.join(factors)
        else:
            body = times.join([_number_text(size, math, precision)] + factors)
        negative = coefficient < 0
        if not out:
            out = f"-{body}" if negative else body
        else:
            out += f" {minus} {body}" if negative else f" + {body}"
    return out or ("0" if math else "0.0")

