"""Reading the files an LMS or a spreadsheet exports (SPEC section 11): CSV in the dialect it
was saved in, JSON Lines, and the first sheet of an ``.xlsx`` workbook.

>>> import io
>>> table = read_table(io.BytesIO(b"\\xef\\xbb\\xbfStudent;Answer\\r\\nada;2x\\r\\n"), "a.csv")
>>> table.columns, [row for _, row in table.rows()]
(['Student', 'Answer'], [{'Student': 'ada', 'Answer': '2x'}])

CSV: the delimiter (``,`` ``;`` or tab) is the one the header row uses most; UTF-8 with or
without a byte order mark, UTF-16 with one; CRLF or LF; quoted fields may hold newlines;
header cells left empty at the end of the header (a spreadsheet's unused columns) are dropped
with their cells. A field may be as long as tape's longest expression. Rows are read as they
are needed (standard input is graded as it arrives), each with the line it starts on, for
messages. Column names keep their spelling; ``Table.column(name)`` finds one whatever its
case.
"""
from __future__ import annotations

import codecs
import csv
import io
import json
from dataclasses import dataclass, field
from typing import IO, Callable, Iterator, Optional

from ..expr.errors import CLIError
from ..expr.parse import MAX_LENGTH

#: the delimiters a spreadsheet writes, the first one winning a tie
DELIMITERS = (",", ";", "\t")
#: the longest field read: an answer up to tape's expression limit, with room for quoting
FIELD_LIMIT = 2 * MAX_LENGTH
JSON_SUFFIXES = (".jsonl", ".ndjson", ".json")
XLSX_SUFFIXES = (".xlsx", ".xlsm")

csv.field_size_limit(max(csv.field_size_limit(), FIELD_LIMIT))


class TableError(CLIError):
    """A file that cannot be read as a table (exit 2), its message naming the file and line."""


@dataclass
class Table:
    """A table as read: ``columns`` (names as spelt in the file, in order; JSON Lines adds
    names as rows bring them; a name the header has twice, as Canvas's points columns, is
    told apart as ``name (2)``, and ``headers`` keeps the names as given), ``kind``
    (``csv``, ``jsonl`` or ``xlsx``), ``delimiter`` (CSV) and ``rows()``, an iterator of
    ``(line, {column: value})``."""

    name: str
    kind: str
    columns: list
    rows: Callable[[], Iterator[tuple[int, dict]]]
    delimiter: str = ","
    headers: list = field(default_factory=list)
    line: int = 1
    lowered: dict = field(default_factory=dict)

    def column(self, name: str) -> Optional[str]:
        """The column called ``name`` in any case, as the file spells it, or None; a name the
        header gives two columns is an error when tape needs to read that column."""
        if len(self.lowered) != len(self.columns):
            self.lowered = {}
            for c, h in zip(self.columns, self.headers or self.columns):
                self.lowered.setdefault(h.strip().lower(), []).append(c)
        found = self.lowered.get(name.strip().lower(), [])
        if len(found) > 1:
            raise TableError(f"{self.name} line {self.line}: the header names {name!r} "
                             f"{len(found)} times; which one is meant?")
        return found[0] if found else None

    def header_of(self, column: str) -> str:
        """The name ``column`` has in the file's header."""
        if self.headers and column in self.columns:
            return self.headers[self.columns.index(column)]
        return column

    def fail(self, line: int, message: str):
        raise TableError(f"{self.name} line {line}: {message}")


def read_table(stream: IO[bytes], name: str, path: str = "") -> Table:
    """The table in the binary ``stream``, named ``name`` in messages; ``path``'s suffix
    says JSON Lines or XLSX, otherwise the first bytes do (``{`` JSON, ``PK`` a workbook)."""
    suffix = path.lower()
    head = _peek(stream, 4)
    if suffix.endswith(XLSX_SUFFIXES) or head.startswith(b"PK\x03\x04"):
        return _xlsx(stream, name)
    text = _decoded(stream, head, name)
    if suffix.endswith(JSON_SUFFIXES):
        return _jsonl(text, name, 1)
    first = _first_line(text, name)
    if first.lstrip().startswith("{"):
        return _jsonl(_Lines([first], text), name, text.line)
    return _csv(_Lines([first], text), name, first)


