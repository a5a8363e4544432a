"""``tape taylor``: the Taylor polynomial of a one-variable expression about a point.

The coefficients c_k = f^(k)(a)/k! come from the engine's Taylor mode in one pass
(``tape.derivative``; see ``taylor_coefficients``); ``--check`` compares them with SymPy's
series. ``taylor_result`` computes a plain dict; ``TaylorResult`` shows it.
"""

# (no ``from __future__ import annotations`` here: Typer reads this module's command
# signatures at every start, and string annotations would be evaluated each time)
import math
from typing import Annotated

import numpy as np
import typer

from .. import options as O, output
from ...expr.errors import CHECK_FAILED

#: --check: c_k agrees with SymPy's e_k when |c_k - e_k| <= RTOL * (|e_(k-1)| + |e_k| +
#: |e_(k+1)|). The recurrences build c_k from the coefficients next to it, so their rounding
#: is relative to those (a coefficient that is zero or nearly cancels, like sin's even ones at
#: 0, is judged against its neighbours). Measured errors stay below 1e-15 relative (exp, sin,
#: 1/(1-x), log up to order 30); 1e-9 leaves room for ill-conditioned points without
#: letting a wrong coefficient through.
RTOL = 1e-9
#: the JSON document's keys, in order (SPEC section 5; ``output`` adds "read_as" after
#: "expression")
JSON_KEYS = ("expression", "at", "order", "coefficients", "polynomial", "check")


def taylor(
    expression: Annotated[str, typer.Argument(
        metavar="EXPR", help="An expression in one variable, such as 'exp(x)*sin(x)'.")],
    at: O.ExpansionPointOption,
    order: O.TaylorOrderOption = 5,
    check: O.CheckOption = False,
    fmt: O.FormatOption = O.Format.auto,
    precision: O.PrecisionOption = 6,
    timeout: O.TimeoutOption = O.TIMEOUT,
) -> None:
    """Taylor polynomial of EXPR about a point, from the engine's Taylor mode (order <= 30).

    c_k = f^(k)(a)/k!, in powers of (x - a). Example: tape taylor "exp(x)" --at 0 --order 3
    prints 1.0 + x + 0.5*x**2 + 0.16666666666666666*x**3.
    """
    fmt = output.resolve_format(fmt)
    target, result = taylor_result(expression, at, order)
    if check:
        result["check"] = check_with_sympy(target.trees[0], result, timeout)
    output.render(TaylorResult(target, result), fmt, precision)
    if check and not result["check"]["agree"]:
        output.abort("the Taylor coefficients disagree with SymPy's series (see "
                     "\"expected\")", CHECK_FAILED)


def taylor_coefficients(tree, name: str, a: float, order: int) -> np.ndarray:
    """c_0 .. c_order of the expression ``tree`` in ``name`` about ``a``, in one Taylor-mode
    pass through the public ``tape.derivative`` (which returns only the top derivative).

    Point k of a batch of order+1 copies of ``a`` evaluates f(x)·(x - a)^(order-k): by Leibniz,
    its order-th derivative at a is order!/k! · f^(k)(a), so dividing by order! leaves c_k.
    The powers are products of the affine factors (x - a) or 1, which the Taylor mode carries
    exactly.
    """
    import tape

    from ...expr.lower import to_tape

    fn = to_tape(tree, [name])
    powers = np.arange(order, -1, -1)

    def shifted(t):
        y = tape.reshape(fn(tape.reshape(t, (-1, 1))), (-1,)) + tape.zeros_like(t)
        s = t - a
        for j in range(order):
            m = (j < powers).astype(np.float64)
            y = y * (s * m + (1.0 - m))
        return y

    with np.errstate(all="ignore"):
        d = tape.derivative(shifted, np.full(order + 1, float(a)), order=order)
    return np.asarray(d.numpy(), dtype=np.float64).reshape(-1) / math.factorial(order)


def taylor_result(expression: str, at: str, order: int):
    """The target read from ``expression`` and a dict of its Taylor coefficients about
    ``at`` and the polynomial."""
    from ...expr.kinks import kink_at
    from ..mathtext import shifted_polynomial
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
    coefficients = taylor_coefficients(target.trees[0], name, a, order)
    if not np.all(np.isfinite(coefficients)):
        output.abort(f"{expression} has no Taylor polynomial of order {order} at "
                       f"{name}={a!r}: its value or a derivative up to order {order} is "
                       f"infinite or undefined there")
    terms = [(float(c), {name: (a, k)} if k else {}) for k, c in enumerate(coefficients)]
    return target, {"expression": expression, "at": {name: a},
            "order": order, "coefficients": [float(c) for c in coefficients],
            "polynomial": shifted_polynomial(terms),
            "pretty": {"terms": terms}}


def _series(tree, name: str, a: float, order: int) -> list[float]:
    """SymPy's series coefficients (in the time-limited child)."""
    from ...expr import symbolic as S

    sp = S.sympy()
    x = S.symbol(name)
    t = sp.Symbol("t")
    center = sp.Rational(repr(a)) if math.isfinite(a) else a
    f = S.to_sympy(tree, {name: None}).subs(x, center + t)
    series = sp.series(f, t, 0, order + 1).removeO()
    return [float(sp.N(series.coeff(t, k), 30)) if k else float(sp.N(series.subs(t, 0), 30))
            for k in range(order + 1)]


def check_with_sympy(tree, result: dict, timeout: float) -> dict:
    from ...calculus.timelimit import run_limited

    (name, a), = result["at"].items()
    expected = run_limited(_series, tree, name, a, result["order"],
                           timeout=timeout, what="SymPy's series", consequence="")
    got = result["coefficients"]
    errors = [abs(g - e) for g, e in zip(got, expected)]
    agree = all(errors[k] <= RTOL * sum(abs(e) for e in expected[max(k - 1, 0):k + 2])
                for k in range(len(errors)))
    return {"method": "sympy", "expected": expected, "max_abs_error": max(errors),
            "agree": bool(agree)}


class TaylorResult(output.DictResult):
    """``taylor_result``'s dict (with its ``check``, if any) in every format."""

    json_keys = JSON_KEYS

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
        out.write(f"P({name}) = "
                  + shifted_polynomial(result["pretty"]["terms"], True, precision) + "\n")
        if "check" in result:
            check = result["check"]
            out.write(("agrees" if check["agree"] else "DISAGREES")
                      + f" with SymPy's series (max abs error {check['max_abs_error']:.3g})\n")


_SUB = str.maketrans("0123456789", "₀₁₂₃₄₅₆₇₈₉")


def _derivative_mark(k: int) -> str:
    """f, f′, f″, f⁽³⁾ ..."""
    from ..mathtext import superscript

    marks = {0: "", 1: "′", 2: "″"}
    return marks[k] if k in marks else f"⁽{superscript(k)}⁾"
