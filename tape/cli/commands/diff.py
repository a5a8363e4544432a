"""``tape diff``: the symbolic derivative of an expression (SymPy), simplified.

On a terminal the derivative is pretty-printed; piped, it is one line of plain text (several
variables: one ``x: 2*x*y`` line each); ``--latex`` gives LaTeX in every format; JSON is
``{"expression", "wrt", "order", "derivative"}`` with a dict for several variables.
"""
from __future__ import annotations

import json
import sys
import time
from typing import Annotated

import typer

from .. import output
from ..crosscheck import TIMEOUT, TimeoutOption
from ..errors import CLIError
from ..timelimit import run_limited, run_optional
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
    steps: Annotated[bool, typer.Option(
        "--steps", help="Show the derivation rule by rule, every step checked by the engine "
                        "(e.g. tape diff 'x^2*sin(x)' --steps).")] = False,
) -> None:
    """Symbolic derivative of EXPR (SymPy), simplified into a readable form."""
    from ..compute import components, multisets
    from ..symbolic import infer_sizes
    from ..targets import expression_target

    fmt = output.resolve_format(fmt)
    target = expression_target(expression)
    names = parse_wrt(wrt)
    variables = target.ordered(names)
    wrt_names = names or list(variables)
    if not wrt_names:
        raise CLIError(f"{expression!r} has no variables to differentiate by")
    sizes = infer_sizes(target.trees[0])
    if steps:
        from ..mathtext import print_steps
        return print_steps(expression, target.trees[0], wrt_names, order, fmt, latex, timeout)
    comps = components(variables, wrt_names, sizes)
    keys = multisets(len(comps), order)
    if len(keys) > 200:
        raise CLIError(f"--order {order} with {len(comps)} variables asks for {len(keys)} "
                       f"partial derivatives; the limit for tape diff is 200")
    style = "latex" if latex else ("pretty" if fmt is output.Format.table else "plain")
    deadline = time.monotonic() + timeout
    job = (target.trees[0], sizes, wrt_names, keys, style)
    raw = run_limited(_differentiate, *job, False, timeout=timeout,
                      what="symbolic differentiation", consequence="")
    results = run_optional(deadline, _differentiate, *job, True)
    if results is None:
        output.warn(f"simplifying did not finish in {timeout:g} s; the derivative is shown "
                    f"as differentiated")
        results = raw
    ordinary = len(comps) == 1
    labels = [c.label for c in comps] if order == 1 else \
        [derivative_labels(comps, k, ordinary)[0] for k in keys]
    if fmt is output.Format.json:
        document = results[0] if ordinary else (
            _by_variable(comps, results) if order == 1 else dict(zip(labels, results)))
        sys.stdout.write(json.dumps({"expression": expression, "wrt": wrt_names,
                                     "order": order, "derivative": document},
                                    ensure_ascii=False) + "\n")
        return
    _print(labels, results, fmt, ordinary)


def _by_variable(comps, results) -> dict:
    """``{"x": "...", "w": ["...", "..."]}``: a vector variable's components as a list."""
    out: dict = {}
    for c, text in zip(comps, results):
        if c.index is None:
            out[c.name] = text
        else:
            out.setdefault(c.name, []).append(text)
    return out


def _differentiate(tree, sizes, wrt, keys, style, tidy):
    """In a child: each distinct partial (``tidy``: in a readable form), rendered in
    ``style``."""
    from .. import symbolic as S

    f = S.as_scalar(S.to_sympy(tree, sizes))
    comps = S.component_symbols(wrt, sizes)
    out = []
    for key in keys:
        d = S.derivative(f, [comps[i] for i in key])
        out.append(S.render(S.tidy(d) if tidy else d, style))
    return out


def _print(labels, results, fmt, single) -> None:
    out = sys.stdout
    if fmt is output.Format.csv:
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
