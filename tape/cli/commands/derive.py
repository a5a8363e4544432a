"""What grad, jacobian and hessian share: one routine (``derive``) from the parsed options to
the rendered report, and the pieces it is built from (reading targets and points, labels)."""
from __future__ import annotations

import inspect
import itertools
import math
import sys
from typing import Callable, Iterable, Iterator, Optional, Union

import numpy as np

from .. import options as O, output, points as P
from ...calculus.budget import Budget, from_option
from ...calculus.derivatives import (Component, Outcome, StreamedMatrix, components,
                                     digits_warning, refuse_too_many_partials, run)
from ...expr.kinks import kink_notes
from ..options import Format
from ...expr.errors import CHECK_FAILED, UNDECIDED, CLIError
from ...expr.printer import superscript
from ...expr.record import Record
from ...calculus.targets import Target, declared_names, make_target, parse_wrt
from ..process import script_code

#: refuse to compute more distinct partial derivatives than this per point
MAX_PARTIALS = 10_000


class Problem(Record):
    """A command's parsed input: the target, variable order, wrt, points and components."""

    _fields = ("target", "variables", "wrt", "points", "comps", "output", "sizes")

    def __init__(self, target: Target, variables: list[str], wrt: list[str],
                 points: P.Points, comps: list[Component], output: Optional[int],
                 sizes: dict) -> None:
        self.target = target
        self.variables = variables
        self.wrt = wrt
        self.points = points
        self.comps = comps
        self.output = output        # None: one scalar output; m: m output components
        # each variable's vector length (None: scalar), the same at every point
        self.sizes = sizes


class Request(Record):
    """What the user asked ``grad``, ``jacobian`` or ``hessian`` for, as the options say."""

    _fields = ("command", "texts", "at", "points", "wrt", "order", "fmt", "precision",
               "check", "rtol", "atol", "timeout", "memory", "on_error")

    def __init__(self, command: str, texts: list[str], at, points, wrt, order: int,
                 fmt: Format, precision: int, check: bool, rtol: float, atol: float,
                 timeout: float, memory: Optional[int] = None,
                 on_error: O.OnError = O.OnError.stop) -> None:
        self.command = command
        self.texts = texts
        self.at = at
        self.points = points
        self.wrt = wrt
        self.order = order
        self.fmt = fmt
        self.precision = precision
        self.check = check
        self.rtol = rtol
        self.atol = atol
        self.timeout = timeout
        self.memory = memory
        self.on_error = on_error


#: the options grad, jacobian and hessian share, in help order: (name, type, default);
#: "order" is taken only by the commands that let the user choose it
SHARED_OPTIONS = [("at", O.AtOption, None), ("points", O.PointsOption, None),
                  ("wrt", O.WrtOption, None), ("order", O.GradOrderOption, 1),
                  ("fmt", O.FormatOption, O.Format.auto), ("precision", O.PrecisionOption, 6),
                  ("check", O.CheckOption, False), ("rtol", O.RtolOption, O.RTOL),
                  ("atol", O.AtolOption, O.ATOL), ("timeout", O.TimeoutOption, O.TIMEOUT),
                  ("memory", O.MemoryOption, None),
                  ("on_error", O.OnErrorOption, O.OnError.stop)]


#: ``--implicit`` and ``--dependent``, for the commands that differentiate along a curve
IMPLICIT_OPTIONS = [("implicit", O.ImplicitOption, False),
                    ("dependent", O.DependentOption, O.DEPENDENT)]


