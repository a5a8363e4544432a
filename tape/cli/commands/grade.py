"""``tape grade``: a class's answers checked in one run, written as what a teacher uploads
(SPEC sections 9 and 11).

The answers file is read by ``grading.tables`` (CSV in any dialect a spreadsheet writes, JSON
Lines, XLSX) and planned by ``grading.exercises`` (the key joined in, a wide export unfolded).
A file is read through once before anything is graded, so that one that cannot be graded
stops with exit 2 naming its line and nothing written; standard input is graded as it arrives
(a row that cannot be read stops it there, after the rows before it are written). Rows are
graded by ``tape.grading.grade`` and written by ``grading.reports`` as each is decided, in
input order; on a terminal a table above a progress bar, and a summary per problem at the
end. Ctrl-C kills the workers, writes every row already graded and exits 130.
"""
from __future__ import annotations

import os
import sys
from enum import Enum
from typing import Annotated, Optional

import typer

from .. import options as O, output
from ...expr.errors import BAD_INPUT, INTERRUPTED, CLIError


class GradeFormat(str, Enum):
    auto = "auto"
    table = "table"
    csv = "csv"
    jsonl = "jsonl"
    json = "json"
    xlsx = "xlsx"
    gradebook = "gradebook"
    gradescope = "gradescope"


GRADE_HELP = """Grade a file of answers: one row out per row in, each correct, wrong,
ambiguous, undecided or unreadable, with its score, the mistake and a counterexample.

Exit codes: 0 every row was graded (whatever the verdicts; a row that runs out of time is
'undecided' in the output, not an exit code); 2 the answers, the key or an option cannot be
used (naming the line), or an output file cannot be written; 130 interrupted (the rows
already graded are written)."""


