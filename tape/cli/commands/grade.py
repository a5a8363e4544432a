"""``tape grade``: a class's answers checked in one run (SPEC section 9).

The answers file (CSV with a header, or JSON Lines; ``-`` is standard input) is read whole and
checked for what it must have before anything is graded: a file that cannot be graded stops
with exit 2 naming its line, before a single row is written. ``--key`` joins the problems in
by their ``problem`` column. Rows are then graded by ``tape.grading.grade`` and written as each
is decided, in input order: a CSV (the default when piped or with ``--out FILE.csv``), JSON
Lines, or on a terminal a table above a progress bar with a summary per problem at the end.
Ctrl-C kills the workers, writes every row already graded and exits 130.
"""
from __future__ import annotations

import sys
from collections import Counter
from enum import Enum
from typing import Annotated, Optional

import typer

from .. import options as O, output
from ...expr.errors import BAD_INPUT, INTERRUPTED

#: the columns that say who and what a row is, copied through when the input has them
WHO = ("id", "student", "problem")
#: what a --key row may give a row of answers
KEY_COLUMNS = ("expression", "wrt", "order", "implicit", "dependent", "kind", "constant")
#: output columns after the WHO columns (SPEC section 9)
COLUMNS = ("answer", "read_as", "verdict", "diagnosis", "counterexample", "notes")
JSON_SUFFIXES = (".jsonl", ".ndjson", ".json")


class GradeFormat(str, Enum):
    auto = "auto"
    table = "table"
    csv = "csv"
    json = "json"


def grade(
    answers: Annotated[str, typer.Argument(
        metavar="ANSWERS",
        help="CSV (with a header) or JSON Lines of answers, '-' for standard input: columns "
             "answer and expression (or problem, with --key), optionally id, student, wrt, "
             "order, implicit, dependent, kind (derivative or antiderivative), constant.")],
    key: Annotated[Optional[str], typer.Option(
        "--key", metavar="KEY.csv",
        help="The problems: problem, expression and optionally wrt, order, implicit, "
             "dependent, kind, constant; joined to the answers by problem.")] = None,
    out: Annotated[Optional[str], typer.Option(
        "--out", "-o", metavar="FILE",
        help="Write the graded rows to FILE (.csv, or .jsonl for JSON Lines) and show the "
             "progress and the summary on the terminal.")] = None,
    fmt: Annotated[GradeFormat, typer.Option(
        "--format", "-f", case_sensitive=False,
        help="auto (a table on a terminal, CSV when piped), table, csv or json (JSON "
             "Lines).")] = GradeFormat.auto,
    workers: Annotated[Optional[int], typer.Option(
        "--workers", "-j", min=1, max=256,
        help="Processes grading at once (default: one per core).")] = None,
    timeout: O.TimeoutOption = O.TIMEOUT,
) -> None:
    """Grade a file of answers: one row out per row in, each correct, wrong, ambiguous,
    undecided or unreadable, with the mistake and a counterexample. Exit 0 when every row was
    graded, 2 when the file cannot be read."""
    from ...grading.batch import grade as grade_rows

    if timeout <= 0:
        output.abort(f"--timeout must be a positive number of seconds, got {timeout}")
    rows, who = read_answers(answers, key)
    fmt = _resolve(fmt, out)
    screen = _screen(out)
    with _Destination(out) as stream:
        writer = WRITERS[fmt](stream, who, screen)
        summary = Summary()
        with grade_rows(rows, workers=workers, timeout=timeout) as grading, \
                _Bar(screen, len(rows)) as bar:
            writer.bar = bar
            try:
                for graded in grading:
                    writer.write(graded)
                    summary.add(graded)
                    bar.advance()
            except KeyboardInterrupt:
                for graded in grading.stop():
                    writer.write(graded)
                    summary.add(graded)
                writer.close()
                output.abort(f"interrupted: {summary.total} of {len(rows)} rows graded and "
                             f"written", INTERRUPTED)
        writer.close()
    if screen is not None and summary.total:
        summary.draw(screen)


# --------------------------------------------------------------------------- reading

