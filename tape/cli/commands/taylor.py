"""``tape taylor``: the Taylor polynomial of a one-variable expression about a point.

The coefficients c_k = f^(k)(a)/k! come from the engine's Taylor mode in one pass, each with
its estimated rounding error (``calculus.taylor.coefficients``): one still above 1e-8
relative is warned of, and JSON gives its ``"digits"``. ``--check`` compares them with
SymPy's series. ``taylor_result`` computes a plain dict; ``TaylorResult`` shows it.
"""

# (no ``from __future__ import annotations`` here: Typer reads this module's command
# signatures at every start, and string annotations would be evaluated each time)
import math
from typing import Annotated

import numpy as np
import typer

from .. import options as O, output
from ...calculus import taylor as expansion
from ...expr.errors import CHECK_FAILED

#: the JSON document's keys, in order (SPEC section 5; ``output`` adds "read_as" after
#: "expression")
JSON_KEYS = ("expression", "at", "order", "coefficients", "digits", "polynomial", "check")


def taylor(
    expression: Annotated[str, typer.Argument(
        metavar="EXPR", help="An expression in one variable, such as 'exp(x)*sin(x)'.")],
    at: O.ExpansionPointOption,
    order: O.TaylorOrderOption = 5,
    check: O.CheckOption = False,
    notation: O.NotationOption = None,
    numeric: O.NumericOption = False,
    fmt: O.FormatOption = O.Format.auto,
    precision: O.PrecisionOption = 6,
    timeout: O.TimeoutOption = O.TIMEOUT,
) -> None:
    """Taylor polynomial of EXPR about a point, from the engine's Taylor mode (order <= 30).

    c_k = f^(k)(a)/k!, in powers of (x - a). Example: tape taylor "exp(x)" --at 0 --order 3
    prints 1.0 + x + 0.5*x**2 + 0.16666666666666666*x**3.
    """
    fmt = output.resolve_format(fmt)
    target, result = taylor_result(expression, at, order, output.resolve_notation(notation, fmt),
                                   numeric, timeout)
    if check:
        (name, a), = result["at"].items()
        result["check"] = expansion.check_with_sympy(target.trees[0], name, a,
                                                      result["coefficients"], timeout)
    output.render(TaylorResult(target, result), fmt, precision)
    if check and not result["check"]["agree"]:
        output.abort("the Taylor coefficients disagree with SymPy's series (see "
                     "\"expected\")", CHECK_FAILED)


def taylor_result(expression: str, at: str, order: int, notation: str = "python",
                  numeric: bool = False, timeout: float = O.TIMEOUT):
    """The target read from ``expression`` and a dict of its Taylor coefficients about
    ``at`` and the polynomial, written in ``notation``: exact (``calculus.exact.taylor``)
    where the expression and the point are, unless ``numeric``."""
    from ...expr.kinks import kink_at
    from ..mathtext import float_polynomial, shifted_polynomial
    from ..points import parse_point
    from ...calculus.targets import expression_target

    target = expression_target(expression)
    names = target.names
    if len(names) != 1:
        output.abort(f"tape taylor expands a function of one variable; {expression!r} has "
                       f"{len(names)} ({', '.join(names) or 'none'})")
    name = names[0]
    a = parse_point(at, names)[name]
    if isinstance(a, list):
        output.abort("--at: tape taylor takes a scalar variable (no vectors)")
    target.tree_shapes({name: None})
    kink = kink_at(target.trees[0], {name: a}) if order > 0 else None
    if kink is not None:
        output.abort(f"{expression} is not differentiable at {name}={a!r} ({kink} has a "
                       f"kink or jump there): no Taylor polynomial")
    coefficients, digits = expansion.coefficients(target.trees[0], name, a, order)
    if not np.all(np.isfinite(coefficients)):
        output.abort(f"{expression} has no Taylor polynomial of order {order} at "
                       f"{name}={a!r}: its value or a derivative up to order {order} is "
                       f"infinite or undefined there")
    terms = [(float(c), {name: (a, k)} if k else {}) for k, c in enumerate(coefficients)]
    result = {"expression": expression, "at": {name: a},
              "order": order, "coefficients": [float(c) for c in coefficients],
              "polynomial": shifted_polynomial(terms),
              "pretty": {"terms": terms}}
    exact = None
    if not numeric:
        from ...calculus import exact as exactly
        from .tangent import coordinate_texts

        texts = coordinate_texts(at, names)
        point = exactly.exact_point(texts) if texts else None
        exact = exactly.taylor(target.trees[0], name, point and point[name], order,
                               result["coefficients"], timeout)
    if exact is not None:
        from ...expr.printer import notate_terms

        result["polynomial"] = result["pretty"]["polynomial"] = notate_terms(
            [(c, {name: (point[name], k)} if k else {})
             for k, c in enumerate(exact["coefficients"])], notation)
    elif notation != "python":
        result["polynomial"] = float_polynomial(terms, notation)
    flagged = [{"k": k, "digits": int(d)} for k, d in enumerate(digits.tolist()) if d == d]
    if flagged:
        result["digits"] = flagged
    return target, result