def grade(
    answers: Annotated[str, typer.Argument(
        metavar="ANSWERS",
        help="CSV (any delimiter, UTF-8 or UTF-16), JSON Lines or .xlsx of answers, '-' for "
             "standard input: columns answer and expression (or problem, with --key), "
             "optionally id, student, wrt, order, implicit, dependent, kind, constant, "
             "points, partial; every column is copied to the output.")],
    key: Annotated[Optional[str], typer.Option(
        "--key", metavar="KEY",
        help="The problems (CSV, JSON Lines or .xlsx): problem, expression and optionally "
             "wrt, order, implicit, dependent, kind (derivative, antiderivative, or work: "
             "a derivation, one step per line), constant, points (default 1), partial "
             "(kind:fraction;...); joined to the answers by problem.")] = None,
    out: Annotated[Optional[str], typer.Option(
        "--out", "-o", metavar="FILE",
        help="Write to FILE (its extension picks the format: .csv, .jsonl, .json, .xlsx), "
             "whole or not at all; never one of the inputs.")] = None,
    fmt: Annotated[GradeFormat, typer.Option(
        "--format", "-f", case_sensitive=False,
        help="auto (a table on a terminal, CSV when piped, else by --out's extension), "
             "table, csv, jsonl, json (rows and summary), xlsx, gradebook (one row per "
             "student), gradescope (results.json).")] = GradeFormat.auto,
    wide: Annotated[Optional[str], typer.Option(
        "--wide", metavar="PATTERN",
        help="One row per student, a column per problem: the columns whose header matches "
             "PATTERN ({problem} is the problem, * any text), e.g. \"Response {problem}\" "
             "for Moodle's responses report.")] = None,
    student: Annotated[Optional[str], typer.Option(
        "--student", metavar="COLUMN",
        help="The column naming the student (default: student).")] = None,
    partial: Annotated[Optional[str], typer.Option(
        "--partial", metavar="FILE",
        help="Partial credit for every problem whose key row has none: kind:fraction pairs "
             "(e.g. sign:0.5; carried:0.5 for a derivation's lines that follow from a wrong "
             "one), separated by ; or lines.")] = None,
    summary_file: Annotated[Optional[str], typer.Option(
        "--summary", metavar="FILE",
        help="Write the summary per problem to FILE (.json, else CSV).")] = None,
    workers: Annotated[Optional[int], typer.Option(
        "--workers", "-j", min=1, max=256,
        help="Processes grading at once (default: one per core).")] = None,
    timeout: Annotated[float, typer.Option(
        "--timeout", min=0.0, max=O.MAX_TIMEOUT,
        help="Seconds each answer's symbolic work may take (then the answer is 'undecided' "
             "and grading goes on).")] = O.TIMEOUT,
) -> None:
    from ...grading.batch import grade as grade_rows
    from ...grading.reports import Destination, OutputError, write_summary
    from ...grading.scoring import Summary
    from ...grading.tables import TableError

    if timeout <= 0:
        output.abort(f"--timeout must be a positive number of seconds, got {timeout}")
    fmt_name = _format(fmt, out)
    if fmt_name == "xlsx" and out is None:
        output.abort("--format xlsx writes a workbook: give --out FILE.xlsx")
    _refuse_overwriting(out, summary_file, [answers, key, partial])
    try:
        plan, total = _plan(answers, key, wide, student, partial, fmt_name)
    except TableError as err:       # it may quote a student's text: no escape sequences
        output.abort(printable(err.message))
    screen = _screen(out, fmt_name)
    destination = Destination(out, None if out else sys.stdout.buffer)
    try:
        writer = _writer(fmt_name, destination, plan, out)
    except BaseException:
        destination.discard()
        raise
    summary = Summary()
    table = _TableView(screen, fmt_name == "table")
    stopped = None
    try:
        with grade_rows(plan.rows(), workers=workers, timeout=timeout) as grading, \
                _Bar(screen, total) as bar:
            table.bar = bar
            try:
                for graded in grading:
                    _emit(graded, plan, writer, summary, table)
                    bar.advance()
            except KeyboardInterrupt:
                for graded in grading.stop():
                    _emit(graded, plan, writer, summary, table)
                of = f" of {total}" if total is not None else ""
                stopped = CLIError(f"interrupted: {summary.total}{of} rows graded and written",
                                   INTERRUPTED)
            except TableError as err:   # standard input: a row that cannot be read
                done = summary.total
                stopped = CLIError(f"{printable(err.message)} ({done} "
                                   f"{'row was' if done == 1 else 'rows were'} graded and "
                                   f"written before it)", err.code)
        writer.close(summary)
        destination.commit()
    except OSError as exc:
        destination.discard()
        where = f"--out: cannot write {out}" if out else "cannot write standard output"
        output.abort(f"{where}: {exc.strerror or exc}")
    except OutputError:
        destination.discard()
        raise
    except BaseException:
        destination.discard()
        raise
    if summary_file:
        write_summary(summary, summary_file)
    if stopped is not None:
        raise stopped
    if screen is not None and summary.total:
        _draw_summary(screen, summary)


grade.__doc__ = GRADE_HELP


def _writer(fmt: str, destination, plan, out: Optional[str]):
    from ...grading.reports import writer_for

    if fmt == "table":
        return _Shown()
    name = (out or "").lower()
    return writer_for(fmt, destination, plan.columns,
                      delimiter="\t" if name.endswith(".tsv") else plan.table.delimiter,
                      xlsx=name.endswith(".xlsx"), headers=plan.headers())


class _Shown:
    """The writer of ``--format table``: the rows are shown by ``_TableView`` alone."""

    def write(self, outcome) -> None:
        pass

    def close(self, summary) -> None:
        pass


def _format(fmt: GradeFormat, out: Optional[str]) -> str:
    from ...grading.reports import OutputError, format_of

    if fmt is GradeFormat.table:
        if out is not None:
            output.abort("--format table is for the terminal; --out writes csv, jsonl, json, "
                         "xlsx, gradebook or gradescope")
        return "table"
    asked = None if fmt is GradeFormat.auto else fmt.value
    try:
        found = format_of(asked, out)
    except OutputError as err:
        output.abort(err.message)
    if found is None:
        if out is not None:
            output.abort(f"--out {out}: the name does not say a format (.csv, .jsonl, .json, "
                         f".xlsx); add one, or give --format")
        return "table" if output.is_terminal(sys.stdout) else "csv"
    return found


