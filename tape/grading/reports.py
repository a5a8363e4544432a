"""Writing what ``tape grade`` decided (SPEC section 11): graded rows as CSV, JSON Lines, one
JSON document, an XLSX sheet, a gradebook (one row per student) or Gradescope's
``results.json``, and the summary per problem as CSV or JSON.

Every text a student typed is written so that no spreadsheet runs it: a CSV cell that starts
with ``=``, ``+``, ``-``, ``@``, a tab or a carriage return and is not a number gets a leading
``'`` (OWASP's advice on CSV injection); an XLSX cell holding text is a string cell, never a
formula. A file is written whole or not at all (``Destination``: a temporary file beside it,
renamed over it when complete).

>>> spreadsheet_text('=HYPERLINK("http://x","click")'), spreadsheet_text("-1.5")
('\\'=HYPERLINK("http://x","click")', '-1.5')
"""
from __future__ import annotations

import io
import json
import math
import os
import stat
import tempfile
from dataclasses import dataclass, field
from typing import IO, Optional

from ..expr.errors import CLIError

#: what follows the input's columns in every graded row (SPEC section 11)
RESULT_COLUMNS = ("read_as", "verdict", "score", "max_score", "diagnosis", "counterexample",
                  "notes")
#: the output formats and the file names that ask for each
FORMATS = ("csv", "jsonl", "json", "xlsx", "gradebook", "gradescope")
SUFFIXES = {".csv": "csv", ".tsv": "csv", ".jsonl": "jsonl", ".ndjson": "jsonl",
            ".json": "json", ".xlsx": "xlsx"}
#: the first characters a spreadsheet takes as the start of a formula
FORMULA_START = ("=", "+", "-", "@", "\t", "\r")
#: the longest text an XLSX cell holds (Excel's limit)
XLSX_CELL = 32_767


class OutputError(CLIError):
    """A file that cannot be written (exit 2), naming it and why."""


def spreadsheet_text(value) -> str:
    """``value`` as CSV cell text no spreadsheet runs as a formula."""
    text = "" if value is None else str(value)
    if text.startswith(FORMULA_START) and text not in ("-", "+") and not _is_number(text):
        return "'" + text
    return text


def _is_number(text: str) -> bool:
    try:
        float(text)
    except ValueError:
        return False
    return text.strip() == text


def number_text(value: Optional[float]) -> str:
    return "" if value is None else repr(float(value))


# --------------------------------------------------------------------------- one graded row

@dataclass
class Outcome:
    """One graded answer as the outputs show it: the input's ``cells`` (in the output's
    columns), the verdict's words and numbers, and who and what it was (``student``,
    ``problem``)."""

    cells: dict
    answer: str
    read_as: Optional[str]
    verdict: str
    score: Optional[float]
    max_score: float
    diagnosis: Optional[dict]
    counterexample: Optional[dict]
    notes: list
    reason: Optional[str]
    problem: str
    student: Optional[str] = None
    line: int = 0
    kind: str = "derivative"
    identity: dict = field(default_factory=dict)
    #: a derivation's lines (kind ``work``): each line's number, text, verdict, reading...
    lines: Optional[list] = None

    def diagnosis_text(self) -> str:
        d = self.diagnosis
        if not d:
            return ""
        where = f"line {d['line']}: " if d.get("line") else ""
        return f"{where}{d['kind']}: {d['detail']}"

    def counterexample_text(self) -> str:
        c = self.counterexample
        if not c:
            return ""
        at = ", ".join(f"{k} = {v!r}" for k, v in c["at"].items())
        if "line_number" in c:      # a derivation's first wrong line
            other = "the derivative" if c.get("against") == "derivative" else \
                "the line before"
            return (f"at {at}: line {c['line_number']} gives {c['line']!r}, {other} gives "
                    f"{c['before']!r}")
        if self.kind == "antiderivative":
            return (f"at {at}: the answer's derivative is {c['answer']!r}, the integrand is "
                    f"{c['expected']!r}")
        return f"at {at}: the answer gives {c['answer']!r}, the derivative is " \
               f"{c['expected']!r}"

    def notes_text(self) -> str:
        return "; ".join(([self.reason] if self.reason else []) + list(self.notes))

    def feedback(self) -> str:
        """Why, in a sentence or two (the table's last column, Gradescope's ``output``)."""
        return self.reason or self.diagnosis_text() or self.counterexample_text() or \
            "; ".join(self.notes)

    def record(self) -> dict:
        """The row as JSON writes it."""
        cells = {(f"{k} (input)" if k in RESULT_COLUMNS or k == "reason" else k): v
                 for k, v in self.cells.items()}
        record = {**cells, "read_as": self.read_as, "verdict": self.verdict,
                  "score": self.score, "max_score": self.max_score,
                  "diagnosis": self.diagnosis, "counterexample": self.counterexample,
                  "notes": self.notes, "reason": self.reason}
        if self.lines is not None:
            record["lines"] = self.lines
        return record

    def texts(self, columns: list) -> list:
        """The row as CSV and XLSX write it: the input's cells, then ``RESULT_COLUMNS``."""
        return [*(_plain(self.cells.get(c)) for c in columns), self.read_as or "",
                self.verdict, self.score, self.max_score, self.diagnosis_text(),
                self.counterexample_text(), self.notes_text()]


