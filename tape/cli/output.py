"""Everything the user sees: stdout/stderr, ``abort``, warnings, the ``--format`` bundle, and
rendering a ``Report`` as a rich table, plain numbers, JSON or CSV.

Results go to standard output; diagnostics (``error:``, ``warning:``, progress bars) go to
standard error. Machine formats print floats with ``repr`` (shortest round-trip form); tables
use ``--precision`` significant digits. rich is imported only to draw a table or a progress bar,
json and csv only to write those formats (every module here is on the path of every run).
"""
from __future__ import annotations

import contextlib
import math
import sys
from enum import Enum
from typing import TYPE_CHECKING, Annotated, Callable, Iterator, NoReturn, Optional

import numpy as np
import typer

from .errors import BAD_INPUT, CLIError, OutputClosed
from .record import Record

if TYPE_CHECKING:
    from .jsonstream import Document

#: rows drawn in a terminal table; the rest are summarised (machine formats print all)
MAX_TABLE_ROWS = 1000


class Format(str, Enum):
    """Output formats (``--format``)."""

    auto = "auto"
    table = "table"
    plain = "plain"
    json = "json"
    csv = "csv"


FormatOption = Annotated[Format, typer.Option(
    "--format", "-f", case_sensitive=False,
    help="auto (a table on a terminal, plain when piped), table, plain, json or csv.")]
PrecisionOption = Annotated[int, typer.Option(
    "--precision", min=1, max=17, help="Significant digits shown in tables.")]


def resolve_format(fmt: Format) -> Format:
    """``auto`` -> ``table`` on a terminal, ``plain`` otherwise."""
    if fmt is Format.auto:
        return Format.table if _isatty(sys.stdout) else Format.plain
    return fmt


def _isatty(stream) -> bool:
    try:
        return stream.isatty()
    except (AttributeError, ValueError):
        return False


def abort(message: str, code: int = BAD_INPUT) -> NoReturn:
    """Stop the command: ``app.main`` prints ``error: message`` and exits with ``code``."""
    raise CLIError(message, code)


def print_error(lines: list[str]) -> None:
    """Write ``error: ...`` lines to standard error."""
    sys.stderr.write("".join(f"error: {line}\n" for line in lines))
    sys.stderr.flush()


def warn(message: str) -> None:
    """Write a ``warning: ...`` line to standard error."""
    sys.stderr.write(f"warning: {message}\n")
    sys.stderr.flush()


def number(value: float) -> str:
    """A float for machine formats: Python's shortest round-trip repr (``inf``, ``nan`` too)."""
    return repr(float(value))


@contextlib.contextmanager
def progress(total: int, description: str, enabled: bool) -> Iterator[Callable[[int], None]]:
    """A rich progress bar on standard error when ``enabled`` (a terminal, long work);
    yields ``advance(n)``. Disabled, it imports nothing and draws nothing."""
    if not enabled:
        yield lambda n: None
        return
    from rich.console import Console
    from rich.progress import Progress

    with Progress(console=Console(file=sys.stderr), transient=True) as bar:
        task = bar.add_task(description, total=total)
        yield lambda n: bar.advance(task, n)


def progress_wanted(fmt: Format) -> bool:
    """Progress bars only on an interactive terminal and never with machine formats."""
    return fmt is Format.table and _isatty(sys.stderr)


class Report(Record):
    """A command's result in a form every format can draw.

    ``at``, ``value`` and ``derivatives`` are (N, ·) float arrays, one row per point, with
    column labels. ``document`` builds the JSON document, a ``jsonstream.Document`` written a
    block of points at a time (only called for ``--format json``).
    ``matrix`` optionally names rows and columns of a per-point matrix (Hessian, Jacobian)
    that a one-point table shows as a grid.
    """

    _fields = ("title", "at_labels", "at", "value_labels", "value", "derivative_labels",
               "table_labels", "derivatives", "document", "matrix", "notes")

    def __init__(self, title: str, at_labels: list[str], at: np.ndarray,
                 value_labels: list[str], value: np.ndarray, derivative_labels: list[str],
                 table_labels: list[str], derivatives: np.ndarray,
                 document: Callable[[], Document],
                 matrix: Optional[tuple[list[str], list[str]]] = None,
                 notes: Optional[list[str]] = None) -> None:
        self.title = title
        self.at_labels = at_labels
        self.at = at
        self.value_labels = value_labels            # CSV names of the value columns
        self.value = value
        self.derivative_labels = derivative_labels  # CSV names (df/dx, d2f/dxdy)
        self.table_labels = table_labels            # table names (∂f/∂x, ∂²f/∂x∂y)
        self.derivatives = derivatives
        self.document = document
        self.matrix = matrix
        self.notes = [] if notes is None else notes


def nonfinite_warnings(report: Report) -> list[str]:
    """Warnings about inf/nan results, naming the first such point."""
    bad = ~np.isfinite(report.value).all(axis=1) | ~np.isfinite(report.derivatives).all(axis=1)
    if not bad.any():
        return []
    first = int(np.argmax(bad))
    where = ", ".join(f"{lab}={number(v)}" for lab, v in zip(report.at_labels, report.at[first]))
    count = int(bad.sum())
    return [f"non-finite result (inf or nan) at {count} point{'s' if count > 1 else ''}, "
            f"first at {where or 'the only point'}"]