def _peek(stream, n: int) -> bytes:
    if hasattr(stream, "peek"):
        return stream.peek(n)[:n]
    if stream.seekable():
        start = stream.tell()
        data = stream.read(n)
        stream.seek(start)
        return data
    raise TypeError("read_table needs a buffered or seekable binary stream")


def _decoded(stream, head: bytes, name: str) -> "_Text":
    if head.startswith((codecs.BOM_UTF16_LE, codecs.BOM_UTF16_BE)):
        return _Text(io.TextIOWrapper(stream, encoding="utf-16", newline=""), name, "UTF-16")
    return _Text(stream, name, "UTF-8")


class _Text:
    """Decoded lines of a file (UTF-8 is decoded a line at a time, so that a byte that is not
    UTF-8 is named by its line); a NUL is an error naming its line too (a binary file)."""

    def __init__(self, handle, name: str, encoding: str) -> None:
        self.handle, self.name, self.encoding = handle, name, encoding
        self.line = 0

    def __iter__(self):
        return self

    def __next__(self) -> str:
        try:
            data = self.handle.readline()
            text = data.decode("utf-8-sig" if self.line == 0 else "utf-8") \
                if isinstance(data, bytes) else data
        except UnicodeDecodeError:
            raise TableError(f"{self.name} line {self.line + 1}: not {self.encoding} text (a "
                             f"CSV or JSON Lines file is text: save a spreadsheet as CSV "
                             f"UTF-8, or give the .xlsx itself)") from None
        if not text:
            raise StopIteration
        self.line += 1
        if "\x00" in text:
            raise TableError(f"{self.name} line {self.line}: not a text file (it has NUL "
                             f"bytes); give a CSV, JSON Lines or .xlsx file")
        return text


class _Lines:
    """Lines already read (to look at), then the rest."""

    def __init__(self, first: list, rest) -> None:
        self.first, self.rest = list(first), rest

    def __iter__(self):
        return self

    def __next__(self) -> str:
        if self.first:
            return self.first.pop(0)
        return next(self.rest)


def _first_line(text: _Text, name: str) -> str:
    """The first line that is not blank (``text.skipped``: the blank ones before it)."""
    text.skipped = 0
    for line in text:
        if line.strip():
            text.skipped = text.line - 1
            return line
    return ""


def _sniffed(header: str) -> str:
    """The delimiter the header row uses most, outside quotes."""
    counts = dict.fromkeys(DELIMITERS, 0)
    quoted = False
    for ch in header:
        if ch == '"':
            quoted = not quoted
        elif not quoted and ch in counts:
            counts[ch] += 1
    best = max(DELIMITERS, key=lambda d: counts[d])
    return best if counts[best] else ","


def _csv(lines: _Lines, name: str, first: str) -> Table:
    delimiter = _sniffed(first)
    skipped = getattr(lines.rest, "skipped", 0)
    if not first.strip():
        raise TableError(f"{name} is empty; it needs a header row")
    reader = csv.reader(lines, delimiter=delimiter)
    try:
        header = next(reader)
    except csv.Error as exc:
        raise TableError(f"{name} line {skipped + 1}: not CSV ({exc})") from None
    names = [h.strip() for h in header]
    while names and not names[-1]:
        names.pop()             # a spreadsheet's empty columns at the end
    header_line = skipped + 1
    for i, column in enumerate(names):
        if not column:
            raise TableError(f"{name} line {header_line}: column {i + 1} of the header has "
                             f"no name")
    headers, names = names, _distinct(names)
    width = len(names)
    table = Table(name, "csv", names, lambda: iter(()), delimiter, headers, header_line)

    def rows():
        line = reader.line_num + skipped + 1
        while True:
            start = line
            try:
                fields = next(reader)
            except StopIteration:
                return
            except csv.Error as exc:
                message = str(exc)
                if "field larger than field limit" in message:
                    message = (f"a field longer than {FIELD_LIMIT:,} characters (tape reads "
                               f"expressions up to {MAX_LENGTH:,})")
                raise TableError(f"{name} line {start}: not CSV ({message})") from None
            line = reader.line_num + skipped + 1
            if not any(f.strip() for f in fields):
                continue
            if len(fields) > width and not any(f.strip() for f in fields[width:]):
                fields = fields[:width]
            if len(fields) != width:
                raise TableError(f"{name} line {start}: {len(fields)} fields where the header "
                                 f"(line {header_line}) has {width}; an answer with a "
                                 f"{_NAMES[delimiter]} goes in double quotes: "
                                 f"\"log(x{delimiter} 2)\"")
            yield start, dict(zip(names, fields))

    table.rows = rows
    return table


