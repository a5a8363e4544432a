"""Showing derivations and formulas: math notation for a terminal, and the step layouts.

``steps_lines`` / ``steps_latex`` / ``steps_rows`` lay out the step documents that
``formulas.steps`` computes (their expressions already written in a style: SymPy syntax, math
notation or LaTeX); ``derivation_steps`` is ``tape diff --steps`` (a ``StepsResult`` for
``output.render``).
"""
from __future__ import annotations

from . import output
from ..calculus import formulas
from ..expr.printer import superscript



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


class StepsResult(output.Result):
    """``tape diff --steps``: the verified derivation (``document`` from ``steps.derivation``)
    in every format."""

    def __init__(self, target, wrt: list[str], order: int, steps: dict, latex: bool) -> None:
        self.target = target
        self.expression = target.source
        self.wrt = wrt
        self.order = order
        self.steps = steps
        self.latex = latex

    def document(self) -> dict:
        """SPEC's document: one variable gives lists and a string, several give dicts."""
        single = len(self.wrt) == 1
        derivative, steps = self.steps["derivative"], self.steps["steps"]
        return {"expression": self.expression, "wrt": self.wrt, "order": self.order,
                "derivative": derivative[self.wrt[0]] if single else derivative,
                "steps": steps[self.wrt[0]] if single else steps}

    def header(self) -> list[str]:
        return STEPS_CSV_HEADER

    def rows(self):
        yield steps_rows(self.steps)

    def lines(self):
        if self.latex:
            yield steps_latex(self.steps) + "\n"
        else:
            yield "\n".join(steps_lines(self.steps, False)) + "\n"

    def draw(self, out, precision: int) -> None:
        text = steps_latex(self.steps) if self.latex else "\n".join(
            steps_lines(self.steps, True))
        out.write(text + "\n")


def derivation_steps(expression: str, wrt_text, order: int, notation: str,
                     timeout: float) -> StepsResult:
    """``tape diff --steps``: ``formulas.steps`` written in ``notation`` (LaTeX is laid out
    as an ``align*`` block)."""
    found = formulas.steps(expression, wrt=wrt_text, order=order,
                           style=output.STYLE_OF[notation], timeout=timeout)
    return StepsResult(found.target, found.wrt, found.order, found.document,
                       notation == "latex")


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



def float_polynomial(terms: list[tuple[float, dict]], notation: str) -> str:
    """``shifted_polynomial``'s terms (the engine's floats) in ``notation``: ``python`` with
    every float in full, ``math`` as a terminal shows it (6 digits), ``latex`` through the one
    printer (``notate_terms``)."""
    if notation != "latex":
        return shifted_polynomial(terms, notation == "math")
    import sympy

    from ..expr.printer import notate_terms

    return notate_terms([(sympy.Float(c), {n: (sympy.Float(a), k) for n, (a, k) in p.items()})
                         for c, p in terms if c != 0], "latex")
