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
    fmt: O.FormatOption = O.Format.auto,
    precision: O.PrecisionOption = 6,
) -> None:
    """Tangent line and normal line of y = EXPR at a point (a plane for several variables).

    The value and slope come from the engine. Example: tape tangent "x^2" --at 1
    prints y = 1.0 + 2.0*(x - 1.0).
    """
    target, result = tangent_result(expression, at)
    output.render(TangentResult(target, result), output.resolve_format(fmt), precision)


def tangent_result(expression: str, at: str):
    """The target read from ``expression`` and a dict of the value, slope(s), tangent (and for
    one variable normal) equations at ``at`` (computed by ``calculus.tangents.tangent``)."""
    from ...calculus.tangents import tangent as tangent_at
    from ..mathtext import shifted_polynomial
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
    if len(names) == 1:
        x = names[0]
        normal = found.normal_terms()
        if normal is None:
            result["normal"] = f"{x} = {point[x]!r}"
            result["pretty"]["normal"] = f"{x} = {point[x]:.6g}"
        else:
            result["normal"] = equation(normal, False)
            result["pretty"]["normal"] = equation(normal, True)
    return target, result


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