class _Source:
    """A file's text, line by line, named for messages."""

    def __init__(self, path: str, role: str) -> None:
        self.path, self.role = path, role
        self.name = "standard input" if path == "-" else path
        try:
            if path == "-":
                data = sys.stdin.buffer.read() if hasattr(sys.stdin, "buffer") else \
                    sys.stdin.read().encode()
            else:
                with open(path, "rb") as handle:
                    data = handle.read()
        except OSError as exc:
            output.abort(f"{role}: cannot read {path}: {exc.strerror or exc}")
        try:
            self.text = data.decode("utf-8-sig")
        except UnicodeDecodeError as exc:
            line = data[:exc.start].count(b"\n") + 1
            output.abort(f"{self.name} line {line}: not UTF-8 text (a CSV or JSON Lines "
                         f"file is text; save a spreadsheet as CSV UTF-8)")
        if "\x00" in self.text:
            line = self.text[:self.text.index("\x00")].count("\n") + 1
            output.abort(f"{self.name} line {line}: not a text file (it has NUL bytes); "
                         f"give a CSV or JSON Lines file")

    def fail(self, line: int, message: str):
        output.abort(f"{self.name} line {line}: {message}")

    def is_json(self) -> bool:
        if self.path.lower().endswith(JSON_SUFFIXES):
            return True
        return self.text.lstrip().startswith("{")

    def records(self) -> tuple[list[str], list[tuple[int, dict]]]:
        """The column names and (line, row) of every row."""
        return self._json() if self.is_json() else self._csv()

    def _json(self):
        import json

        rows, columns = [], {}
        for number, line in enumerate(self.text.splitlines(), 1):
            if not line.strip():
                continue
            try:
                value = json.loads(line)
            except ValueError as exc:
                self.fail(number, f"not JSON ({exc.msg}); JSON Lines has one object per line")
            if not isinstance(value, dict):
                self.fail(number, f"a JSON Lines row is an object {{\"answer\": ...}}, not "
                                  f"{type(value).__name__}")
            row = {str(k).strip().lower(): v for k, v in value.items()}
            columns.update(dict.fromkeys(row))
            rows.append((number, row))
        return list(columns), rows

    def _csv(self):
        import csv
        import io

        reader = csv.reader(io.StringIO(self.text, newline=""))
        header, rows, line = None, [], 1
        try:
            for fields in reader:
                start, line = line, reader.line_num + 1
                if not any(f.strip() for f in fields):
                    continue
                if header is None:
                    header = [f.strip().lower() for f in fields]
                    header_line = start
                    for i, name in enumerate(header):
                        if not name:
                            self.fail(start, f"column {i + 1} of the header has no name")
                        if header.index(name) != i:
                            self.fail(start, f"the header names {name!r} twice")
                    continue
                if len(fields) != len(header):
                    self.fail(start, f"{len(fields)} fields where the header (line "
                                     f"{header_line}) has {len(header)}; an answer with a "
                                     f"comma goes in double quotes: \"log(x, 2)\"")
                rows.append((start, dict(zip(header, fields))))
        except csv.Error as exc:
            self.fail(line, f"not CSV ({exc})")
        if header is None:
            output.abort(f"{self.role}: {self.name} is empty; it needs a header row")
        return header, rows


def read_answers(path: str, key_path: Optional[str]) -> tuple[list[dict], list[str]]:
    """The rows to grade (problems joined from the key) and the WHO columns to copy, or exit 2
    naming the line of the first row that cannot be graded."""
    from ...grading.batch import RowError, task_of

    source = _Source(path, "ANSWERS")
    columns, records = source.records()
    key = _read_key(key_path) if key_path else None
    if "answer" not in columns:
        source.fail(1, f"no 'answer' column (the columns: {', '.join(columns) or 'none'})")
    if "expression" not in columns and key is None:
        source.fail(1, "no 'expression' column: give it, or a 'problem' column and the "
                       "problems with --key KEY.csv")
    if key is not None and "problem" not in columns and "expression" not in columns:
        source.fail(1, "no 'problem' column to join the --key by")
    rows = []
    for line, row in records:
        if key is not None and not _given(row.get("expression")):
            problem = str(row.get("problem") or "").strip()
            if problem not in key:
                source.fail(line, f"problem {problem!r} is not in the key {key_path}" if problem
                            else "no problem and no expression")
            row = {**row, **{k: v for k, v in key[problem].items()
                             if k in KEY_COLUMNS and not _given(row.get(k))}}
        try:
            task_of(row)
        except RowError as err:
            source.fail(line, str(err))
        rows.append(row)
    who = [c for c in WHO if c in columns] or ["id"]
    if who == ["id"] and "id" not in columns:
        for number, row in enumerate(rows, 1):
            row["id"] = number
    return rows, who


