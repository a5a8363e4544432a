"""Everything the user sees: ``abort``, warnings, progress bars, and the one render path.

A command builds a ``Result`` and hands it to ``render(result, fmt)``, which writes it in the
chosen ``--format`` through ``WRITERS``: one function per format, each drawing on the views every
result offers (``document`` for JSON, ``header``/``rows`` for CSV, ``lines`` for plain text,
``draw`` for a terminal table). Adding a format is a member of ``options.Format`` and its
writer here. What the target was read as (``target.read_as``, when the reader provides it) is
shown here too: ``"read_as"`` after ``"expression"`` in JSON, a ``read as`` line above a table.

Results go to standard output; diagnostics (``error:``, ``warning:``, progress bars) go to
standard error. Machine formats print floats with ``repr`` (shortest round-trip form); tables
use ``--precision`` significant digits. rich is imported only to draw a table or a progress bar,
json and csv only to write those formats (every module here is on the path of every run).
"""
from __future__ import annotations

import contextlib
import itertools
import sys
from typing import Any, Callable, Iterable, Iterator, NoReturn, Optional, Sequence

import numpy as np

from ..expr.errors import BAD_INPUT, CLIError, OutputClosed
from .options import Format
from ..expr.record import Record

#: rows drawn in a terminal table; the rest are summarised (machine formats print all)
MAX_TABLE_ROWS = 1000
#: rows formatted at a time by plain/csv output (bounds memory for a million points)
OUTPUT_BLOCK = 65_536


def abort(message: str = "", code: int = BAD_INPUT) -> NoReturn:
    """Stop the command: ``app.TapeGroup.main`` prints ``error: message`` (nothing when the
    message is empty: the output already said it) and exits with ``code``."""
    raise CLIError(message, code)


#: the longest diagnostic line written whole; a longer one keeps its start and its end (a
#: message that quotes a megabyte of input would otherwise be a megabyte)
MAX_MESSAGE_LINE = 1000


def bounded(line: str) -> str:
    """``line``, or for a line over ``MAX_MESSAGE_LINE`` characters its start and end with
    the length of what was left out between them."""
    if len(line) <= MAX_MESSAGE_LINE:
        return line
    head, tail = MAX_MESSAGE_LINE * 2 // 3, MAX_MESSAGE_LINE // 3
    return (f"{line[:head]} ... ({len(line) - head - tail:,} characters left out) ... "
            f"{line[-tail:]}")


def print_error(lines: list[str]) -> None:
    """Write ``error: ...`` lines to standard error."""
    sys.stderr.write("".join(f"error: {bounded(line)}\n" for line in lines))
    sys.stderr.flush()


def warn(message: str) -> None:
    """Write a ``warning: ...`` line to standard error."""
    sys.stderr.write(f"warning: {bounded(message)}\n")
    sys.stderr.flush()


def note(message: str) -> None:
    """Write a ``note: ...`` line to standard error (a reading with another plausible meaning,
    a one-sided value)."""
    sys.stderr.write(f"note: {bounded(message)}\n")


def is_terminal(stream) -> bool:
    """Whether ``stream`` is an interactive terminal."""
    try:
        return stream.isatty()
    except (AttributeError, ValueError):
        return False


def resolve_format(fmt: Format) -> Format:
    """``auto`` -> ``table`` on a terminal, ``plain`` otherwise."""
    if fmt is Format.auto:
        return Format.table if is_terminal(sys.stdout) else Format.plain
    return fmt


def resolve_notation(notation, fmt: Format, latex: bool = False) -> str:
    """``--notation`` as a name of ``expr.printer.NOTATIONS``: the one given (``--latex`` is
    ``latex``), else ``math`` on a terminal (a table) and ``python`` otherwise, so that what a
    pipe reads stays SymPy syntax."""
    given = getattr(notation, "value", notation)
    if latex:
        if given not in (None, "latex"):
            abort(f"--latex and --notation {given} do not go together: give one of them")
        return "latex"
    if given is not None:
        return given
    return "math" if fmt is Format.table else "python"


