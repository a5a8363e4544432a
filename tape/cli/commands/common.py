"""What grad, jacobian and hessian share: options, reading targets and points, labels."""
from __future__ import annotations

import sys
from typing import Annotated, Optional

import numpy as np
import typer

from .. import points as P
from ..compute import Component, components
from ..errors import CLIError
from ..record import Record
from ..targets import Target, declared_names, make_target

AtOption = Annotated[Optional[list[str]], typer.Option(
    "--at", "-a", metavar="POINT",
    help="Point: 0.5, x=1,y=2, 1,2 (variable order) or x=[1,2,3]; '-' reads one point per "
         "line from standard input. Repeat for several points.")]
PointsOption = Annotated[Optional[str], typer.Option(
    "--points", "-p", metavar="FILE",
    help="CSV file whose header names the variables (extra columns ignored); '-' for stdin.")]
WrtOption = Annotated[Optional[str], typer.Option(
    "--wrt", "-w", metavar="VARS",
    help="Comma-separated variables to differentiate, in this order; others stay constant.")]

#: refuse to compute more distinct partial derivatives than this per point
MAX_PARTIALS = 10_000


class Problem(Record):
    """A command's parsed input: the target, variable order, wrt, points and components."""

    _fields = ("target", "variables", "wrt", "points", "comps", "output")

    def __init__(self, target: Target, variables: list[str], wrt: list[str],
                 points: P.Points, comps: list[Component], output: Optional[int]) -> None:
        self.target = target
        self.variables = variables
        self.wrt = wrt
        self.points = points
        self.comps = comps
        self.output = output        # None: one scalar output; m: m output components


def prepare(texts: list[str], at: Optional[list[str]], points_file: Optional[str],
            wrt_text: Optional[str], vector: bool = False) -> Problem:
    """Parse TARGET(s), --wrt and the points; check names and shapes (exit 2 on problems)."""
    target = make_target(texts, vector=vector,
                         declared=declared_names(at, wrt_text, points_file))
    wrt = parse_wrt(wrt_text) or ([target.wrt_hint] if target.wrt_hint else [])
    variables = target.ordered(wrt)
    if at and points_file:
        raise CLIError("give the points with --at or with --points, not both")
    if at:
        pts = P.from_at(at, variables, sys.stdin)
    elif points_file:
        try:
            pts = P.from_csv(points_file, variables, sys.stdin)
        except UnicodeDecodeError as exc:   # bad input, not a bug in tape (was exit 70)
            raise CLIError(f"--points {points_file}: not UTF-8 text ({exc.reason} at byte "
                           f"{exc.start})") from None
    elif variables:
        raise CLIError(f"the target has variables ({', '.join(variables)}): say where to "
                       f"evaluate with --at or --points")
    else:
        pts = P.Points([], {}, 1)
    sizes = pts.sizes()
    output = target.output_shape(sizes)
    comps = components(variables, wrt or variables, sizes)
    return Problem(target, variables, wrt or list(variables), pts, comps, output)


def parse_wrt(text: Optional[str]) -> list[str]:
    """``"x,y"`` -> ``["x", "y"]`` (empty or None: all variables)."""
    if text is None:
        return []
    names = [n.strip() for n in text.split(",")]
    if not all(names):
        raise CLIError(f"--wrt: {text!r} is not a comma-separated list of names")
    return names


def at_columns(problem: Problem) -> tuple[list[str], np.ndarray]:
    """The point's coordinates as labelled columns (vectors flattened: x[0], x[1], ...)."""
    labels, columns = [], []
    for name in problem.variables:
        a = problem.points.arrays[name]
        if a.ndim == 1:
            labels.append(name)
            columns.append(a[:, None])
        else:
            labels.extend(f"{name}[{i}]" for i in range(a.shape[1]))
            columns.append(a)
    n = problem.points.count
    return labels, (np.concatenate(columns, axis=1) if columns else np.zeros((n, 0)))


def json_at(points: P.Points) -> dict:
    """A point's ``"at"`` in a streamed JSON entry: a Column per scalar variable, a list of
    Columns per vector variable (what ``Points.all_at`` gives for each point)."""
    from ..jsonstream import Column   # json is imported only to write JSON

    return {n: Column(a) if a.ndim == 1 else [Column(a[:, k]) for k in range(a.shape[1])]
            for n, a in ((n, points.arrays[n]) for n in points.names)}


def json_head(problem: Problem, **more) -> dict:
    """The keys every grad/jacobian/hessian document starts with."""
    return {"expression": problem.target.source, "variables": problem.variables,
            "wrt": problem.wrt, **more}


def title(command: str, target: Target) -> str:
    """The table title: the command and the target as given."""
    source = target.source
    shown = "[" + ", ".join(source) + "]" if isinstance(source, list) else source
    return f"tape {command} {shown}"


_SUPERSCRIPT = str.maketrans("0123456789", "⁰¹²³⁴⁵⁶⁷⁸⁹")


def superscript(n: int) -> str:
    """``2`` -> ``²`` (``1`` -> empty: no exponent shown)."""
    return "" if n == 1 else str(n).translate(_SUPERSCRIPT)


def derivative_labels(comps: list[Component], key: tuple, ordinary: bool,
                      f: str = "f") -> tuple[str, str]:
    """(CSV name, table name) of the partial ``key`` (a multiset of component indices).

    ``ordinary``: one scalar variable, so ``d2f/dx2`` / ``d²f/dx²`` rather than ``∂``.
    """
    order = len(key)
    runs: list[tuple[str, int]] = []
    for i in key:
        label = comps[i].label
        if runs and runs[-1][0] == label:
            runs[-1] = (label, runs[-1][1] + 1)
        else:
            runs.append((label, 1))
    n_csv = "" if order == 1 else str(order)
    csv_name = f"d{n_csv}{f}/" + "".join(f"d{lab}{'' if k == 1 else k}" for lab, k in runs)
    d = "d" if ordinary else "∂"
    table_name = (f"{d}{superscript(order)}{f}/"
                  + "".join(f"{d}{lab}{superscript(k)}" for lab, k in runs))
    return csv_name, table_name


def check_partial_count(n_components: int, order: int) -> None:
    """Refuse requests whose number of distinct partials would be unreasonable."""
    from math import comb

    count = comb(n_components + order - 1, order)
    if count > MAX_PARTIALS:
        raise CLIError(f"--order {order} with {n_components} components asks for {count} "
                       f"distinct partial derivatives; the limit is {MAX_PARTIALS}")