def _given(value) -> bool:
    return value is not None and str(value).strip() != ""


def _read_key(path: str) -> dict:
    source = _Source(path, "--key")
    columns, records = source.records()
    for needed in ("problem", "expression"):
        if needed not in columns:
            source.fail(1, f"no {needed!r} column in the key (its columns: "
                           f"{', '.join(columns)})")
    key, lines = {}, {}
    for line, row in records:
        problem = str(row.get("problem") or "").strip()
        if not problem:
            source.fail(line, "a key row without a problem")
        if problem in key:
            source.fail(line, f"problem {problem!r} again (first on line {lines[problem]})")
        if not _given(row.get("expression")):
            source.fail(line, f"problem {problem!r} has no expression")
        key[problem], lines[problem] = row, line
    return key


# --------------------------------------------------------------------------- writing

def _resolve(fmt: GradeFormat, out: Optional[str]) -> GradeFormat:
    if fmt is GradeFormat.auto:
        if out is not None:
            return GradeFormat.json if out.lower().endswith(JSON_SUFFIXES) else GradeFormat.csv
        return GradeFormat.table if output.is_terminal(sys.stdout) else GradeFormat.csv
    if fmt is GradeFormat.table and out is not None:
        output.abort("--format table is for the terminal; --out writes csv or json")
    return fmt


def _screen(out: Optional[str]):
    """The terminal stream for the progress bar and the summary, or None (piped: nothing but
    the rows)."""
    if out is None:
        return sys.stdout if output.is_terminal(sys.stdout) else None
    for stream in (sys.stdout, sys.stderr):
        if output.is_terminal(stream):
            return stream
    return None


class _Destination:
    def __init__(self, out: Optional[str]) -> None:
        self.out = out
        self.handle = None

    def __enter__(self):
        if self.out is None:
            return sys.stdout
        try:
            self.handle = open(self.out, "w", encoding="utf-8", newline="")
        except OSError as exc:
            output.abort(f"--out: cannot write {self.out}: {exc.strerror or exc}")
        return self.handle

    def __exit__(self, *exc) -> None:
        if self.handle is not None:
            self.handle.close()


class _Bar:
    """A progress bar on the terminal (nothing when piped)."""

    def __init__(self, screen, total: int) -> None:
        self.screen, self.total = screen, total
        self.progress = None
        self.console = None

    def __enter__(self) -> "_Bar":
        if self.screen is not None and self.total > 1:
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


def who_of(graded, who: list[str]) -> dict:
    return {c: _cell(graded.row.get(c)) for c in who}


def _cell(value) -> str:
    return "" if value is None else str(value)


def counterexample_text(graded) -> str:
    c = graded.counterexample
    if not c:
        return ""
    at = ", ".join(f"{k} = {v!r}" for k, v in c["at"].items())
    if graded.extra.get("kind") == "antiderivative":
        return (f"at {at}: the answer's derivative is {c['answer']!r}, the integrand is "
                f"{c['expected']!r}")
    return f"at {at}: the answer gives {c['answer']!r}, the derivative is {c['expected']!r}"


def diagnosis_text(graded) -> str:
    d = graded.diagnosis
    return f"{d['kind']}: {d['detail']}" if d else ""


def notes_of(graded) -> list[str]:
    notes = list(graded.notes or [])
    if graded.note:
        notes.append(graded.note)
    return notes


def record(graded, who: list[str]) -> dict:
    """A graded row as JSON Lines writes it."""
    return {**who_of(graded, who), "answer": graded.answer,
            "read_as": (graded.read_as or {}).get("answer"), "verdict": graded.status,
            "diagnosis": graded.diagnosis, "counterexample": graded.counterexample,
            "notes": notes_of(graded), "reason": graded.reason}