#: a notation as the ``style`` of ``calculus.formulas``
STYLE_OF = {"math": "math", "python": "plain", "latex": "latex"}


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


def plan(fmt: Format) -> tuple[Format, bool]:
    """Where a command's output goes, looked at once: ``fmt`` resolved (``resolve_format``)
    and whether to draw progress bars (only in a table, on an interactive terminal: never
    with machine formats)."""
    fmt = resolve_format(fmt)
    return fmt, fmt is Format.table and is_terminal(sys.stderr)


def needs_whole(fmt: Format, check: bool) -> bool:
    """Whether a report of many points is made whole rather than a block of points at a time:
    a terminal table (its columns are as wide as their widest number) and one checked with
    ``--check`` (one verdict over every point)."""
    return check or fmt is Format.table


# ====================================================================== results and render
class Result:
    """What a command hands to ``render``. Subclasses provide the views their formats use.

    ``target`` is what the command read (its ``read_as``, if any, is shown); ``warnings()``
    are printed to standard error before the result.
    """

    target: Any = None
    #: the attribute holding what the command read (an implicit curve's results read ``curve``)
    reading = "target"
    #: True when every CSV field is a number's repr (nothing to quote): the CSV body is then
    #: ``csv_text()``, written in bulk
    numeric_rows = False

    @property
    def read_as(self):
        """How the target was read (a string, a list for several expressions, a dict of texts
        by role), or None."""
        return getattr(getattr(self, self.reading), "read_as", None)

    def warnings(self) -> list[str]:
        return []

    def document(self):
        """The JSON document: a dict, or a ``jsonstream.Document`` written a block at a time."""
        raise NotImplementedError

    def header(self) -> list[str]:
        """The CSV header row."""
        raise NotImplementedError

    def rows(self) -> Iterator[list]:
        """The CSV rows after the header, in blocks (lists of rows of strings)."""
        raise NotImplementedError

    def csv_text(self) -> Iterator[str]:
        """The CSV body as text, in pieces (used when ``numeric_rows``): ``rows`` joined."""
        for block in self.rows():
            if block:
                yield "\n".join(map(",".join, block)) + "\n"

    def lines(self) -> Iterator[str]:
        """Plain text, in chunks (each ends with a newline)."""
        raise NotImplementedError

    def draw(self, out, precision: int) -> None:
        """The terminal view (a rich table, a chart, pretty text) written to ``out``."""
        raise NotImplementedError


def render(result: Result, fmt: Format, precision: int = 6) -> None:
    """Print ``result`` to standard output in ``fmt`` (already resolved, not ``auto``), and its
    warnings to standard error."""
    warnings = result.warnings()
    for message in warnings:
        warn(message)
    try:
        WRITERS[fmt](result, precision, warnings)
        sys.stdout.flush()
    except BrokenPipeError:
        raise OutputClosed() from None


def render_stream(reports: Iterator["Report"], fmt: Format) -> None:
    """Print the reports of consecutive blocks of points as one result in ``fmt`` (plain, csv
    or json), each block as soon as it is there; their warnings, summed over the blocks,
    follow on standard error (and in JSON's ``"warnings"``)."""
    summary = _WarningSummary()
    try:
        STREAM_WRITERS[fmt](reports, summary)
        sys.stdout.flush()
    except BrokenPipeError:
        raise OutputClosed() from None
    for message in summary.messages():
        warn(message)


class _WarningSummary:
    """The warnings of several blocks as one: non-finite rows counted over all of them (the
    first one named), each engine note once."""

    def __init__(self) -> None:
        self.count = 0
        self.first = ""
        self.notes: list[str] = []
        self.written = 0        # reports written

    def add(self, report: "Report") -> None:
        self.written += 1
        count, where = report.nonfinite()
        if count and not self.count:
            self.first = where
        self.count += count
        self.notes += [n for n in report.notes if n not in self.notes]

    def messages(self) -> list[str]:
        return ([nonfinite_message(self.count, self.first)] if self.count else []) + self.notes


