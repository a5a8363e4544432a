"""``tape jacobian``: the Jacobian of several expressions, a bracketed list, or a script
function returning a vector."""
from __future__ import annotations

from typing import Annotated

import typer

from .. import evaluate, output
from ..crosscheck import (ATOL, RTOL, TIMEOUT, AtolOption, CheckOption, CheckSettings, Layout,
                          RtolOption, TimeoutOption, finish)
from .common import (AtOption, PointsOption, Problem, WrtOption, at_columns, json_at,
                     json_head, prepare, title)


def jacobian(
    targets: Annotated[list[str], typer.Argument(
        metavar="TARGET...",
        help="Expressions ('x*y' 'x+y'), one bracketed list '\\[x*y, x+y]', or a script "
             "path.py[:function] returning a vector.")],
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
    """Value and Jacobian of TARGET(s) at each point: one row per output, one column per
    --wrt component."""
    fmt = output.resolve_format(fmt)
    problem = prepare(targets, at, points, wrt, vector=True)
    outcome = evaluate.run(problem.target, problem.points, problem.variables, problem.comps,
                           "jacobian", show_progress=output.progress_wanted(fmt))
    report = jacobian_report(problem, outcome)
    finish(report, problem, Layout.for_jacobian(problem.comps, report.value.shape[1]),
           CheckSettings(check, rtol, atol, timeout), fmt, precision)


def output_labels(problem: Problem, m: int) -> list[str]:
    """Names of the outputs: f1, f2, ... (f for a single output)."""
    return ["f"] if m == 1 else [f"f{i + 1}" for i in range(m)]


def jacobian_report(problem: Problem, outcome: evaluate.Outcome) -> output.Report:
    """Labels, columns (row-major entries) and the JSON document for jacobian's result."""
    value = outcome.value if outcome.value.ndim == 2 else outcome.value[:, None]
    n, m = value.shape
    comps = problem.comps
    outs = output_labels(problem, m)
    csv_names = [f"d{f}/d{c.label}" for f in outs for c in comps]
    table_names = [f"∂{f}/∂{c.label}" for f in outs for c in comps]
    at_labels, at_matrix = at_columns(problem)
    jac = outcome.jacobian

    def document():
        from ..jsonstream import Column, Document

        d = len(comps)
        entry = {"at": json_at(problem.points),
                 "value": [Column(value[:, o]) for o in range(m)],
                 "jacobian": [[Column(jac[:, o, j]) for j in range(d)] for o in range(m)]}
        return Document(json_head(problem), entry, n)

    return output.Report(
        title=title("jacobian", problem.target), at_labels=at_labels, at=at_matrix,
        value_labels=["value"] if m == 1 else [f"value[{i}]" for i in range(m)], value=value,
        derivative_labels=csv_names, table_labels=table_names,
        derivatives=jac.reshape(n, m * len(comps)), document=document,
        matrix=(outs, [c.label for c in comps]), notes=outcome.warnings)
