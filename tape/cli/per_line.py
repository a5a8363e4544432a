"""Commands that answer a stream one line at a time (``tape diff -``, ``tape check --answers``):
each line is read as it arrives and answered on its own output line as soon as it is decided,
in one process (SPEC 14).

A command gives ``answer_lines`` a function from a line's text to an ``Answer`` (the one
output line in each format) and a function for the line of a failure. A blank line, or one
whose answer raises a ``CLIError``, is handled as ``--on-error`` says: ``stop`` (exit with the
error's code, every answer before it written), ``nan`` (its failure line, and on), ``skip`` (on;
both count the failures on standard error at the end). Lines starting with ``#`` are comments.

Formats: ``plain`` (and ``table``: a terminal shows the same lines) one text line; ``csv`` a
header row, then one row per line; ``json`` and ``ndjson`` one JSON document per line.
"""
from __future__ import annotations

from typing import Callable, Iterator, Optional

from . import output, points as P
from .options import Format
from ..expr.errors import CLIError
from ..expr.record import Record


class Answer(Record):
    """One input line's output: ``text`` (plain), ``fields`` (a CSV row), ``document``
    (JSON)."""

    _fields = ("text", "fields", "document")

    def __init__(self, text: str, fields: list[str], document: dict) -> None:
        self.text = text
        self.fields = fields
        self.document = document


def lines_of(source: str, stdin, what: str) -> tuple[Iterator[tuple[int, str]], str]:
    """The numbered lines of ``source`` (``-``: standard input, else a file), read as they
    arrive, and how messages name it."""
    if source == "-":
        return P.numbered_lines(stdin, "standard input"), "standard input"
    try:
        handle = open(source, encoding="utf-8", newline="")
    except OSError as exc:
        raise CLIError(f"{what}: cannot read {source!r}: {exc.strerror}") from None

    def lines():
        with handle:
            yield from P.numbered_lines(handle, source)

    return lines(), source


def answer_lines(lines: Iterator[tuple[int, str]], where: str, fmt: Format, on_error: str,
                 answer: Callable[[str], Answer], failed: Callable[[str, str], Answer],
                 header: list[str], nothing: str,
                 skip: Optional[Callable[[int, str], bool]] = None) -> int:
    """Write ``answer(text)`` of each line of ``lines`` in ``fmt`` as it is decided, failures
    as ``on_error`` says (module docstring); ``skip(number, text)`` leaves a line out (a
    header). Returns how many lines were answered; none at all is bad input (``nothing``
    says what was missing)."""
    write = _writer(fmt, header)
    answered = failures = 0
    first = ""
    try:
        for number, text in lines:
            if text.lstrip().startswith("#") or (skip is not None and skip(number, text)):
                continue
            try:
                if not text.strip():
                    raise CLIError("a blank line (one per line)")
                result = answer(text)
            except CLIError as exc:
                message = f"{where} line {number}: {exc.message}"
                if on_error == P.STOP:
                    raise CLIError(message, exc.code) from None
                failures += 1
                first = first or message
                if on_error == P.NAN:
                    write(failed(text, message))
                continue
            answered += 1
            write(result)
    except BrokenPipeError:
        from ..expr.errors import OutputClosed

        raise OutputClosed() from None
    if failures:
        done = "skipped" if on_error == P.SKIP else "written as nan"
        output.warn(f"{where}: {failures:,} line{'s' if failures != 1 else ''} could not be "
                    f"answered and {'were' if failures != 1 else 'was'} {done} (the first: "
                    f"{first})")
    if not answered and not failures:
        raise CLIError(f"{where}: {nothing}")
    return answered


def _writer(fmt: Format, header: list[str]) -> Callable[[Answer], None]:
    """A function writing one Answer (and flushing it) in ``fmt``."""
    import sys

    if fmt in (Format.json, Format.ndjson):
        from .jsonstream import write as write_json

        def write(result: Answer) -> None:
            write_json(result.document, sys.stdout)
            sys.stdout.flush()

        return write
    if fmt is Format.csv:
        import csv

        rows = csv.writer(sys.stdout, lineterminator="\n")
        started = []

        def write(result: Answer) -> None:
            if not started:
                rows.writerow(header)
                started.append(True)
            rows.writerow(result.fields)
            sys.stdout.flush()

        return write

    def write(result: Answer) -> None:
        sys.stdout.write(result.text + "\n")
        sys.stdout.flush()

    return write