def derivative_command(name: str, target, help: str, order: Optional[int] = None,
                       implicit: bool = False):
    """The command function of ``grad``, ``jacobian`` or ``hessian``: TARGET (of type
    ``target``; a list for several) and ``SHARED_OPTIONS``, with ``--order`` unless the
    command's ``order`` is fixed, and ``IMPLICIT_OPTIONS`` when ``implicit``. Typer reads the
    signature set here."""

    def command(**values) -> None:
        texts = values.pop("target")
        values.setdefault("order", order)
        along_curve = values.pop("implicit", False)
        dependent = values.pop("dependent", O.DEPENDENT)
        if along_curve:
            return implicit_slopes(texts, dependent, Request(name, [texts], **values))
        if dependent != O.DEPENDENT:
            output.abort("--dependent goes with --implicit")
        derive(Request(name, texts if isinstance(texts, list) else [texts], **values))

    keyword = inspect.Parameter.KEYWORD_ONLY
    options = SHARED_OPTIONS + (IMPLICIT_OPTIONS if implicit else [])
    params = [inspect.Parameter("target", keyword, annotation=target)] + [
        inspect.Parameter(n, keyword, annotation=t, default=d) for n, t, d in options
        if not (n == "order" and order is not None)]
    command.__signature__ = inspect.Signature(params)
    command.__annotations__ = {p.name: p.annotation for p in params}
    command.__name__ = command.__qualname__ = name
    command.__doc__ = help
    return command


def derive(request: Request) -> None:
    """Read, plan, differentiate at every point, build the report, check it if asked, render.

    ``grad`` and ``hessian`` take partials of one order (``hessian``: 2) of a scalar target;
    ``jacobian`` takes first derivatives of a vector target. Each step is entered once, in
    this order: ``prepare_blocks`` reads the target, the first block of points and the
    shapes; ``plan`` checks the request and decides the format and the blocks; then each
    block is differentiated, reported and written as the output asks for it (an endless
    ``--at -`` is answered as it comes), except for a terminal table and ``--check``, which
    need every point first.
    """
    vector = request.command == "jacobian"
    mode = "partials" if request.command == "grad" else request.command     # derivatives.run's
    # asked only when points remain to be read after the first block
    problem, more = prepare_blocks(
        request.texts, request.at, request.points, request.wrt, vector=vector,
        whole=lambda: output.needs_whole(output.resolve_format(request.fmt), request.check),
        on_error=O.OnError(request.on_error).value)
    fmt, show_progress, budget, blocks = plan(request, problem, more)
    streamed = not output.needs_whole(fmt, request.check)
    bar = (lambda total, what: output.progress(total, what, True)) if show_progress else None

    def report_of(points: P.Points) -> output.Report:
        block = problem if points is problem.points else \
            Problem(problem.target, problem.variables, problem.wrt, points, problem.comps,
                    problem.output, problem.sizes)
        outcome = run(block.target, block.points, block.variables, block.comps, mode,
                      request.order, bar, budget, streamed, block.sizes)
        unread = sorted(getattr(block.points, "errors", ()))
        if unread:
            _unread_rows(block.points, outcome, unread)
        if not vector and outcome.value.ndim != 1:
            _require_scalar(request, math.prod(outcome.value.shape[1:]), "function",
                            "values per point")
        if outcome.digits:
            outcome.warnings.append(digits_note(block, outcome))
        if block.comps:
            outcome.warnings += kink_notes(block.target.trees, block.target.orders,
                                           block.variables,
                                           [block.points.arrays[n] for n in block.variables])
        return REPORTS[request.command](block, outcome, request.order)

    if streamed:
        output.render_stream(map(report_of, blocks), fmt)
        return
    count, width = problem.points.count, _report_width(request, problem)
    budget.require(REPORT_BYTES_PER_NUMBER * width * count,
                   f"a report of {width:,} numbers at each of {count:,} "
                   f"point{'s' if count != 1 else ''}",
                   "--format plain, csv or json print it a block at a time"
                   if not request.check else
                   "--check holds the whole report: check fewer points or components (--wrt) "
                   "at once")
    report = report_of(problem.points)
    if not request.check:   # what crosscheck.finish does without --check, without importing it
        output.render(report, fmt, request.precision)
    else:
        from ...grading.crosscheck import CheckSettings, Layout

        finish(report, problem, Layout.for_report(request.command, problem.comps,
                                                  request.order, report.value.shape[1]),
               CheckSettings(True, request.rtol, request.atol, request.timeout), fmt,
               request.precision)
    for _ in more or ():    # the stop at a bad line, if the points ended there
        pass