class TaylorResult(output.DictResult):
    """``taylor_result``'s dict (with its ``check``, if any) in every format."""

    json_keys = JSON_KEYS

    def warnings(self) -> list[str]:
        flagged = self.result.get("digits")
        if not flagged:
            return []
        from ...calculus.derivatives import digits_warning

        digits = np.full(self.result["order"] + 1, np.nan)
        for entry in flagged:
            digits[entry["k"]] = entry["digits"]
        (name, a), = self.result["at"].items()
        return [digits_warning({0: digits}, lambda _, k: f"c{k} (the coefficient of "
                                                         f"({name} - {a!r})^{k})" if k
                               else "c0 (the value)")]

    def header(self) -> list[str]:
        return ["k", "coefficient", "derivative"] + (["sympy"] if "check" in self.result
                                                      else [])

    def rows(self):
        check = self.result.get("check")
        rows = []
        for k, c in enumerate(self.result["coefficients"]):
            row = [str(k), output.number(c), output.number(c * math.factorial(k))]
            rows.append(row + ([output.number(check["expected"][k])] if check else []))
        yield rows

    def lines(self):
        yield self.result["polynomial"] + "\n"
        if "check" in self.result:
            check = self.result["check"]
            yield (("agrees" if check["agree"] else "disagrees")
                   + f" with SymPy's series (max abs error "
                   f"{output.number(check['max_abs_error'])})\n")

    def draw(self, out, precision: int) -> None:
        from ..mathtext import shifted_polynomial

        result = self.result
        (name, a), = result["at"].items()
        out.write(f"about {name} = {a:.{precision}g}, order {result['order']}\n")
        rows = [(f"c{str(k).translate(_SUB)}", f"{c:.{precision}g}",
                 f"f{_derivative_mark(k)}"
                 f"({a:.{precision}g}) = {c * math.factorial(k):.{precision}g}")
                for k, c in enumerate(result["coefficients"])]
        width = max(len(r[1]) for r in rows)
        for label, c, d in rows:
            out.write(f"  {label.ljust(4)} {c.rjust(width)}   {d}\n")
        polynomial = result["pretty"].get("polynomial") or shifted_polynomial(
            result["pretty"]["terms"], True, precision)
        out.write(f"P({name}) = {polynomial}\n")
        if "check" in result:
            check = result["check"]
            out.write(("agrees" if check["agree"] else "DISAGREES")
                      + f" with SymPy's series (max abs error {check['max_abs_error']:.3g})\n")


_SUB = str.maketrans("0123456789", "₀₁₂₃₄₅₆₇₈₉")


def _derivative_mark(k: int) -> str:
    """f, f′, f″, f⁽³⁾ ..."""
    from ...expr.printer import superscript

    marks = {0: "", 1: "′", 2: "″"}
    return marks[k] if k in marks else f"⁽{superscript(k)}⁾"