def _plain(value) -> str:
    if value is None:
        return ""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (dict, list)):
        return json.dumps(value, ensure_ascii=False)
    return str(value)


# --------------------------------------------------------------------------- destinations

class Destination:
    """Where the output goes: a file written whole (a temporary file beside it renamed over
    it when ``commit()`` is called; a device or pipe, such as /dev/stdout, is written in
    place), or a given stream. ``binary`` is the byte stream to write to."""

    def __init__(self, path: Optional[str], stream: Optional[IO[bytes]] = None) -> None:
        self.path = self.final = path
        self.temp: Optional[str] = None
        self.binary = stream
        self.owned = False
        self._text: Optional[io.TextIOWrapper] = None
        if path is None:
            return
        try:
            mode = os.stat(path).st_mode
        except FileNotFoundError:
            mode = None
        except OSError as exc:
            raise OutputError(f"--out: cannot write {path}: {exc.strerror or exc}") from None
        try:
            if mode is not None and not stat.S_ISREG(mode):
                self.binary = open(path, "wb")
            else:
                # a link is followed: the file it names is replaced, the link stays
                self.final = os.path.realpath(path)
                folder = os.path.dirname(self.final)
                fd, self.temp = tempfile.mkstemp(prefix=f".{os.path.basename(self.final)}.",
                                                 suffix=".part", dir=folder)
                self.binary = os.fdopen(fd, "wb")
            self.owned = True
        except OSError as exc:
            raise OutputError(f"--out: cannot write {path}: {exc.strerror or exc}") from None

    def text(self) -> IO[str]:
        """A UTF-8 text stream on top (lines end with \\n; csv writes its own \\r\\n)."""
        if self._text is None:
            self._text = io.TextIOWrapper(self.binary, encoding="utf-8", newline="",
                                          write_through=True)
        return self._text

    def _untext(self) -> None:
        """Flush the text stream and let go of it without closing the bytes under it."""
        if self._text is not None:
            text, self._text = self._text, None
            try:
                text.flush()
            finally:
                text.detach()

    def commit(self) -> None:
        """The file is complete: put it in place."""
        try:
            self._untext()
            self.binary.flush()
            if self.temp is not None:
                os.fsync(self.binary.fileno())
                self.binary.close()
                if os.path.exists(self.final):
                    os.chmod(self.temp, stat.S_IMODE(os.stat(self.final).st_mode))
                else:
                    umask = os.umask(0)
                    os.umask(umask)
                    os.chmod(self.temp, 0o666 & ~umask)
                os.replace(self.temp, self.final)
                self.temp = None
            elif self.owned:
                self.binary.close()
        except OSError as exc:
            self.discard()
            raise OutputError(f"--out: cannot write {self.path}: {exc.strerror or exc}") \
                from None

    def discard(self) -> None:
        """Leave no partial file (an existing one stays as it was)."""
        if self._text is not None:
            try:
                self._text.detach()
            except (OSError, ValueError):
                pass
            self._text = None
        if self.owned:
            try:
                self.binary.close()
            except OSError:
                pass
        if self.temp is not None:
            try:
                os.unlink(self.temp)
            except OSError:
                pass
            self.temp = None