def _same(a: str, b: str) -> bool:
    try:
        return os.path.samefile(a, b)
    except OSError:
        return os.path.realpath(a) == os.path.realpath(b)


def _refuse_overwriting(out, summary_file, inputs) -> None:
    for flag, target in (("--out", out), ("--summary", summary_file)):
        if target is None or target == "-":
            continue
        for given in inputs:
            if given and given != "-" and _same(target, given):
                output.abort(f"{flag} {target} is one of the inputs ({given}); write the "
                             f"results to another file")
    if out and summary_file and _same(out, summary_file):
        output.abort(f"--out and --summary name the same file ({out})")


def _open(path: str, role: str):
    from ...grading.tables import read_table

    if path == "-":
        return read_table(sys.stdin.buffer, "standard input"), None
    try:
        handle = open(path, "rb")
    except OSError as exc:
        output.abort(f"{role}: cannot read {path}: {exc.strerror or exc}")
    return read_table(handle, path, path), handle


def _plan(answers, key_path, wide, student, partial, fmt):
    """The plan of the answers and how many rows it has (None for standard input): a file
    is read through once here, so that a row that cannot be graded stops everything before
    anything is written."""
    from ...grading.exercises import plan_answers, read_key
    from ...grading.scoring import PolicyError, partial_policy

    key = None
    if key_path:
        table, handle = _open(key_path, "--key")
        key = read_key(table)
        if handle:
            handle.close()
    policy = None
    if partial:
        try:
            with open(partial, encoding="utf-8-sig") as handle:
                policy = partial_policy(handle.read())
        except OSError as exc:
            output.abort(f"--partial: cannot read {partial}: {exc.strerror or exc}")
        except UnicodeDecodeError:
            output.abort(f"--partial: {partial} is not UTF-8 text")
        except PolicyError as err:
            output.abort(f"--partial {partial}: {err.message}")
    total = None
    if answers != "-" and os.path.isfile(answers):     # (a pipe is read once, as it comes)
        table, handle = _open(answers, "ANSWERS")
        plan = plan_answers(table, key, wide=wide, student=student, policy=policy)
        total = sum(1 for _ in plan.rows())
        handle.close()
        if total == 0 and table.kind != "jsonl" and not table.columns:
            output.abort(f"ANSWERS: {answers} is empty; it needs a header row")
        columns = plan.columns
    table, _ = _open(answers, "ANSWERS")
    plan_now = plan_answers(table, key, wide=wide, student=student, policy=policy)
    if total is not None:
        plan_now.columns = columns
    if fmt == "gradebook" and not plan_now.identity:
        output.abort("--format gradebook needs to know the students: a 'student' column, "
                     "--student COLUMN, or --wide")
    return plan_now, total


def _emit(graded, plan, writer, summary, table) -> None:
    from ...grading.reports import outcome_of

    outcome = outcome_of(graded, graded.row, plan.identity)
    writer.write(outcome)
    summary.add(outcome.problem, outcome.verdict, outcome.diagnosis, outcome.score,
                outcome.max_score)
    table.show(outcome)


def _screen(out: Optional[str], fmt: str):
    """The terminal stream for the progress bar and the summary, or None (piped: nothing but
    the rows)."""
    if out is None:
        return sys.stdout if fmt == "table" and output.is_terminal(sys.stdout) else None
    for stream in (sys.stdout, sys.stderr):
        if output.is_terminal(stream):
            return stream
    return None


class _Bar:
    """A progress bar on the terminal (nothing when piped)."""

    def __init__(self, screen, total: Optional[int]) -> None:
        self.screen, self.total = screen, total
        self.progress = None
        self.console = None

    def __enter__(self) -> "_Bar":
        if self.screen is not None and (self.total is None or self.total > 1):
            from rich.console import Console
            from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, \
                TimeRemainingColumn

            self.console = Console(file=self.screen)
            self.progress = Progress(TextColumn("grading"), BarColumn(), MofNCompleteColumn(),
                                     TimeRemainingColumn(), console=self.console,
                                     transient=True)
            self.progress.start()
            self.task = self.progress.add_task("grading", total=self.total)
        return self

    def advance(self) -> None:
        if self.progress is not None:
            self.progress.advance(self.task)

    def __exit__(self, *exc) -> None:
        if self.progress is not None:
            self.progress.stop()


