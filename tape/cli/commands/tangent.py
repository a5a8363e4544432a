"""``tape tangent``: the tangent line and normal line of y = f(x) at a point, or the tangent
plane of a function of several variables, from the engine's value and gradient there.

``calculus.tangents`` computes them; ``tangent_result`` reads the options and makes a plain
dict (numbers and SymPy-syntax strings); ``TangentResult`` shows it in the chosen format.
"""

# (no ``from __future__ import annotations`` here: Typer reads this module's command
# signatures at every start, and string annotations would be evaluated each time)
from typing import Annotated

import typer

from .. import options as O, output

#: the JSON document's keys, in order (SPEC section 5; ``output`` adds "read_as" after
#: "expression")
JSON_KEYS = ("expression", "at", "value", "slope", "tangent", "normal")


def tangent(
    expression: Annotated[str, typer.Argument(
        metavar="EXPR", help="An expression such as 'x^2*sin(x)' (scalar variables).")],
    at: O.TangencyOption,
    notation: O.NotationOption = None,
    numeric: O.NumericOption = False,
    fmt: O.FormatOption = O.Format.auto,
    precision: O.PrecisionOption = 6,
) -> None:
    """Tangent line and normal line of y = EXPR at a point (a plane for several variables).

    The value and slope come from the engine; where EXPR and the point are exact, the line is
    exact too. Example: tape tangent "x^2" --at 1 prints y = 2x - 1.
    """
    fmt = output.resolve_format(fmt)
    target, result = tangent_result(expression, at, output.resolve_notation(notation, fmt),
                                    numeric)
    output.render(TangentResult(target, result), fmt, precision)


def coordinate_texts(at: str, names: list[str]) -> dict:
    """Each coordinate's text in ``at`` (``x=pi/4,y=1`` or ``pi/4,1`` in ``names``' order), for
    the exact path; empty when the point is written some other way."""
    from ...expr.notation import split_top_level

    parts = split_top_level(at.strip())
    texts = {}
    for k, part in enumerate(parts):
        name, eq, value = part.partition("=")
        if eq:
            texts[name.strip()] = value
        elif k < len(names):
            texts[names[k]] = part
    return texts if sorted(texts) == sorted(names) else {}


def tangent_result(expression: str, at: str, notation: str = "python", numeric: bool = False):
    """The target read from ``expression`` and a dict of the value, slope(s), tangent (and for
    one variable normal) equations at ``at`` (computed by ``calculus.tangents.tangent``; exact,
    by ``calculus.exact``, where the expression and the point are, unless ``numeric``),
    written in ``notation``."""
    from ...calculus.tangents import tangent as tangent_at
    from ..mathtext import float_polynomial, shifted_polynomial
    from ..points import parse_point
    from ...calculus.targets import expression_target

    target = expression_target(expression)
    names = target.names
    if not names:
        output.abort(f"{expression!r} has no variables: a tangent needs a function of at "
                       f"least one variable")
    point = parse_point(at, names)
    if any(isinstance(v, list) for v in point.values()):
        output.abort("--at: tape tangent takes scalar variables (no vectors)")
    found = tangent_at(target, {n: point[n] for n in names})
    slopes = found.slopes
    dependent = found.dependent

    def equation(terms, math_style: bool) -> str:
        return f"{dependent} = " + shifted_polynomial(terms, math_style)

    result = {"expression": expression, "at": point,
              "value": found.value, "slope": slopes[names[0]] if len(names) == 1 else slopes,
              "tangent": equation(found.terms(), False), "dependent": dependent,
              "pretty": {"tangent": equation(found.terms(), True)}}
    exact = None
    if not numeric and not target.is_script:
        from ...calculus import exact as exactly

        texts = coordinate_texts(at, names)
        exact = exactly.tangent(target.trees[0], exactly.exact_point(texts) if texts else None,
                                found.value, slopes)
    if exact is not None:
        _exact_equations(result, exact, names, dependent, notation)
        return target, result
    if notation != "python":
        result["tangent"] = f"{dependent} = {float_polynomial(found.terms(), notation)}"
    if len(names) == 1:
        x = names[0]
        normal = found.normal_terms()
        if normal is None:
            result["normal"] = f"{x} = {point[x]!r}"
            result["pretty"]["normal"] = f"{x} = {point[x]:.6g}"
        else:
            result["normal"] = equation(normal, False)
            result["pretty"]["normal"] = equation(normal, True)
        if notation != "python":
            result["normal"] = result["pretty"]["normal"] if normal is None else \
                f"{dependent} = {float_polynomial(normal, notation)}"
    return target, result


def _exact_equations(result: dict, exact: dict, names: list, dependent: str,
                     notation: str) -> None:
    """The tangent (and normal) equations from ``calculus.exact.tangent``'s numbers, in
    ``notation``: multiplied out when every number is rational (``y = 2x - 1``), in powers of
    ``(x - a)`` otherwise (``y = 1/2 + √3/2 (x - π/6)``)."""
    import sympy

    from ...expr.printer import notate, notate_terms

    point, value, slopes = exact["point"], exact["value"], exact["slopes"]
    rational = all(v.is_rational for v in [value, *point.values(), *slopes.values()])

    def equation(terms) -> str:
        if rational:
            total = sympy.expand(sympy.Add(*[c * sympy.Mul(*[
                (sympy.Symbol(n) - a) ** k for n, (a, k) in powers.items()])
                for c, powers in terms]))
            return f"{dependent} = {notate(total, notation)}"
        return f"{dependent} = {notate_terms(terms, notation)}"

    tangent = equation([(value, {})] + [(slopes[n], {n: (point[n], 1)}) for n in names])
    result["tangent"] = result["pretty"]["tangent"] = tangent
    if len(names) == 1:
        x = names[0]
        text = f"{x} = {notate(point[x], notation)}" if slopes[x] == 0 else \
            equation([(value, {}), (-1 / slopes[x], {x: (point[x], 1)})])
        result["normal"] = result["pretty"]["normal"] = text


class TangentResult(output.DictResult):
    """``tangent_result``'s dict in every format."""

    json_keys = JSON_KEYS

    @property
    def names(self) -> list[str]:
        return list(self.result["at"])

    @property
    def slopes(self) -> dict:
        slope = self.result["slope"]
        return slope if isinstance(slope, dict) else {self.names[0]: slope}

    def _equations(self) -> list[str]:
        return ["tangent"] + (["normal"] if "normal" in self.result else [])

    def header(self) -> list[str]:
        return (self.names + ["value"] + [f"df/d{n}" for n in self.names]
                + self._equations())

    def rows(self):
        r = self.result
        yield [[output.number(r["at"][n]) for n in self.names] + [output.number(r["value"])]
               + [output.number(self.slopes[n]) for n in self.names]
               + [r[k] for k in self._equations()]]

    def lines(self):
        yield self.result["tangent"] + "\n"

    def draw(self, out, precision: int) -> None:
        r, names = self.result, self.names
        at = ", ".join(f"{n} = {r['at'][n]:.{precision}g}" for n in names)
        rows = [("at", at), ("value", f"{r['value']:.{precision}g}")]
        rows += [(f"slope d/d{n}" if len(names) > 1 else "slope",
                  f"{self.slopes[n]:.{precision}g}") for n in names]
        rows.append(("tangent" if len(names) == 1 else "tangent plane", r["pretty"]["tangent"]))
        if "normal" in r:
            rows.append(("normal", r["pretty"]["normal"]))
        width = max(len(k) for k, _ in rows)
        out.write("".join(f"{k.ljust(width)}  {v}\n" for k, v in rows))