def format_of(fmt: Optional[str], out: Optional[str]) -> Optional[str]:
    """The output format: ``fmt`` when given, which ``out``'s name must not contradict; else
    the one ``out``'s name says; None when neither says."""
    suffix = os.path.splitext(out)[1].lower() if out else ""
    said = SUFFIXES.get(suffix)
    if fmt is None:
        return said
    if said is not None:
        fits = {"gradebook": ("csv", "xlsx"), "gradescope": ("json",)}.get(fmt, (fmt,))
        if said not in fits:
            raise OutputError(f"--format {fmt} and --out {out} disagree: {suffix} is "
                              f"{said}; name the file {_suggest(fmt)} or drop --format")
    return fmt


def _suggest(fmt: str) -> str:
    return {"csv": "*.csv", "jsonl": "*.jsonl", "json": "*.json", "xlsx": "*.xlsx",
            "gradebook": "*.csv or *.xlsx", "gradescope": "results.json"}[fmt]


# --------------------------------------------------------------------------- the writers

class RowsCsv:
    """Graded rows as CSV, one line per row as it is decided."""

    def __init__(self, destination: Destination, columns: list, delimiter: str = ",",
                 headers: Optional[list] = None) -> None:
        import csv

        self.stream = destination.text()
        self.columns = columns
        self.headers = headers
        self.writer = csv.writer(self.stream, delimiter=delimiter, lineterminator="\r\n")
        self.started = False

    def write(self, outcome: Outcome) -> None:
        if not self.started:
            self._header()
        self.writer.writerow([spreadsheet_text(t) if isinstance(t, str) else number_text(t)
                              for t in outcome.texts(self.columns)])
        self.stream.flush()

    def _header(self) -> None:
        # the columns known now are the file's (JSON Lines read as it comes may name more
        # later: those cells are left out, a CSV row having no room for them)
        self.started = True
        self.columns = list(self.columns)
        self.headers = list(self.headers or self.columns)
        self.writer.writerow([spreadsheet_text(c) for c in [*self.headers, *RESULT_COLUMNS]])

    def close(self, summary) -> None:
        if not self.started:
            self._header()
        self.stream.flush()


class RowsJsonLines:
    """Graded rows as JSON Lines, one object per row as it is decided."""

    def __init__(self, destination: Destination, columns: list) -> None:
        self.stream = destination.text()

    def write(self, outcome: Outcome) -> None:
        self.stream.write(json.dumps(outcome.record(), ensure_ascii=False) + "\n")
        self.stream.flush()

    def close(self, summary) -> None:
        self.stream.flush()


class RowsJson:
    """One JSON document: ``{"rows": [...], "summary": [...]}``, the rows written as they
    are decided."""

    def __init__(self, destination: Destination, columns: list) -> None:
        self.stream = destination.text()
        self.stream.write('{"rows": [')
        self.first = True

    def write(self, outcome: Outcome) -> None:
        self.stream.write(("\n" if self.first else ",\n") +
                          json.dumps(outcome.record(), ensure_ascii=False))
        self.first = False
        self.stream.flush()

    def close(self, summary) -> None:
        self.stream.write('],\n"summary": ' + json.dumps(summary.rows(), ensure_ascii=False)
                          + "}\n")
        self.stream.flush()


def _xlsx_workbook():
    try:
        from openpyxl import Workbook
    except ImportError:
        raise OutputError("writing .xlsx needs openpyxl: pip install 'tape[xlsx]'") from None
    return Workbook(write_only=True)


def _xlsx_cells(sheet, values: list) -> list:
    """Cells for a row: numbers as numbers, every text a string cell (never a formula),
    without the control characters XML cannot hold."""
    from openpyxl.cell import WriteOnlyCell
    from openpyxl.cell.cell import ILLEGAL_CHARACTERS_RE

    cells = []
    for value in values:
        if value is None or isinstance(value, (int, float)) and not isinstance(value, bool):
            cells.append(WriteOnlyCell(sheet, value=None if value is None or
                                       not math.isfinite(value) else value))
            continue
        text = ILLEGAL_CHARACTERS_RE.sub(lambda m: f"\\x{ord(m.group()):02x}", str(value))
        if len(text) > XLSX_CELL:
            text = text[:XLSX_CELL - 40] + f" ... ({len(text):,} characters in all)"
        cell = WriteOnlyCell(sheet, value=text)
        cell.data_type = "s"
        cells.append(cell)
    return cells