def _unread_rows(points: P.Block, outcome: Outcome, rows: list[int]) -> None:
    """nan in every result of the ``rows`` of lines that could not be read (``--on-error
    nan``: a stand-in point was computed there), and in their coordinates."""
    def blank(a):
        a = np.array(a, dtype=np.float64)
        a[rows] = np.nan
        return a

    for name in points.names:
        points.arrays[name] = blank(points.arrays[name])
    outcome.value = blank(outcome.value)
    outcome.partials = {k: blank(v) for k, v in outcome.partials.items()}
    if isinstance(outcome.jacobian, np.ndarray):
        outcome.jacobian = blank(outcome.jacobian)
    outcome.digits = {k: blank(v) for k, v in outcome.digits.items()}
    if len(rows) == points.count:       # only stand-ins: what the engine said is of none
        outcome.warnings, outcome.digits = [], {}


def plan(request: Request, problem: Problem, more) -> tuple[Format, bool, Budget,
                                                             Iterable[P.Points]]:
    """Everything decided before the work, in one step and in this order: the warning for a
    target without variables; the refusals of a vector target (``grad``, ``hessian``) and of
    too many partials (exit 2); the memory budget; the points of one block (as many as the
    budget holds the report of) and the blocks; the output format and whether to draw
    progress bars. Returns (format, progress, budget, blocks)."""
    if not problem.comps:
        output.warn(f"{', '.join(request.texts)} has no variables: there are no derivatives, "
                    f"only its value (shown by --format json or table)")
    if request.command != "jacobian":
        _require_scalar(request, problem.output, "target", "components")
    if request.command == "grad":       # a Hessian's size is checked against the budget
        refuse_too_many_partials(len(problem.comps), request.order, MAX_PARTIALS)
    width = _report_width(request, problem)
    budget = from_option(request.memory)
    most = budget.per_pass(REPORT_BYTES_PER_NUMBER * width, P.STREAM_BLOCK)
    blocks = P.blocks_of(problem.points, more, most)
    return (*output.plan(request.fmt), budget, blocks)


#: bytes a report takes per number it shows (the partials, their stacked copy, the report's
#: arrays, the text), to size blocks of points
REPORT_BYTES_PER_NUMBER = 96


def _report_width(request: Request, problem: Problem) -> int:
    """Numbers per point in the report: the point, the value(s) and the derivatives (a script's
    output count is not known yet: taken as 1, and the Jacobian itself checks its size)."""
    d = len(problem.comps)
    if request.command == "jacobian":
        derivatives = (problem.output or 1) * d
    elif request.command == "hessian":
        derivatives = d * d
    else:
        derivatives = math.comb(d + request.order - 1, request.order) if d else 0
    coordinates = sum(1 if k is None else k for k in problem.sizes.values())
    return coordinates + (problem.output or 1) + derivatives


def _require_scalar(request: Request, count, what: str, unit: str) -> None:
    if count is None:
        return
    shown = repr(request.texts[0]) if what == "target" else request.texts[0]
    advice = " (use tape jacobian)" if request.command == "grad" else ""
    output.abort(f"{request.command} needs a scalar {what}; {shown} "
                 f"{'has' if what == 'target' else 'returns'} {count} {unit}{advice}")


def prepare(texts: list[str], at: Optional[list[str]], points_file: Optional[str],
            wrt_text: Optional[str], vector: bool = False) -> Problem:
    """Parse TARGET(s), --wrt and every point; check names and shapes (exit 2 on problems)."""
    return prepare_blocks(texts, at, points_file, wrt_text, vector, whole=True)[0]


def prepare_blocks(texts: list[str], at: Optional[list[str]], points_file: Optional[str],
                   wrt_text: Optional[str], vector: bool = False,
                   whole: Union[bool, Callable[[], bool]] = False, on_error: str = P.STOP
                   ) -> tuple[Problem, Optional[Iterator[P.Points]]]:
    """Parse TARGET(s), --wrt and the first block of points (``whole``: all of them; a
    callable is asked only when points remain to be read); check names and shapes (exit 2 on
    problems). Returns the problem of the first block and the blocks still to read (None:
    none)."""
    target = make_target(texts, vector=vector,
                         declared=declared_names(at, wrt_text, points_file), fence=script_code)
    wrt = target.wrt_names(wrt_text)
    variables = target.ordered(wrt)
    pts, more, where = P.from_options(at, points_file, variables, sys.stdin, on_error)
    if more is not None and (whole() if callable(whole) else whole):
        stopped: list = []
        pts = P.gather(itertools.chain([pts], more), variables, where, stopped)
        # a stop at a bad line (--on-error stop) is raised once the points before it are shown
        more = None if not stopped else P.raising(stopped[0])
    sizes = pts.sizes()
    shape = target.output_shape(sizes, variables)
    comps = components(variables, wrt or variables, sizes)
    return Problem(target, variables, wrt or list(variables), pts, comps, shape, sizes), more