def render(report: Report, fmt: Format, precision: int = 6) -> None:
    """Print ``report`` to standard output in ``fmt`` (already resolved, not ``auto``),
    and its warnings to standard error."""
    warnings = nonfinite_warnings(report) + report.notes
    for message in warnings:
        warn(message)
    try:
        _write(report, fmt, precision, warnings)
        sys.stdout.flush()
    except BrokenPipeError:
        raise OutputClosed() from None


def _write(report: Report, fmt: Format, precision: int, warnings: list[str]) -> None:
    if fmt is Format.json:
        from .jsonstream import write

        doc = report.document()
        if warnings:
            doc.tail["warnings"] = warnings
        write(doc, sys.stdout)
    elif fmt is Format.csv:
        _render_csv(report)
    elif fmt is Format.plain:
        _render_plain(report)
    else:
        _render_table(report, precision)


def _json_safe(obj):
    """Replace non-finite floats by None (JSON has no inf/nan); numpy scalars -> floats."""
    if isinstance(obj, dict):
        return {k: _json_safe(v) for k, v in obj.items()}
    if isinstance(obj, (list, tuple)):
        return [_json_safe(v) for v in obj]
    if isinstance(obj, (float, np.floating)):
        return float(obj) if math.isfinite(obj) else None
    if isinstance(obj, np.ndarray):
        return _json_safe(obj.tolist())
    return obj


#: rows formatted at a time by plain/csv output (bounds memory for a million points)
OUTPUT_BLOCK = 65_536


def _render_plain(report: Report) -> None:
    numbers = report.derivatives if report.derivatives.shape[1] else report.value
    for start in range(0, numbers.shape[0], OUTPUT_BLOCK):
        block = numbers[start:start + OUTPUT_BLOCK]
        columns = [list(map(repr, block[:, j].tolist())) for j in range(block.shape[1])]
        lines = columns[0] if len(columns) == 1 else map(" ".join, zip(*columns))
        sys.stdout.write("\n".join(lines) + "\n")


def _render_csv(report: Report) -> None:
    import csv

    writer = csv.writer(sys.stdout, lineterminator="\n")
    writer.writerow(report.at_labels + report.value_labels + report.derivative_labels)
    rows = np.concatenate([report.at, report.value, report.derivatives], axis=1)
    for start in range(0, rows.shape[0], OUTPUT_BLOCK):
        block = rows[start:start + OUTPUT_BLOCK]
        columns = [list(map(repr, block[:, j].tolist())) for j in range(block.shape[1])]
        # what writer.writerows(zip(*columns)) writes, ~5x faster for 10^6 rows: a float's
        # repr has nothing the csv module would quote (no delimiter, quote, space or newline)
        sys.stdout.write("\n".join(map(",".join, zip(*columns))) + "\n")


def _fmt(value: float, precision: int) -> str:
    # "+ 0.0" shows -0.0 as 0 in tables (machine formats keep the exact sign)
    return f"{value + 0.0:.{precision}g}"


def _render_table(report: Report, precision: int) -> None:
    from rich.console import Console
    from rich.markup import escape
    from rich.table import Table

    console = Console(file=sys.stdout)
    n = report.at.shape[0]
    if report.matrix is not None and n == 1:
        _render_matrix(console, report, precision)
        return
    table = Table(title=escape(report.title), title_justify="left")
    for label in report.at_labels:
        table.add_column(escape(label), justify="right", style="cyan")
    for label in ["f"] if len(report.value_labels) == 1 else report.value_labels:
        table.add_column(escape(label), justify="right")
    for label in report.table_labels:
        table.add_column(escape(label), justify="right", style="green")
    rows = np.concatenate([report.at, report.value, report.derivatives], axis=1)
    for row in rows[:MAX_TABLE_ROWS].tolist():
        table.add_row(*[_fmt(v, precision) for v in row])
    if n > MAX_TABLE_ROWS:
        table.caption = (f"{n - MAX_TABLE_ROWS} more rows not shown "
                         f"(--format plain, csv or json prints all)")
    console.print(table)


def _render_matrix(console, report: Report, precision: int) -> None:
    from rich.markup import escape
    from rich.table import Table

    rows, cols = report.matrix
    point = ", ".join(f"{lab} = {_fmt(v, precision)}"
                      for lab, v in zip(report.at_labels, report.at[0]))
    values = ", ".join(_fmt(v, precision) for v in report.value[0])
    console.print(f"[bold]{escape(report.title)}[/bold]")
    console.print(escape(f"at {point or 'the only point'}: value {values}"), highlight=False)
    grid = np.asarray(report.derivatives[0]).reshape(len(rows), len(cols))
    table = Table(show_header=True)
    table.add_column("", style="bold")
    for label in cols:
        table.add_column(escape(label), justify="right")
    for label, row in zip(rows, grid.tolist()):
        table.add_row(escape(label), *[_fmt(v, precision) for v in row])
    console.print(table)


def print_json(doc: dict) -> None:
    """Write ``doc`` as one line of JSON on standard output (inf/nan become null)."""
    import json

    sys.stdout.write(json.dumps(_json_safe(doc), ensure_ascii=False) + "\n")


def is_terminal(stream) -> bool:
    """Whether ``stream`` is an interactive terminal (for commands that draw)."""
    return _isatty(stream)