def _stream_plain(reports: Iterator["Report"], summary: _WarningSummary) -> None:
    for report in reports:
        for chunk in report.lines():
            sys.stdout.write(chunk)
        summary.add(report)       # after writing: a streamed Jacobian knows its inf/nan then
        sys.stdout.flush()


def _stream_csv(reports: Iterator["Report"], summary: _WarningSummary) -> None:
    for i, report in enumerate(reports):
        if not i:
            _write_joined(report.header(), ",")
            sys.stdout.write("\n")
        for text in report.csv_text():
            sys.stdout.write(text)
        summary.add(report)
        sys.stdout.flush()


def _stream_json(reports: Iterator["Report"], summary: _WarningSummary) -> None:
    from .jsonstream import close_points, open_points, write_points

    tail: dict = {}
    try:
        for i, report in enumerate(reports):
            doc = report.document()
            if not i:
                if report.read_as is not None:
                    doc = _insert_after(doc, "expression", "read_as", report.read_as)
                tail = dict(doc.tail)
                open_points(doc, sys.stdout)
            write_points(doc, sys.stdout, not i)
            summary.add(report)
            sys.stdout.flush()
    except CLIError as exc:
        if exc.code != BAD_INPUT or not tail and not summary.written:
            raise
        # input that stops at a bad line (--on-error stop): the points before it make a
        # whole document, which says where it stopped
        close_points({**tail, "error": exc.message}, sys.stdout)
        raise
    warnings = summary.messages()
    if warnings:
        tail["warnings"] = warnings
    close_points(tail, sys.stdout)


def _stream_ndjson(reports: Iterator["Report"], summary: _WarningSummary) -> None:
    from .jsonstream import write_lines

    for report in reports:
        write_lines(report.document(), sys.stdout)
        summary.add(report)
        sys.stdout.flush()


def _render_ndjson(result: Result, precision: int, warnings: list[str]) -> None:
    """A report's points one per line; any other result's document on its one line (its
    warnings are on standard error)."""
    from .jsonstream import Document, write, write_lines

    doc = result.document()
    if isinstance(doc, Document):
        write_lines(doc, sys.stdout)
    else:
        write(doc, sys.stdout)


def _render_json(result: Result, precision: int, warnings: list[str]) -> None:
    from .jsonstream import write

    write(json_document(result, warnings), sys.stdout)


def json_document(result: Result, warnings: Sequence[str] = ()):
    """``result``'s JSON document as ``--format json`` writes it: with ``"read_as"`` after
    ``"expression"`` and the ``warnings`` at the end."""
    doc = result.document()
    read_as = result.read_as
    if read_as is not None:
        doc = _insert_after(doc, "expression", "read_as", read_as)
    if warnings:
        doc = _insert_after(doc, None, "warnings", list(warnings))
    return doc


def _insert_after(doc, key: Optional[str], new: str, value):
    """``doc`` (a dict or a streamed Document) with ``new: value`` after ``key`` (None: at the
    end); keys of a Document's ``points`` list come after its head."""
    from .jsonstream import Document

    if isinstance(doc, Document):
        if key is None:
            doc.tail[new] = value
        else:
            doc.head = _insert_after(doc.head, key, new, value)
        return doc
    if key is None or key not in doc:
        return {**doc, new: value}
    out: dict = {}
    for k, v in doc.items():
        out[k] = v
        if k == key:
            out[new] = value
    return out


def _render_csv(result: Result, precision: int = 6, warnings: Optional[list] = None) -> None:
    if result.numeric_rows:
        # a float's repr has nothing the csv module would quote: what writer.writerows
        # writes, ~5x faster for 10^6 rows
        _write_joined(result.header(), ",")
        sys.stdout.write("\n")
        for text in result.csv_text():
            sys.stdout.write(text)
        return
    import csv

    writer = csv.writer(sys.stdout, lineterminator="\n")
    writer.writerow(result.header())
    for block in result.rows():
        writer.writerows(block)