# ====================================================================== the three reports
def gradient_report(problem: Problem, outcome: Outcome, order: int) -> output.Report:
    """grad: the value and every distinct partial of ``order`` (order 1: the gradient)."""
    comps = problem.comps
    keys = list(outcome.partials)       # every distinct partial, in ``multisets`` order
    ordinary = len(problem.variables) == 1 and len(comps) == 1
    names = [derivative_labels(comps, k, ordinary) for k in keys]
    n = problem.points.count
    derivs = (np.stack([outcome.partials[k] for k in keys], axis=1) if keys
              else np.zeros((n, 0)))

    def entry(Column):
        columns = {k: Column(outcome.partials[k]) for k in keys}
        point = {"value": Column(outcome.value)}
        if order == 1:
            point["gradient"] = by_variable(comps, [columns[k] for k in keys])
        elif len(comps) == 1:
            point["derivative"] = columns[keys[0]]
            point.update(_digits_entry(outcome, keys[0]))
        else:
            point["partials"] = [{"wrt": [comps[j].label for j in k], "value": columns[k],
                                  **_digits_entry(outcome, k)} for k in keys]
        return point

    return _report("grad", problem, outcome, entry, {"order": order},
                   value=outcome.value.reshape(n, 1), value_labels=["value"],
                   derivative_labels=[c for c, _ in names], table_labels=[t for _, t in names],
                   derivatives=derivs)


def _digits_entry(outcome: Outcome, key: tuple) -> dict:
    """The JSON ``"digits"`` of the partial ``key``, at the points where it has fewer
    estimated correct digits than its estimated error trusts (none elsewhere)."""
    if key not in outcome.digits:
        return {}
    from ..jsonstream import Sparse

    return {"digits": Sparse(outcome.digits[key])}


def digits_note(problem: Problem, outcome: Outcome) -> str:
    """The warning for derivatives with fewer correct digits than printed (``outcome.digits``):
    the one with the fewest, by its table label and (several points) its point, and how many
    numbers are so."""
    ordinary = len(problem.variables) == 1 and len(problem.comps) == 1

    def label(key, row: int) -> str:
        text = derivative_labels(problem.comps, key, ordinary)[1]
        if problem.points.count > 1:
            labels, at = at_columns(problem)
            text += " at " + ", ".join(f"{n}={output.number(v)}"
                                      for n, v in zip(labels, at[row].tolist()))
        return text

    return digits_warning(outcome.digits, label)


def hessian_report(problem: Problem, outcome: Outcome, order: int = 2) -> output.Report:
    """hessian: the value and the (N, d, d) symmetric matrices (one point's may be an
    ``StreamedMatrix``, written a block of rows at a time)."""
    comps = problem.comps
    d, n = len(comps), problem.points.count
    h = outcome.jacobian
    streamed = isinstance(h, StreamedMatrix)
    labels = [c.label for c in comps]

    def entry(Column):
        from ..jsonstream import Nested, Rows

        return {"value": Column(outcome.value), "hessian": Rows(h.blocks) if streamed
                else Nested(h)}

    return _report("hessian", problem, outcome, entry, {}, value=outcome.value.reshape(n, 1),
                   value_labels=["value"],
                   derivative_labels=output.LabelGrid("d2f/d{}d{}", labels, labels,
                                                      "d2f/d{}2"),
                   table_labels=output.LabelGrid("∂²f/∂{}∂{}", labels, labels, "∂²f/∂{}²"),
                   derivatives=h if streamed else h.reshape(n, d * d),
                   matrix=(labels, labels))