class RowsXlsx:
    """Graded rows as the one sheet of an XLSX workbook (written when complete)."""

    def __init__(self, destination: Destination, columns: list,
                 headers: Optional[list] = None) -> None:
        self.destination, self.columns = destination, columns
        self.book = _xlsx_workbook()
        self.sheet = self.book.create_sheet("graded")
        self.sheet.append(_xlsx_cells(self.sheet, [*(headers or columns), *RESULT_COLUMNS]))

    def write(self, outcome: Outcome) -> None:
        self.sheet.append(_xlsx_cells(self.sheet, outcome.texts(self.columns)))

    def close(self, summary) -> None:
        self.book.save(self.destination.binary)


class Gradebook:
    """One row per student: who they are, a column per problem with its score, ``total`` and
    ``max_total`` (CSV or XLSX). A student who answered a problem more than once keeps the
    best score; a problem whose verdict is ambiguous or undecided is left empty (a person
    decides) and counts in ``max_total`` only."""

    def __init__(self, destination: Destination, columns: list, xlsx: bool = False,
                 delimiter: str = ",", headers: Optional[list] = None) -> None:
        self.destination, self.xlsx, self.delimiter = destination, xlsx, delimiter
        self.named = dict(zip(columns, headers or columns))
        self.students: dict = {}
        self.problems: dict = {}        # problem -> max_score, in order of appearance

    def write(self, outcome: Outcome) -> None:
        who = tuple(outcome.identity.items())
        entry = self.students.setdefault(who, {})
        self.problems.setdefault(outcome.problem, outcome.max_score)
        if outcome.score is not None:
            best = entry.get(outcome.problem)
            entry[outcome.problem] = outcome.score if best is None else max(best,
                                                                            outcome.score)
        else:
            entry.setdefault(outcome.problem, None)

    def table(self) -> tuple[list, list]:
        names = list(dict.fromkeys(k for who in self.students for k, _ in who))
        header = [*(self.named.get(n, n) for n in names), *self.problems, "total",
                  "max_total"]
        max_total = sum(self.problems.values())
        rows = []
        for who, scores in self.students.items():
            known = dict(who)
            total = sum(s for s in scores.values() if s is not None)
            rows.append([*(known.get(n, "") for n in names),
                         *(scores.get(p) for p in self.problems), total, max_total])
        return header, rows

    def close(self, summary) -> None:
        header, rows = self.table()
        if self.xlsx:
            book = _xlsx_workbook()
            sheet = book.create_sheet("gradebook")
            sheet.append(_xlsx_cells(sheet, header))
            for row in rows:
                sheet.append(_xlsx_cells(sheet, row))
            book.save(self.destination.binary)
            return
        import csv

        stream = self.destination.text()
        writer = csv.writer(stream, delimiter=self.delimiter, lineterminator="\r\n")
        writer.writerow([spreadsheet_text(h) for h in header])
        for row in rows:
            writer.writerow([number_text(v) if isinstance(v, (int, float)) or v is None
                             else spreadsheet_text(_plain(v)) for v in row])
        stream.flush()