def _write_joined(items: Iterable[str], sep: str, block: int = OUTPUT_BLOCK) -> None:
    """``sep.join(items)`` written a block at a time (a header of millions of labels)."""
    items = iter(items)
    first = True
    while True:
        part = list(itertools.islice(items, block))
        if not part:
            return
        sys.stdout.write(("" if first else sep) + sep.join(part))
        first = False


def _render_plain(result: Result, precision: int = 6, warnings: Optional[list] = None) -> None:
    for chunk in result.lines():
        sys.stdout.write(chunk)


def _render_table(result: Result, precision: int = 6, warnings: Optional[list] = None) -> None:
    read_as = result.read_as
    if read_as is None:
        result.draw(sys.stdout, precision)
        return
    if isinstance(read_as, dict):      # several texts by role: tape check's expression, answer
        first = "".join(f"{role} read as {text}\n" for role, text in read_as.items())
    else:
        shown = ", ".join(read_as) if isinstance(read_as, list) else read_as
        first = f"read as {shown}\n"
    result.draw(_Preceded(sys.stdout, first), precision)


class _Preceded:
    """``out`` that writes ``first`` just before its first write: a view that fails before
    drawing anything (a missing extra) leaves standard output empty, and views that ask
    ``out`` whether it is a terminal still get the real answer."""

    def __init__(self, out, first: str) -> None:
        self._out = out
        self._first = first

    def write(self, text: str) -> int:
        if self._first:
            self._out.write(self._first)
            self._first = ""
        return self._out.write(text)

    def writelines(self, lines) -> None:
        self.write("".join(lines))

    def __getattr__(self, name: str):
        return getattr(self._out, name)


#: the writer of each format (``auto`` is resolved before: ``resolve_format``)
WRITERS = {Format.json: _render_json, Format.ndjson: _render_ndjson, Format.csv: _render_csv,
           Format.plain: _render_plain, Format.table: _render_table}
#: the writer of each format that ``render_stream`` can write a block at a time
STREAM_WRITERS = {Format.json: _stream_json, Format.ndjson: _stream_ndjson,
                  Format.csv: _stream_csv, Format.plain: _stream_plain}


def number(value: float) -> str:
    """A float for machine formats: Python's shortest round-trip repr (``inf``, ``nan`` too)."""
    return repr(float(value))


def repr_columns(block: np.ndarray) -> list[tuple[str, ...]]:
    """Rows of ``block`` (a 2-D float array) as tuples of reprs."""
    if block.shape[1] > block.shape[0]:     # few wide rows (a big Jacobian): row by row
        return [tuple(map(repr, row)) for row in block.tolist()]
    columns = [list(map(repr, block[:, j].tolist())) for j in range(block.shape[1])]
    return list(zip(*columns))