_NAMES = {",": "comma", ";": "semicolon", "\t": "tab"}


def clean(value):
    """A JSON value with lone surrogates (``"\\ud800"``, which no UTF-8 file can hold)
    replaced by U+FFFD, in keys and nested values alike."""
    if isinstance(value, str):
        try:
            value.encode("utf-8")
            return value
        except UnicodeEncodeError:
            return value.encode("utf-16", "surrogatepass").decode("utf-16", "replace")
    if isinstance(value, dict):
        return {clean(k): clean(v) for k, v in value.items()}
    if isinstance(value, list):
        return [clean(v) for v in value]
    return value


def _jsonl(lines, name: str, start: int) -> Table:
    table = Table(name, "jsonl", [], lambda: iter(()))
    known = set()

    def rows():
        for number, line in enumerate(lines, start):
            if not line.strip():
                continue
            try:
                value = json.loads(line)
            except ValueError as exc:
                raise TableError(f"{name} line {number}: not JSON ({getattr(exc, 'msg', exc)}); "
                                 f"JSON Lines has one object per line") from None
            if not isinstance(value, dict):
                raise TableError(f"{name} line {number}: a JSON Lines row is an object "
                                 f"{{\"answer\": ...}}, not {type(value).__name__}")
            row = clean(value)
            for key in row:
                if key not in known:
                    known.add(key)
                    table.columns.append(key)
            yield number, row

    table.rows = rows
    return table


def _xlsx(stream, name: str) -> Table:
    """The first sheet of a workbook (values, not formulas); needs openpyxl."""
    try:
        import openpyxl
    except ImportError:
        raise TableError(f"{name}: reading .xlsx needs openpyxl: pip install 'tape[xlsx]' "
                         f"(or save the sheet as CSV UTF-8)") from None
    data = stream.read()
    try:
        book = openpyxl.load_workbook(io.BytesIO(data), read_only=True, data_only=True)
    except Exception as exc:  # noqa: BLE001  (openpyxl raises many kinds for a bad file)
        raise TableError(f"{name}: not an .xlsx workbook ({type(exc).__name__}: {exc})") \
            from None
    sheet = book.worksheets[0]
    cells = sheet.iter_rows(values_only=True)
    header, line = None, 0
    for values in cells:
        line += 1
        if any(_xlsx_text(v).strip() for v in values):
            header = [_xlsx_text(v).strip() for v in values]
            break
    if header is None:
        raise TableError(f"{name} is empty; it needs a header row")
    while header and not header[-1]:
        header.pop()
    for i, column in enumerate(header):
        if not column:
            raise TableError(f"{name} row {line}: column {i + 1} of the header has no name")
    headers, header = header, _distinct(header)
    width = len(header)

    def rows():
        number = line
        for values in cells:
            number += 1
            texts = [_xlsx_text(v) for v in values]
            if not any(t.strip() for t in texts):
                continue
            texts = (texts + [""] * width)[:width]
            yield number, dict(zip(header, texts))
        book.close()

    return Table(name, "xlsx", header, rows, ",", headers, line)


def _distinct(names: list) -> list:
    """The names, a repeated one (in any case) told apart as ``name (2)``, ``name (3)``."""
    seen: dict = {}
    out = []
    for column in names:
        n = seen[column.lower()] = seen.get(column.lower(), 0) + 1
        out.append(column if n == 1 else f"{column} ({n})")
    return out


def _xlsx_text(value) -> str:
    if value is None:
        return ""
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    if hasattr(value, "isoformat"):
        return value.isoformat()
    return str(value)