class Gradescope:
    """Gradescope's autograder ``results.json`` for one submission: ``score`` (the total),
    one test per graded answer (``name``, ``score``, ``max_score``, ``status``, the
    feedback as ``output``), the summary as the top ``output``, and the total possible in
    ``extra_data.max_score``."""

    def __init__(self, destination: Destination, columns: list) -> None:
        self.destination = destination
        self.tests: list = []
        self.students: dict = {}

    def write(self, outcome: Outcome) -> None:
        if outcome.student:
            self.students[outcome.student] = None
        number = len(self.tests) + 1
        name = f"problem {outcome.problem}" if outcome.problem else f"answer {number}"
        output = f"answer: {outcome.answer}\nverdict: {outcome.verdict}"
        if outcome.feedback():
            output += f"\n{outcome.feedback()}"
        test = {"name": name, "number": str(number),
                "score": outcome.score if outcome.score is not None else 0.0,
                "max_score": outcome.max_score,
                "status": "passed" if outcome.verdict == "correct" else "failed",
                "output": output}
        if outcome.score is None:
            test["output"] += "\n(not scored: a person will look at this answer)"
        self.tests.append(test)

    def close(self, summary) -> None:
        if len(self.students) > 1:
            names = list(self.students)
            raise OutputError(f"--format gradescope writes the results.json of one submission; "
                              f"these answers are {len(names)} students' ("
                              f"{', '.join(names[:3])}{', ...' if len(names) > 3 else ''}): "
                              f"grade each submission on its own, or use --format gradebook")
        score = sum(t["score"] for t in self.tests)
        most = sum(t["max_score"] for t in self.tests)
        doc = {"score": score, "output": f"{score:g} of {most:g} points",
               "extra_data": {"max_score": most}, "tests": self.tests}
        stream = self.destination.text()
        stream.write(json.dumps(doc, ensure_ascii=False, indent=2) + "\n")
        stream.flush()


def writer_for(fmt: str, destination: Destination, columns: list, *, delimiter: str = ",",
               xlsx: bool = False, headers: Optional[list] = None):
    """The writer of ``fmt`` (one of ``FORMATS``) onto ``destination``; ``headers`` name the
    ``columns`` in CSV and XLSX (the input's own spelling, repeats and all)."""
    if fmt == "csv":
        return RowsCsv(destination, columns, delimiter, headers)
    if fmt == "xlsx":
        return RowsXlsx(destination, columns, headers)
    if fmt == "gradebook":
        return Gradebook(destination, columns, xlsx, delimiter, headers)
    return {"jsonl": RowsJsonLines, "json": RowsJson, "xlsx": RowsXlsx,
            "gradescope": Gradescope}[fmt](destination, columns)


def write_summary(summary, path: str) -> None:
    """The summary per problem to ``path``: JSON when it ends ``.json``, else CSV."""
    destination = Destination(path)
    try:
        stream = destination.text()
        if path.lower().endswith(".json"):
            stream.write(json.dumps(summary.rows(), ensure_ascii=False, indent=1) + "\n")
        else:
            import csv

            writer = csv.writer(stream, lineterminator="\r\n")
            writer.writerow(["problem", "answers", "correct", "wrong", "other", "mean_score",
                             "max_score", "most_frequent_mistakes"])
            for r in summary.rows():
                writer.writerow([spreadsheet_text(r["problem"]), r["answers"], r["correct"],
                                 r["wrong"], r["other"], number_text(r["mean_score"]),
                                 number_text(r["max_score"]),
                                 "; ".join(f"{m['kind']} ({m['count']})"
                                           for m in r["mistakes"])])
        stream.flush()
        destination.commit()
    except OSError as exc:
        destination.discard()
        raise OutputError(f"--summary: cannot write {path}: {exc.strerror or exc}") from None
    except BaseException:
        destination.discard()
        raise


def outcome_of(graded, row, identity: list) -> Outcome:
    """The ``Outcome`` of a ``Graded`` verdict on an ``exercises.AnswerRow`` (a plain
    mapping too: then every column is its cell and the score is all or nothing of 1)."""
    from .scoring import score_of

    points = getattr(row, "points", 1.0)
    policy = getattr(row, "policy", {})
    cells = getattr(row, "cells", row)
    notes = list(graded.notes or [])
    if graded.note:
        notes.append(graded.note)
    work = getattr(graded, "work", None)
    problem = getattr(row, "problem", None)
    if problem is None:
        problem = str(row.get("problem") or graded.expression or "")
    return Outcome(
        cells=cells, answer=graded.answer, read_as=(graded.read_as or {}).get("answer"),
        verdict=graded.status,
        score=score_of(graded.status, graded.diagnosis, points, policy, work),
        max_score=points, diagnosis=graded.diagnosis, counterexample=graded.counterexample,
        notes=notes, reason=graded.reason, problem=problem,
        student=getattr(row, "student", None), line=getattr(row, "line", 0),
        kind=graded.extra.get("kind") if graded.extra.get("kind") in ("antiderivative", "work")
        else "derivative",
        identity={c: cells.get(c, "") for c in identity},
        lines=[line.to_dict() for line in work.lines] if work is not None else None)
