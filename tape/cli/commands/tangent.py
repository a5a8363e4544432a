"""``tape tangent``: the tangent line and normal line of y = f(x) at a point, or the tangent
plane of a function of several variables, from the engine's value and gradient there.

``tangent_result`` computes a plain dict (numbers and SymPy-syntax strings); ``render_tangent``
shows it in the chosen format.
"""

# (no ``from __future__ import annotations`` here: Typer reads this module's command
# signatures at every start, and string annotations would be evaluated each time)
import math
import sys
from typing import Annotated

import numpy as np
import typer

from .. import output
from ..errors import CLIError

#: names tried, in order, for the dependent variable of the equation (the first one the
#: expression does not use)
DEPENDENT = ("y", "z", "w", "f")
#: the JSON document's keys, in order (SPEC section 5)
JSON_KEYS = ("expression", "read_as", "at",
             "value", "slope", "tangent", "normal")


def tangent(
    expression: Annotated[str, typer.Argument(
        metavar="EXPR", help="An expression such as 'x^2*sin(x)' (scalar variables).")],
    at: Annotated[str, typer.Option(
        "--at", "-a", metavar="POINT",
        help="The point of tangency: 1.5, x=1,y=2 or 1,2 (variables in alphabetical order).")],
    fmt: output.FormatOption = output.Format.auto,
    precision: output.PrecisionOption = 6,
) -> None:
    """Tangent line and normal line of y = EXPR at a point (a plane for several variables).

    The value and slope come from the engine. Example: tape tangent "x^2" --at 1
    prints y = 1.0 + 2.0*(x - 1.0).
    """
    fmt = output.resolve_format(fmt)
    result = tangent_result(expression, at)
    render_tangent(result, fmt, precision)


def tangent_result(expression: str, at: str) -> dict:
    """The value, slope(s), tangent (and for one variable normal) equations at ``at``."""
    from .. import compute
    from ..kinks import kink_at
    from ..mathtext import shifted_polynomial
    from ..points import parse_point
    from ..targets import expression_target

    target = expression_target(expression)
    names = target.names
    if not names:
        raise CLIError(f"{expression!r} has no variables: a tangent needs a function of at "
                       f"least one variable")
    point = parse_point(at, names)
    if any(isinstance(v, list) for v in point.values()):
        raise CLIError("--at: tape tangent takes scalar variables (no vectors)")
    sizes = {n: None for n in names}
    target.tree_shapes(sizes)
    arrays = [np.array([point[n]], dtype=float) for n in names]
    comps = compute.components(names, names, sizes)
    with np.errstate(all="ignore"):
        value, partials = compute.partials(target.batched(names, sizes, 1), arrays, comps, 1)
    value = float(value.reshape(-1)[0])
    slopes = {c.name: float(partials[(i,)].reshape(-1)[0]) + 0.0 for i, c in enumerate(comps)}
    where = ", ".join(f"{n}={point[n]!r}" for n in names)
    if not math.isfinite(value):
        raise CLIError(f"{expression} is not defined at {where} (value {value!r}): no tangent")
    bad = [n for n, s in slopes.items() if not math.isfinite(s)]
    if bad:
        raise CLIError(f"{expression} is not differentiable at {where} (d/d{bad[0]} is "
                       f"{slopes[bad[0]]!r}): no tangent")
    kink = kink_at(target.trees[0], point)
    if kink is not None:
        raise CLIError(f"{expression} is not differentiable at {where} ({kink} has a kink or "
                       f"jump there): no tangent")
    dependent = next(n for n in DEPENDENT if n not in names)

    def equation(math_style: bool) -> str:
        terms = [(value, {})] + [(slopes[n], {n: (point[n], 1)}) for n in names]
        return f"{dependent} = " + shifted_polynomial(terms, math_style)

    result = {"expression": expression, "read_as": _read_as(target), "at": point,
              "value": value, "slope": slopes[names[0]] if len(names) == 1 else slopes,
              "tangent": equation(False), "dependent": dependent,
              "pretty": {"tangent": equation(True)}}
    if len(names) == 1:
        x, m = names[0], slopes[names[0]]
        if m == 0:
            result["normal"] = f"{x} = {point[x]!r}"
            result["pretty"]["normal"] = f"{x} = {point[x]:.6g}"
        else:
            def normal(math_style):
                terms = [(value, {}), (-1.0 / m, {x: (point[x], 1)})]
                return f"{dependent} = " + shifted_polynomial(terms, math_style)

            result["normal"] = normal(False)
            result["pretty"]["normal"] = normal(True)
    return result


def _read_as(target) -> str:
    from ..steps import read_as

    return read_as(target.trees[0])


def render_tangent(result: dict, fmt: output.Format, precision: int = 6) -> None:
    out = sys.stdout
    names = list(result["at"])
    slopes = result["slope"] if isinstance(result["slope"], dict) else {names[0]: result["slope"]}
    if fmt is output.Format.json:
        output.print_json({k: result[k] for k in JSON_KEYS if k in result})
    elif fmt is output.Format.csv:
        import csv

        writer = csv.writer(out, lineterminator="\n")
        lines = ["tangent"] + (["normal"] if "normal" in result else [])
        writer.writerow(names + ["value"] + [f"df/d{n}" for n in names] + lines)
        writer.writerow([output.number(result["at"][n]) for n in names]
                        + [output.number(result["value"])]
                        + [output.number(slopes[n]) for n in names]
                        + [result[k] for k in lines])
    elif fmt is output.Format.plain:
        out.write(result["tangent"] + "\n")
    else:
        at = ", ".join(f"{n} = {result['at'][n]:.{precision}g}" for n in names)
        rows = [("read as", result["read_as"]), ("at", at),
                ("value", f"{result['value']:.{precision}g}")]
        rows += [(f"slope d/d{n}" if len(names) > 1 else "slope", f"{slopes[n]:.{precision}g}")
                 for n in names]
        rows.append(("tangent" if len(names) == 1 else "tangent plane",
                     result["pretty"]["tangent"]))
        if "normal" in result:
            rows.append(("normal", result["pretty"]["normal"]))
        width = max(len(k) for k, _ in rows)
        out.write("".join(f"{k.ljust(width)}  {v}\n" for k, v in rows))
    out.flush()