class _CsvWriter:
    def __init__(self, stream, who, screen) -> None:
        import csv

        self.stream, self.who = stream, who
        self.writer = csv.writer(stream, lineterminator="\n")
        self.writer.writerow([*who, *COLUMNS])
        stream.flush()          # before the workers are forked with a copy of the buffer
        self.bar = None

    def write(self, graded) -> None:
        notes = notes_of(graded)
        if graded.reason:
            notes.insert(0, graded.reason)
        self.writer.writerow([*who_of(graded, self.who).values(), graded.answer,
                              (graded.read_as or {}).get("answer") or "", graded.status,
                              diagnosis_text(graded), counterexample_text(graded),
                              "; ".join(notes)])
        self.stream.flush()

    def close(self) -> None:
        self.stream.flush()


class _JsonWriter(_CsvWriter):
    def __init__(self, stream, who, screen) -> None:
        self.stream, self.who = stream, who
        self.bar = None

    def write(self, graded) -> None:
        import json

        self.stream.write(json.dumps(record(graded, self.who), ensure_ascii=False) + "\n")
        self.stream.flush()


#: how each verdict is shown in the table
STYLE = {"correct": "green", "wrong": "red", "ambiguous": "yellow", "undecided": "yellow",
         "unreadable": "magenta"}


class _TableWriter:
    """Rows as lines of a table, each printed as it is decided (above the progress bar)."""

    def __init__(self, stream, who, screen) -> None:
        self.stream, self.who = stream, who
        self.bar = None
        self.console = None

    def _row_table(self, cells: list[str], header: bool = False):
        from rich.table import Table

        width = self.console.width
        table = Table(show_header=False, box=None, pad_edge=False, padding=(0, 1))
        fixed = [18, 22, 10]
        table.add_column(width=fixed[0], no_wrap=True, overflow="ellipsis")
        table.add_column(width=fixed[1], no_wrap=True, overflow="ellipsis")
        table.add_column(width=fixed[2], no_wrap=True)
        table.add_column(width=max(20, width - sum(fixed) - 8), overflow="fold")
        table.add_row(*cells, style="bold" if header else None)
        return table

    def write(self, graded) -> None:
        from rich.console import Console
        from rich.markup import escape

        if self.console is None:
            self.console = self.bar.console if self.bar and self.bar.console else \
                Console(file=self.stream)
            self.console.print(self._row_table(["who", "answer", "verdict", "why"], True))
        who = " ".join(v for v in who_of(graded, self.who).values() if v)
        why = graded.reason or diagnosis_text(graded) or counterexample_text(graded) or \
            "; ".join(notes_of(graded))
        verdict = f"[{STYLE[graded.status]}]{graded.status}[/]"
        self.console.print(self._row_table([escape(who), escape(graded.answer), verdict,
                                            escape(why)]), highlight=False)

    def close(self) -> None:
        pass


WRITERS = {GradeFormat.csv: _CsvWriter, GradeFormat.json: _JsonWriter,
           GradeFormat.table: _TableWriter}


class Summary:
    """Per problem (or per expression): how many answers, how many correct, and the most
    frequent diagnosed mistakes."""

    def __init__(self) -> None:
        self.total = 0
        self.problems: dict = {}

    def add(self, graded) -> None:
        self.total += 1
        name = str(graded.row.get("problem") or graded.expression or "")
        entry = self.problems.setdefault(name, {"answers": 0, "statuses": Counter(),
                                                "mistakes": Counter()})
        entry["answers"] += 1
        entry["statuses"][graded.status] += 1
        if graded.diagnosis:
            entry["mistakes"][graded.diagnosis["kind"]] += 1

    def draw(self, stream) -> None:
        from rich.console import Console
        from rich.markup import escape
        from rich.table import Table

        table = Table(title="summary", title_justify="left")
        for name, justify in [("problem", "left"), ("answers", "right"), ("correct", "right"),
                              ("wrong", "right"), ("other", "right"),
                              ("most frequent mistakes", "left")]:
            table.add_column(name, justify=justify)
        for name, entry in self.problems.items():
            s = entry["statuses"]
            other = entry["answers"] - s["correct"] - s["wrong"]
            mistakes = ", ".join(f"{kind} ({n})" for kind, n in entry["mistakes"].most_common(3))
            table.add_row(escape(name), str(entry["answers"]), str(s["correct"]),
                          str(s["wrong"]), str(other), escape(mistakes))
        Console(file=stream).print(table)
