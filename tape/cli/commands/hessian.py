"""``tape hessian``: the matrix of second derivatives of a scalar target."""
from __future__ import annotations

from typing import Annotated

import numpy as np
import typer

from .. import evaluate, output
from ..compute import multisets
from ..errors import CLIError
from ..crosscheck import (ATOL, RTOL, TIMEOUT, AtolOption, CheckOption, CheckSettings, Layout,
                          RtolOption, TimeoutOption, finish)
from .common import (AtOption, PointsOption, Problem, WrtOption, at_columns,
                     check_partial_count, derivative_labels, json_at, json_head, prepare,
                     title)


def hessian(
    target: Annotated[str, typer.Argument(
        metavar="TARGET",
        help="A scalar expression such as 'x**2*y' or a script path.py[:function].")],
    at: AtOption = None,
    points: PointsOption = None,
    wrt: WrtOption = None,
    fmt: output.FormatOption = output.Format.auto,
    precision: output.PrecisionOption = 6,
    check: CheckOption = False,
    rtol: RtolOption = RTOL,
    atol: AtolOption = ATOL,
    timeout: TimeoutOption = TIMEOUT,
) -> None:
    """Hessian of TARGET at each point: rows and columns in --wrt order."""
    fmt = output.resolve_format(fmt)
    problem = prepare([target], at, points, wrt)
    if problem.output is not None:
        raise CLIError(f"hessian needs a scalar target; {target!r} has {problem.output} "
                       f"components")
    check_partial_count(len(problem.comps), 2)
    outcome = evaluate.run(problem.target, problem.points, problem.variables, problem.comps,
                           "partials", 2, output.progress_wanted(fmt))
    if outcome.value.ndim != 1:
        raise CLIError(f"hessian needs a scalar function; {target} returns "
                       f"{outcome.value.shape[1]} values per point")
    finish(hessian_report(problem, outcome), problem, Layout.for_hessian(problem.comps),
           CheckSettings(check, rtol, atol, timeout), fmt, precision)


def hessian_matrix(outcome: evaluate.Outcome, d: int, n: int) -> np.ndarray:
    """The (N, d, d) Hessians, filled symmetrically from the distinct partials."""
    h = np.zeros((n, d, d))
    for i, j in multisets(d, 2):
        h[:, i, j] = h[:, j, i] = outcome.partials[(i, j)]
    return h


def hessian_report(problem: Problem, outcome: evaluate.Outcome) -> output.Report:
    """Labels, columns (row-major entries) and the JSON document for hessian's result."""
    comps = problem.comps
    d, n = len(comps), problem.points.count
    h = hessian_matrix(outcome, d, n)
    names = [derivative_labels(comps, (i, j), False) for i in range(d) for j in range(d)]
    at_labels, at_matrix = at_columns(problem)
    labels = [c.label for c in comps]

    def document():
        from ..jsonstream import Column, Document

        entry = {"at": json_at(problem.points), "value": Column(outcome.value),
                 "hessian": [[Column(h[:, i, j]) for j in range(d)] for i in range(d)]}
        return Document(json_head(problem), entry, n)

    return output.Report(
        title=title("hessian", problem.target), at_labels=at_labels, at=at_matrix,
        value_labels=["value"], value=outcome.value.reshape(n, 1),
        derivative_labels=[c for c, _ in names], table_labels=[t for _, t in names],
        derivatives=h.reshape(n, d * d), document=document, matrix=(labels, labels),
        notes=outcome.warnings)
