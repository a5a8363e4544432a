"""``tape grad``: the value and gradient (or N-th order derivatives) of a scalar target."""

# (no ``from __future__ import annotations`` here: Typer reads this module's command
# signatures at every start, and string annotations would be evaluated each time)
from typing import Annotated

import numpy as np
import typer

from .. import evaluate, output
from ..compute import multisets
from ..errors import CLIError
from ..checkoptions import (ATOL, RTOL, TIMEOUT, AtolOption, CheckOption, RtolOption,
                            TimeoutOption)
from .common import (AtOption, PointsOption, Problem, WrtOption, at_columns,
                     check_partial_count, derivative_labels, json_at, json_head, prepare,
                     title)

#: highest --order accepted (nested tapes grow quickly with the order)
MAX_ORDER = 10


def grad(
    target: Annotated[str, typer.Argument(
        metavar="TARGET",
        help="An expression such as '2*x**3+4*x**2' or a script path.py[:function].")],
    at: AtOption = None,
    points: PointsOption = None,
    wrt: WrtOption = None,
    order: Annotated[int, typer.Option(
        "--order", "-n", min=1, max=MAX_ORDER,
        help="Derivative order: one variable gives the N-th derivative; several give "
             "every distinct N-th order partial.")] = 1,
    fmt: output.FormatOption = output.Format.auto,
    precision: output.PrecisionOption = 6,
    check: CheckOption = False,
    rtol: RtolOption = RTOL,
    atol: AtolOption = ATOL,
    timeout: TimeoutOption = TIMEOUT,
) -> None:
    """Value and gradient of TARGET at each point (higher orders with --order)."""
    fmt = output.resolve_format(fmt)
    problem = prepare([target], at, points, wrt)
    if problem.output is not None:
        raise CLIError(f"grad needs a scalar target; {target!r} has {problem.output} "
                       f"components (use tape jacobian)")
    check_partial_count(len(problem.comps), order)
    outcome = evaluate.run(problem.target, problem.points, problem.variables, problem.comps,
                           "partials", order, output.progress_wanted(fmt))
    if outcome.value.ndim != 1:
        raise CLIError(f"grad needs a scalar function; {target} returns "
                       f"{outcome.value.shape[1]} values per point (use tape jacobian)")
    report = gradient_report(problem, outcome, order)
    if not check:   # what crosscheck.finish does without --check, without importing it
        output.render(report, fmt, precision)
        return
    from ..crosscheck import CheckSettings, Layout, finish

    finish(report, problem, Layout.for_grad(problem.comps, order),
           CheckSettings(check, rtol, atol, timeout), fmt, precision)


def gradient_report(problem: Problem, outcome: evaluate.Outcome, order: int) -> output.Report:
    """Labels, columns and the JSON document for grad's result."""
    comps = problem.comps
    keys = multisets(len(comps), order) if comps else []
    ordinary = len(problem.variables) == 1 and len(comps) == 1
    names = [derivative_labels(comps, k, ordinary) for k in keys]
    n = problem.points.count
    derivs = (np.stack([outcome.partials[k] for k in keys], axis=1) if keys
              else np.zeros((n, 0)))
    at_labels, at_matrix = at_columns(problem)

    def document():
        from ..jsonstream import Column, Document

        columns = {k: Column(outcome.partials[k]) for k in keys}
        entry = {"at": json_at(problem.points), "value": Column(outcome.value)}
        if order == 1:
            entry["gradient"] = _gradient_entry(comps, columns, keys)
        elif len(comps) == 1:
            entry["derivative"] = columns[keys[0]]
        else:
            entry["partials"] = [{"wrt": [comps[j].label for j in k], "value": columns[k]}
                                 for k in keys]
        return Document(json_head(problem, order=order), entry, n)

    return output.Report(
        title=title("grad", problem.target), at_labels=at_labels, at=at_matrix,
        value_labels=["value"], value=outcome.value.reshape(n, 1),
        derivative_labels=[c for c, _ in names], table_labels=[t for _, t in names],
        derivatives=derivs, document=document, notes=outcome.warnings)


def _gradient_entry(comps: list, columns: dict, keys: list) -> dict:
    """A point's ``{"x": 4.0, "w": [1.0, 2.0]}``: one entry per wrt variable, in order,
    vectors as lists (here as Columns, filled in per point when written)."""
    out: dict = {}
    for key in keys:
        c = comps[key[0]]
        if c.index is None:
            out[c.name] = columns[key]
        else:
            out.setdefault(c.name, []).append(columns[key])
    return out