def jacobian_report(problem: Problem, outcome: Outcome, order: int = 1) -> output.Report:
    """jacobian: the m values and the (N, m, d) matrices, one row per output."""
    value = outcome.value if outcome.value.ndim == 2 else outcome.value[:, None]
    n, m = value.shape
    comps = problem.comps
    outs = ["f"] if m == 1 else [f"f{i + 1}" for i in range(m)]
    comp_labels = [c.label for c in comps]
    jac = outcome.jacobian
    streamed = isinstance(jac, StreamedMatrix)

    def entry(Column):
        from ..jsonstream import Nested, Rows

        return {"value": Nested(value), "jacobian": Rows(jac.blocks) if streamed else Nested(jac)}

    return _report("jacobian", problem, outcome, entry, {}, value=value,
                   value_labels=["value"] if m == 1 else [f"value[{i}]" for i in range(m)],
                   derivative_labels=output.LabelGrid("d{}/d{}", outs, comp_labels),
                   table_labels=output.LabelGrid("∂{}/∂{}", outs, comp_labels),
                   derivatives=jac if streamed else jac.reshape(n, m * len(comps)),
                   matrix=(outs, comp_labels))


#: the report of each command that ``derive`` serves
REPORTS = {"grad": gradient_report, "hessian": hessian_report, "jacobian": jacobian_report}


def _report(command: str, problem: Problem, outcome: Outcome, entry, head: dict,
            **columns) -> output.Report:
    """The parts every derivative report shares: the title, the point columns, the JSON
    document (its head, each point's ``at``, and ``entry(Column)``), the engine's notes."""
    at_labels, at_matrix = at_columns(problem)
    points = problem.points
    errors = getattr(points, "errors", None) or {}
    extra_names = getattr(points, "extra_names", ())
    extra = (extra_names, points.extra) if extra_names else None

    def document():
        from ..jsonstream import Column, Document, Sparse   # json is imported only for JSON

        point = {"at": json_at(points, Column)}
        if extra is not None:       # the CSV's other columns, as their texts
            point["columns"] = {name: Column(np.array([row[j] for row in extra[1]],
                                                      dtype=object))
                                for j, name in enumerate(extra_names)}
        point.update(entry(Column))
        if errors:
            messages = np.full(points.count, None, dtype=object)
            for row, message in errors.items():
                messages[row] = message
            point["error"] = Sparse(messages)
        return Document({"expression": problem.target.source, "variables": problem.variables,
                         "wrt": problem.wrt, **head}, point, points.count)

    return output.Report(title=title(command, problem.target), at_labels=at_labels,
                         at=at_matrix, document=document, notes=outcome.warnings,
                         target=problem.target, errors=errors, extra=extra, **columns)


def by_variable(comps: list[Component], values: list) -> dict:
    """``{"x": v, "w": [v0, v1]}``: one entry per wrt variable, in order, a vector variable's
    components as a list."""
    out: dict = {}
    for c, v in zip(comps, values):
        if c.index is None:
            out[c.name] = v
        else:
            out.setdefault(c.name, []).append(v)
    return out


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


def json_at(points: P.Points, Column) -> dict:
    """A point's ``"at"`` in a streamed JSON entry: a Column per scalar variable, a list of
    Columns per vector variable."""
    return {n: Column(a) if a.ndim == 1 else [Column(a[:, k]) for k in range(a.shape[1])]
            for n, a in ((n, points.arrays[n]) for n in points.names)}


def title(command: str, target: Target) -> str:
    """The table title: the command and the target as given."""
    source = target.source
    shown = "[" + ", ".join(source) + "]" if isinstance(source, list) else source
    return f"tape {command} {shown}"


def _exponent(n: int) -> str:
    """``2`` -> ``²``; ``1`` -> empty (no exponent shown)."""
    return "" if n == 1 else superscript(n)


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
    table_name = (f"{d}{_exponent(order)}{f}/"
                  + "".join(f"{d}{lab}{_exponent(k)}" for lab, k in runs))
    return csv_name, table_name


