"""``tape diff``: the symbolic derivative of an expression (SymPy), simplified.

On a terminal the derivative is pretty-printed; piped, it is one line of plain text (several
variables: one ``x: 2*x*y`` line each); ``--latex`` gives LaTeX in every format; JSON is
``{"expression", "wrt", "order", "derivative"}`` with a dict for several variables.
"""
from __future__ import annotations

import json
import sys
from typing import Annotated, Optional

import typer

from .. import output
from ..crosscheck import TIMEOUT, TimeoutOption
from ..errors import CLIError
from ..timelimit import run_limited
from .common import WrtOption, derivative_labels, parse_wrt

#: highest --order accepted
MAX_ORDER = 20


def diff(
    expression: Annotated[str, typer.Argument(
        metavar="EXPR", help="An expression such as 'x^2*sin(y)' (variables are scalars).")],
    wrt: WrtOption = None,
    order: Annotated[int, typer.Option(
        "--order", "-n", min=1, max=MAX_ORDER,
        help="Derivative order; with several variables every distinct N-th partial.")] = 1,
    latex: Annotated[bool, typer.Option(
        "--latex", help="LaTeX instead of text (in every format).")] = False,
    fmt: output.FormatOption = output.Format.auto,
    timeout: TimeoutOption = TIMEOUT,
) -> None:
    """Symbolic derivative of EXPR (SymPy), simplified into a readable form."""
    from ..compute import components, multisets
    from ..targets import expression_target

    fmt = output.resolve_format(fmt)
    target = expression_target(expression)
    names = parse_wrt(wrt)
    variables = target.ordered(names)
    wrt_names = names or list(variables)
    if not wrt_names:
        raise CLIError(f"{expression!r} has no variables to differentiate by")
    sizes = {n: None for n in variables}
    comps = components(variables, wrt_names, sizes)
    keys = multisets(len(comps), order)
    if len(keys) > 200:
        raise CLIError(f"--order {order} with {len(comps)} variables asks for {len(keys)} "
                       f"partial derivatives; the limit for tape diff is 200")
    style = "latex" if latex else ("pretty" if fmt is output.Format.table else "plain")
    results = run_limited(_differentiate, target.trees[0], sizes, wrt_names, keys, style,
                          timeout=timeout, what="symbolic differentiation", consequence="")
    ordinary = len(comps) == 1
    labels = [c.name for c in comps] if order == 1 else \
        [derivative_labels(comps, k, ordinary)[0] for k in keys]
    _print(expression, wrt_names, order, labels, results, fmt, ordinary)


def _differentiate(tree, sizes, wrt, keys, style):
    """In the child: each distinct partial, tidied and rendered in ``style``."""
    from .. import symbolic as S

    f = S.as_scalar(S.to_sympy(tree, sizes))
    comps = S.component_symbols(wrt, sizes)
    return [S.render(S.tidy(S.derivative(f, [comps[i] for i in key])), style) for key in keys]


def _print(expression, wrt, order, labels, results, fmt, single) -> None:
    out = sys.stdout
    if fmt is output.Format.json:
        derivative = results[0] if single else dict(zip(labels, results))
        out.write(json.dumps({"expression": expression, "wrt": wrt, "order": order,
                              "derivative": derivative}, ensure_ascii=False) + "\n")
    elif fmt is output.Format.csv:
        import csv

        writer = csv.writer(out, lineterminator="\n")
        writer.writerow(["wrt", "derivative"])
        writer.writerows(zip(labels, results))
    elif single:
        out.write(results[0] + "\n")
    elif fmt is output.Format.table:
        for label, text in zip(labels, results):
            lines = text.splitlines() or [""]
            if len(lines) == 1:
                out.write(f"{label}: {lines[0]}\n")
            else:
                out.write(f"{label}:\n" + "".join(f"  {line}\n" for line in lines))
    else:
        out.write("".join(f"{label}: {text}\n" for label, text in zip(labels, results)))
    out.flush()