def printable(text) -> str:
    """``text`` with every character a terminal would act on (escape sequences, carriage
    returns, bidirectional overrides) shown as its escape instead: a student's answer must
    not clear the teacher's screen or write their clipboard."""
    text = "" if text is None else str(text)
    if text.isprintable():
        return text
    out = []
    for ch in text:
        if ch.isprintable():
            out.append(ch)
        else:
            code = ord(ch)
            out.append({"\n": "\\n", "\t": "\\t", "\r": "\\r"}.get(ch) or
                       (f"\\x{code:02x}" if code < 0x100 else
                        f"\\u{code:04x}" if code < 0x10000 else f"\\U{code:08x}"))
    return "".join(out)


#: how each verdict is shown in the table
STYLE = {"correct": "green", "wrong": "red", "ambiguous": "yellow", "undecided": "yellow",
         "unreadable": "magenta"}


class _TableView:
    """Rows as lines of a table on the terminal, each printed as it is decided (above the
    progress bar); every text escaped (``printable``)."""

    def __init__(self, screen, active: bool) -> None:
        self.stream = screen if screen is not None else sys.stdout
        self.active = active
        self.bar = None
        self.console = None

    def _row_table(self, cells: list[str], header: bool = False):
        from rich.table import Table

        width = self.console.width
        table = Table(show_header=False, box=None, pad_edge=False, padding=(0, 1))
        fixed = [18, 22, 10, 7]
        table.add_column(width=fixed[0], no_wrap=True, overflow="ellipsis")
        table.add_column(width=fixed[1], no_wrap=True, overflow="ellipsis")
        table.add_column(width=fixed[2], no_wrap=True)
        table.add_column(width=fixed[3], no_wrap=True, justify="right")
        table.add_column(width=max(20, width - sum(fixed) - 10), overflow="fold")
        table.add_row(*cells, style="bold" if header else None)
        return table

    def show(self, outcome) -> None:
        if not self.active:
            return
        from rich.console import Console
        from rich.markup import escape

        from ...grading.reports import number_text

        if self.console is None:
            self.console = self.bar.console if self.bar and self.bar.console else \
                Console(file=self.stream)
            self.console.print(self._row_table(["who", "answer", "verdict", "score", "why"],
                                               True))
        who = " ".join(str(v) for v in outcome.identity.values() if v) or \
            " ".join(str(v) for v in list(outcome.cells.values())[:2] if v)
        score = "" if outcome.score is None else \
            f"{number_text(outcome.score).removesuffix('.0')}/" \
            f"{number_text(outcome.max_score).removesuffix('.0')}"
        verdict = f"[{STYLE[outcome.verdict]}]{outcome.verdict}[/]"
        self.console.print(self._row_table([escape(printable(who)),
                                            escape(printable(outcome.answer)), verdict,
                                            score, escape(printable(outcome.feedback()))]),
                           highlight=False)


def _draw_summary(stream, summary) -> None:
    from rich.console import Console
    from rich.markup import escape
    from rich.table import Table

    table = Table(title="summary", title_justify="left")
    for name, justify in [("problem", "left"), ("answers", "right"), ("correct", "right"),
                          ("wrong", "right"), ("other", "right"), ("mean score", "right"),
                          ("most frequent mistakes", "left")]:
        table.add_column(name, justify=justify)
    for row in summary.rows():
        mean = "" if row["mean_score"] is None else \
            f"{row['mean_score']:.2f} / {row['max_score']:g}"
        mistakes = ", ".join(f"{m['kind']} ({m['count']})" for m in row["mistakes"])
        table.add_row(escape(printable(row["problem"])), str(row["answers"]),
                      str(row["correct"]), str(row["wrong"]), str(row["other"]), mean,
                      escape(printable(mistakes)))
    Console(file=stream).print(table)