# ====================================================================== along a curve
class SlopeReport(output.FieldsResult):
    """``grad --implicit``: dy/dx (or d²y/dx²) on the curve at each point, by the engine."""

    _fields = ("expression", "curve", "order", "points", "slopes")
    reading = "curve"

    @property
    def label(self) -> str:
        c = self.curve
        return f"d{c.y}/d{c.x}" if self.order == 1 else f"d{self.order}{c.y}/d{c.x}{self.order}"

    def warnings(self) -> list[str]:
        bad = [i for i, s in enumerate(self.slopes) if not math.isfinite(s)]
        return [f"{self.label} is not finite at {len(bad)} point(s) (the tangent is vertical "
                f"where the derivative of the equation in {self.curve.y} is 0)"] if bad else []

    def document(self) -> dict:
        c = self.curve
        return {"expression": self.expression, "variables": c.variables, "wrt": [c.x],
                "dependent": c.y, "order": self.order,
                "points": [{"at": {c.x: x, c.y: y}, "derivative": s}
                           for (x, y), s in zip(self.points, self.slopes)]}

    def header(self) -> list[str]:
        return [self.curve.x, self.curve.y, self.label]

    def rows(self):
        yield [[output.number(x), output.number(y), output.number(s)]
               for (x, y), s in zip(self.points, self.slopes)]

    def lines(self):
        yield "".join(output.number(s) + "\n" for s in self.slopes)

    def draw(self, out, precision: int) -> None:
        c = self.curve
        out.write("".join(f"at {c.x} = {output.table_number(x, precision)}, {c.y} = "
                          f"{output.table_number(y, precision)}: {self.label} = "
                          f"{output.table_number(s, precision)}\n"
                          for (x, y), s in zip(self.points, self.slopes)))


def implicit_slopes(text: str, dependent: str, request: Request) -> None:
    """``grad EQUATION --implicit --at x=..,y=..``: the slope of the curve at points on it."""
    from ...calculus.implicit import curve_from_text, require_on_curve, slope_at

    fmt = output.resolve_format(request.fmt)
    if request.order > 2:
        output.abort("--implicit gives dy/dx (--order 1) or d2y/dx2 (--order 2)")
    if request.check or request.points:
        output.abort("--implicit takes its points with --at (--check and --points do not "
                     "apply to it)")
    names = parse_wrt(request.wrt)
    if len(names) > 1:
        output.abort("--implicit differentiates along one variable: give one name in --wrt")
    curve = curve_from_text(text, dependent, names[0] if names else None)
    if not request.at:
        output.abort(f"say where on the curve with --at {curve.x}=...,{curve.y}=...")
    points, slopes = [], []
    for at in request.at:
        if at.strip() == "-":
            output.abort("--implicit takes its points with --at (not from standard input)")
        point = P.parse_point(at, curve.variables)
        x, y = (float(np.ravel(point[n])[0]) for n in curve.variables)
        require_on_curve(curve, x, y)
        points.append((x, y))
        slopes.append(slope_at(curve, x, y, request.order))
    output.render(SlopeReport(text, curve, request.order, points, slopes), fmt,
                  request.precision)


# ---------------------------------------------------------------- --check: the verdict shown

def finish(report, problem, layout, settings, fmt,
           precision: int) -> None:
    """Render ``report`` (checked when ``settings.enabled``); abort with 1 on disagreement,
    3 when SymPy ran out of time (after rendering the numbers, which still stand)."""
    if not settings.enabled:
        output.render(report, fmt, precision)
        return
    from ...grading.crosscheck import check

    try:
        verdict = check(report, problem, layout, settings)
    except CLIError as exc:
        if exc.code == UNDECIDED:
            output.render(report, fmt, precision)
        raise
    _attach(report, layout, verdict)
    report.appendix = lambda console, digits: _draw_check(console, report, verdict, digits)
    output.render(report, fmt, precision)
    if verdict.kink_at:
        output.note(_kink_note(report, verdict))
    if verdict.failed.any():
        output.abort(_failure(report, verdict), CHECK_FAILED)