def numeric_text(matrix: np.ndarray, sep: str, block: int = OUTPUT_BLOCK) -> Iterator[str]:
    """The rows of a 2-D float array as lines of reprs joined by ``sep``, in pieces of about
    ``block`` numbers (a row wider than that comes in several pieces)."""
    n, width = matrix.shape
    if width <= block:
        step = max(1, block // max(width, 1))
        for start in range(0, n, step):
            part = matrix[start:start + step]
            if width == 0 or width > part.shape[0]:
                yield "".join(sep.join(row) + "\n" for row in repr_columns(part))
                continue
            # column by column, then one join per line: the per-row work of many narrow rows
            columns = [list(map(repr, part[:, j].tolist())) for j in range(width)]
            lines = columns[0] if width == 1 else map(sep.join, zip(*columns))
            yield "\n".join(lines) + "\n"
        return
    for row in matrix:
        for start in range(0, width, block):
            piece = sep.join(map(repr, row[start:start + block].tolist()))
            yield ("" if start == 0 else sep) + piece
        yield "\n"


def nonfinite_message(count: int, first: str) -> str:
    """The warning for ``count`` points with inf or nan results, the first at ``first``."""
    return (f"non-finite result (inf or nan) at {count} point{'s' if count > 1 else ''}, "
            f"first at {first}")


def table_number(value: float, precision: int) -> str:
    """A float in a table: ``precision`` significant digits (``-0.0`` shown as 0)."""
    return f"{value + 0.0:.{precision}g}"


# ====================================================================== derivative reports
class LabelGrid(Sequence):
    """The labels ``pattern.format(row, col)`` for every row and column, row by row, made
    when asked for (a 10,000 x 10,000 Jacobian has 10^8 of them); ``diagonal.format(row)``
    where the row and column are the same name, when given (a Hessian's d2f/dx2)."""

    def __init__(self, pattern: str, rows: list[str], cols: list[str],
                 diagonal: Optional[str] = None) -> None:
        self.pattern = pattern
        self.rows = rows
        self.cols = cols
        self.diagonal = diagonal

    def __len__(self) -> int:
        return len(self.rows) * len(self.cols)

    def __getitem__(self, i):
        if isinstance(i, slice):
            return [self[k] for k in range(*i.indices(len(self)))]
        if i < 0:
            i += len(self)
        if not 0 <= i < len(self):
            raise IndexError(i)
        r, c = divmod(i, len(self.cols))
        return self._label(self.rows[r], self.cols[c])

    def __iter__(self) -> Iterator[str]:
        for r in self.rows:
            for c in self.cols:
                yield self._label(r, c)

    def _label(self, row: str, col: str) -> str:
        if self.diagonal is not None and row == col:
            return self.diagonal.format(row)
        return self.pattern.format(row, col)


def streamed_text(matrix, sep: str) -> Iterator[str]:
    """A ``StreamedMatrix``'s entries row after row as reprs joined by ``sep`` (no newline)."""
    first = True
    for block in matrix.blocks():
        for start in range(0, block.size, OUTPUT_BLOCK):
            piece = sep.join(map(repr, block.ravel()[start:start + OUTPUT_BLOCK].tolist()))
            yield piece if first else sep + piece
            first = False


def _streamed() -> type:
    # the class comes with the computation that makes one; a command that never streams a
    # matrix has it loaded already or needs no answer but "no"
    from ..calculus.derivatives import StreamedMatrix

    return StreamedMatrix


class FieldsResult(Result):
    """A result that is its named fields: ``_fields`` lists them, and the constructor takes
    them in that order (or by name) and stores them."""

    _fields: tuple = ()

    def __init__(self, *values, **named) -> None:
        given = dict(zip(self._fields, values))
        if len(values) > len(self._fields) or set(given) & set(named) or \
                set(given) | set(named) != set(self._fields):
            raise TypeError(f"{type(self).__name__} takes {', '.join(self._fields)}")
        given.update(named)
        for field in self._fields:
            setattr(self, field, given[field])


class DictResult(FieldsResult):
    """A result computed as a dict (``result``) for ``target``: its keys named in
    ``json_keys`` are the JSON document, in that order."""

    _fields = ("target", "result")
    json_keys: tuple = ()

    def document(self) -> dict:
        return {k: self.result[k] for k in self.json_keys if k in self.result}


class Report(Result, Record):
    """The result of ``grad``, ``jacobian`` and ``hessian`` at every point.

    ``at``, ``value`` and ``derivatives`` are (N, ·) float arrays, one row per point, with
    column labels. ``document`` builds the JSON document, a ``jsonstream.Document`` written a
    block of points at a time (only called for ``--format json``). ``matrix`` optionally names
    rows and columns of a per-point matrix (Hessian, Jacobian) that a one-point table shows as
    a grid. ``appendix`` draws more under the table (``--check``'s table).
    """

    _fields = ("title", "at_labels", "at", "value_labels", "value", "derivative_labels",
               "table_labels", "derivatives", "document", "matrix", "notes", "target",
               "errors", "extra")
    numeric_rows = True

    def __init__(self, title: str, at_labels: list[str], at: np.ndarray,
                 value_labels: list[str], value: np.ndarray, derivative_labels: list[str],
                 table_labels: list[str], derivatives: np.ndarray,
                 document: Callable[[], Any],
                 matrix: Optional[tuple[list[str], list[str]]] = None,
                 notes: Optional[list[str]] = None, target: Any = None,
                 errors: Optional[dict] = None,
                 extra: Optional[tuple[tuple, list]] = None) -> None:
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
        self.target = target
        # rows of lines that could not be read (row -> message; their numbers are nan), and
        # the input's passed-through columns: (names, one tuple of texts per row) or None
        self.errors = {} if errors is None else errors
        self.extra = extra
        self.appendix: Optional[Callable[[Any, int], None]] = None

    def warnings(self) -> list[str]:
        """Inf/nan results (naming the first such point), then the engine's notes."""
        count, where = self.nonfinite()
        return ([nonfinite_message(count, where)] if count else []) + list(self.notes)

    def nonfinite(self) -> tuple[int, str]:
        """How many points have an inf or nan result, and the first of them (as text; for a
        ``StreamedMatrix``, known once it is written)."""
        if isinstance(self.derivatives, _streamed()):
            slopes = np.array([not self.derivatives.nonfinite])
        else:
            slopes = np.isfinite(self.derivatives).all(axis=1)
        bad = ~np.isfinite(self.value).all(axis=1) | ~slopes
        if self.errors:         # an unread line's nan is said as such, not as a result
            bad[list(self.errors)] = False
        if not bad.any():
            return 0, ""
        first = int(np.argmax(bad))
        where = ", ".join(f"{lab}={number(v)}" for lab, v in zip(self.at_labels, self.at[first]))
        return int(bad.sum()), where or "the only point"

    def header(self) -> Iterable[str]:
        return itertools.chain(self.extra[0] if self.extra else (), self.at_labels,
                               self.value_labels, self.derivative_labels)

    def csv_text(self) -> Iterator[str]:
        if self.extra:
            yield from _prefixed(self._csv_numbers(), [_csv_fields(row)
                                                       for row in self.extra[1]], ",")
            return
        yield from self._csv_numbers()

    def _csv_numbers(self) -> Iterator[str]:
        if isinstance(self.derivatives, _streamed()):
            yield ",".join(map(repr, np.concatenate([self.at[0], self.value[0]]).tolist()))
            yield from ("," + piece if i == 0 else piece
                        for i, piece in enumerate(streamed_text(self.derivatives, ",")))
            yield "\n"
            return
        step = max(1, OUTPUT_BLOCK // max(1, self.derivatives.shape[1]))
        for start in range(0, self.at.shape[0], step):
            stop = start + step
            yield from numeric_text(np.concatenate(
                [self.at[start:stop], self.value[start:stop], self.derivatives[start:stop]],
                axis=1), ",")

    def lines(self) -> Iterator[str]:
        # plain prints derivatives only (not the passed-through columns: a line of it lines up
        # with its input line); a target without variables has an empty line per point
        numbers = self.derivatives
        if isinstance(numbers, _streamed()):
            yield from streamed_text(numbers, " ")
            yield "\n"
            return
        if not numbers.shape[1]:
            yield "\n" * numbers.shape[0]
            return
        yield from numeric_text(numbers, " ")

    def draw(self, out, precision: int) -> None:
        from rich.console import Console

        console = Console(file=out)
        if self.matrix is not None and self.at.shape[0] == 1:
            self._draw_matrix(console, precision)
        else:
            self._draw_rows(console, precision)
        if self.appendix is not None:
            self.appendix(console, precision)

    def _draw_rows(self, console, precision: int) -> None:
        n = self.at.shape[0]
        extra_names, extra = self.extra if self.extra else ((), [()] * n)
        columns = ([(label, None) for label in extra_names]
                   + [(label, "cyan") for label in self.at_labels]
                   + [(label, None) for label in (["f"] if len(self.value_labels) == 1
                                                  else self.value_labels)]
                   + [(label, "green") for label in self.table_labels])
        rows = np.concatenate([self.at, self.value, self.derivatives], axis=1)
        cells = [[*texts, *(table_number(v, precision) for v in row)]
                 for texts, row in zip(extra, rows[:MAX_TABLE_ROWS].tolist())]
        caption = (f"{n - MAX_TABLE_ROWS} more rows not shown (--format plain, csv or json "
                   f"prints all)") if n > MAX_TABLE_ROWS else None
        print_fitted(console, self.title, columns, cells, caption,
                     sections=len(extra_names) + len(self.at_labels))

    def _draw_matrix(self, console, precision: int) -> None:
        from rich.markup import escape

        rows, cols = self.matrix
        point = ", ".join(f"{lab} = {table_number(v, precision)}"
                          for lab, v in zip(self.at_labels, self.at[0]))
        values = ", ".join(table_number(v, precision) for v in self.value[0])
        console.print(f"[bold]{escape(self.title)}[/bold]")
        console.print(escape(f"at {point or 'the only point'}: value {values}"),
                      highlight=False)
        grid = np.asarray(self.derivatives[0]).reshape(len(rows), len(cols))
        cells = [[table_number(v, precision) for v in row] for row in grid.tolist()]
        print_grid(console, rows, cols, cells)


def _prefixed(chunks: Iterable[str], prefixes: list[str], sep: str) -> Iterator[str]:
    """The lines of ``chunks`` (text of whole lines), line i after ``prefixes[i]`` and
    ``sep``."""
    lines = "".join(chunks).split("\n")[:-1]
    yield "".join(f"{p}{sep}{line}\n" for p, line in zip(prefixes, lines))


def _csv_fields(texts: tuple) -> str:
    """Texts as CSV fields joined by commas, quoted where the csv module would quote them."""
    return ",".join('"' + t.replace('"', '""') + '"' if any(c in t for c in ',"\r\n')
                    else t for t in texts)


# ====================================================================== tables that fit
# A table wider than the terminal is never squeezed: rich would cut its cells ("22.…") and
# headers ("…"), or leave a column empty. It is laid out again in a shape that fits (columns
# in groups, or stacked: one line per quantity), and as plain lines when nothing fits.

def _width(texts: Iterable[str]) -> int:
    from rich.cells import cell_len

    return max((cell_len(t) for t in texts), default=0)


def _table_width(column_widths: list[int]) -> int:
    """A rich table's width with its default box and padding: every column one space on each
    side, one rule between columns and one at each edge."""
    return sum(w + 2 for w in column_widths) + len(column_widths) + 1


def _groups(widths: list[int], fixed: int, room: int) -> list[range] | None:
    """Consecutive groups of the columns of ``widths``, each group fitting in ``room``
    columns beside a ``fixed``-wide first column; None when one column alone does not."""
    groups, start = [], 0
    while start < len(widths):
        stop = start
        while stop < len(widths) and _table_width([fixed, *widths[start:stop + 1]]) <= room:
            stop += 1
        if stop == start:
            return None
        groups.append(range(start, stop))
        start = stop
    return groups


def print_fitted(console, title: str, columns: list[tuple[str, Optional[str]]],
                 rows: list[list[str]], caption: Optional[str] = None,
                 sections: int = 0) -> None:
    """A table of ``rows`` under ``columns`` (label, style) that fits ``console``'s width: one
    row per point when it fits; otherwise stacked, one line per column (the first
    ``sections`` set apart) and one column per point, the points in groups that fit; as
    ``label = value`` lines when not even one point does. A number is never cut."""
    from rich.markup import escape
    from rich.table import Table

    labels = [label for label, _ in columns]
    if _table_width([_width([label, *(row[j] for row in rows)])
                     for j, label in enumerate(labels)]) <= console.width:
        wide = Table(title=escape(title), title_justify="left", caption=caption)
        for label, style in columns:
            wide.add_column(escape(label), justify="right", style=style)
        for row in rows:
            wide.add_row(*row)
        console.print(wide)
        return
    numbered = len(rows) > 1
    heads = [str(i + 1) for i in range(len(rows))] if numbered else [""] * len(rows)
    first = _width(labels + (["point"] if numbered else []))
    widths = [_width([head, *row]) for head, row in zip(heads, rows)]
    groups = _groups(widths, first, console.width)
    if groups is None or len(labels) > MAX_TABLE_ROWS:     # (a long stack draws slowly)
        _print_lines(console, title, labels, heads if numbered else None, rows, caption)
        return
    console.print(escape(title), highlight=False, soft_wrap=True)
    for group in groups:
        table = Table(show_header=numbered)
        table.add_column("point" if numbered else "", style="bold")
        for i in group:
            table.add_column(heads[i], justify="right")
        for j, (label, style) in enumerate(columns):
            table.add_row(escape(label), *[rows[i][j] for i in group], style=style,
                          end_section=j + 1 == sections)
        console.print(table)
    if caption:
        console.print(escape(caption), highlight=False)


def print_table(console, table) -> None:
    """A rich ``table`` as rich draws it when its columns fit ``console``'s width, their text
    wrapped between words if need be; when not even that fits (rich would cut a number or a
    formula), its title, then each row as a record, one ``header: cell`` line per column
    (the terminal folds a long line: nothing is cut), then its caption."""
    from rich.measure import Measurement
    from rich.text import Text

    wide = console.options.update_width(1 << 20)
    if Measurement.get(console, wide, table).minimum <= console.width:
        console.print(table)
        return
    if table.title:
        console.print(table.title, highlight=False, soft_wrap=True)
    for r in range(table.row_count):
        if r:
            console.print("")
        for column in table.columns:
            cell = column._cells[r]     # (rich keeps a column's cells there)
            if cell == "":
                continue
            line = Text.assemble(Text.from_markup(str(column.header)), ": ",
                                 Text.from_markup(cell) if isinstance(cell, str) else str(cell))
            console.print(line, highlight=False, soft_wrap=True)
    if table.caption:
        console.print(table.caption, highlight=False, soft_wrap=True)


def print_grid(console, row_labels: list[str], col_labels: list[str],
               cells: list[list[str]]) -> None:
    """A matrix (a Hessian, a Jacobian at one point) that fits ``console``'s width: whole, or
    its columns in groups that fit, each beside the row labels; as ``[row, column] = value``
    lines when not even one column does. A number is never cut."""
    from rich.markup import escape
    from rich.table import Table

    first = _width(row_labels)
    widths = [_width([label, *(row[j] for row in cells)]) for j, label in
              enumerate(col_labels)]
    groups = _groups(widths, first, console.width)
    if groups is None:
        for r, row in zip(row_labels, cells):
            for c, value in zip(col_labels, row):
                console.print(escape(f"[{r}, {c}] = {value}"), highlight=False,
                              soft_wrap=True)
        return
    for group in groups:
        table = Table(show_header=True)
        table.add_column("", style="bold")
        for j in group:
            table.add_column(escape(col_labels[j]), justify="right")
        for label, row in zip(row_labels, cells):
            table.add_row(escape(label), *[row[j] for j in group])
        console.print(table)


def _print_lines(console, title: str, labels: list[str], heads: Optional[list[str]],
                 rows: list[list[str]], caption: Optional[str]) -> None:
    from rich.markup import escape

    lines = [title]
    for i, row in enumerate(rows):
        if heads is not None:
            lines.append(f"point {heads[i]}:")
        lines += [f"  {label} = {value}" for label, value in zip(labels, row)]
    if caption:
        lines.append(caption)
    for line in lines:      # soft wrap: the terminal folds a long line, nothing is cut
        console.print(escape(line), highlight=False, soft_wrap=True)