def _attach(report, layout, verdict) -> None:
    """Wrap the report's JSON document so it carries the check (SPEC's shapes)."""
    build = report.document

    def document():
        from ..jsonstream import Column

        doc = build()
        expected = [Column(verdict.expected[:, j]) for j in range(verdict.expected.shape[1])]
        doc.entry["check"] = {"method": verdict.method, "expected": layout.shape(expected),
                              "max_abs_error": Column(verdict.max_abs_error),
                              "agree": Column(verdict.agree)}
        if verdict.symbolic is not None:
            doc.tail["symbolic"] = layout.shape(list(verdict.symbolic))
        if verdict.kink_at:
            doc.tail["kinks"] = [{"point": i, "kink": name}
                                 for i, name in sorted(verdict.kink_at.items())]
        return doc

    report.document = document


def _where(report, row: int) -> str:
    return ", ".join(f"{lab}={v!r}" for lab, v in zip(report.at_labels,
                                                      report.at[row].tolist())) or "the only point"


def _difference(report, verdict, row: int) -> str:
    """The first derivative at point ``row`` on which tape and the check differ."""
    worst = int(np.argmin(verdict.entries[row]))
    other = "SymPy" if verdict.method == "sympy" else "finite differences"
    return (f"{report.derivative_labels[worst]} is {float(report.derivatives[row][worst])!r} "
            f"by tape, {float(verdict.expected[row][worst])!r} by {other}")


def _failure(report, verdict) -> str:
    bad = np.flatnonzero(verdict.failed)
    first = int(bad[0])
    other = "SymPy" if verdict.method == "sympy" else "finite differences"
    return (f"check failed: tape and {other} disagree at {len(bad)} of "
            f"{len(verdict.agree)} point{'s' if len(verdict.agree) > 1 else ''}\n"
            f"first at {_where(report, first)}: {_difference(report, verdict, first)}")


def _kink_note(report, verdict) -> str:
    """Points on a kink where tape's one-sided derivative and SymPy's differ."""
    rows = np.flatnonzero(verdict.kinks)
    first = int(rows[0])
    more = f" (and {len(rows) - 1} more point{'s' if len(rows) > 2 else ''} on a kink)" \
        if len(rows) > 1 else ""
    return (f"f may not be differentiable at {_where(report, first)}{more}, where "
            f"{verdict.kink_at[first]} is not smooth: {_difference(report, verdict, first)} "
            f"(a one-sided value or a convention), not counted as a disagreement")


def _draw_check(console, report, verdict, precision: int) -> None:
    """Under the report's table: each derivative, its symbolic form (or error estimate) and
    whether it agrees."""
    from rich.markup import escape
    from rich.table import Table

    single = len(verdict.agree) == 1
    title = "check: SymPy" if verdict.method == "sympy" else \
        "check: finite differences (Richardson)"
    table = Table(title=title, title_justify="left")
    table.add_column("derivative")
    if verdict.symbolic is not None:
        table.add_column("symbolic", style="magenta")
    table.add_column("tape" if single else "max |error|", justify="right", style="green")
    if single:
        table.add_column("expected", justify="right")
    if verdict.estimate is not None:
        table.add_column("± estimate", justify="right")
    table.add_column("agree")
    for j, label in enumerate(report.table_labels):
        tape_col, expected = report.derivatives[:, j], verdict.expected[:, j]
        ok = bool(verdict.entries[:, j].all())
        at_kink = not ok and bool((verdict.entries[:, j] | verdict.kinks).all())
        row = [escape(label)]
        if verdict.symbolic is not None:
            row.append(escape(verdict.symbolic[j]))
        if single:
            row += [f"{tape_col[0] + 0.0:.{precision}g}", f"{expected[0] + 0.0:.{precision}g}"]
        else:
            with np.errstate(invalid="ignore"):
                row.append(f"{np.nanmax(np.abs(tape_col - expected)):.2g}")
        if verdict.estimate is not None:
            row.append(f"{np.nanmax(verdict.estimate[:, j]):.2g}")
        row.append("[green]✓[/green]" if ok else "[yellow]kink[/yellow]" if at_kink
                   else "[red]✗[/red]")
        table.add_row(*row)
    output.print_table(console, table)
