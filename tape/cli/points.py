"""Points at which to evaluate: ``--at``, ``--at -`` (standard input) and ``--points FILE.csv``.

Point syntax (one point): ``0.5`` (one variable), ``1,2`` (positional, in variable order),
``x=1,y=2`` (named), ``x=[1,2,3]`` (a vector variable). Commas split only outside brackets.
A value is a number, or a constant expression such as ``pi/4`` or ``2^0.5``. On standard input
there is one point per line (commas or blanks separate positional values; lines starting with
``#`` are comments). A CSV file has a header row naming the variables; its other columns are
passed through to the output (``Block.extra``).

Each line of standard input and each row of a CSV file is one point, so that the output lines up
with the input: a blank line, or one that cannot be read, is handled by the ``--on-error``
policy (``Misreads``): ``stop`` yields the points before it, then raises its error; ``skip``
drops it and counts it; ``nan`` keeps its row in the block (``Block.errors``) with a stand-in
point, whose results the command replaces by nan.

All points are stacked into one array per variable: shape ``(N,)`` for a scalar variable and
``(N, k)`` for a vector one, ready for one vectorized pass.
"""
from __future__ import annotations

import collections
import io
import itertools
import math
import os
import re
import sys
import warnings
from typing import Iterable, Iterator

import numpy as np

from ..calculus.derivatives import Points  # noqa: F401  (readers return them)
from . import output
from ..expr.errors import CLIError, ExprError
from ..expr.notation import split_top_level
from ..expr.parse import MAX_VECTOR_LENGTH, check_look_alikes, normalize

#: most points accepted in one run (--at, --at -, --points); memory grows with the count
MAX_POINTS = 10_000_000
#: characters of a numeric CSV parsed at a time by the fast path
CSV_SLICE = 4_000_000
#: points read from a stream (standard input, a CSV file) before they are evaluated and printed
STREAM_BLOCK = 65_536
#: bytes taken from a file descriptor at a time (whatever of it has arrived)
READ_BYTES = 1 << 20
#: one line of points (a CSV row, an --at - line) may be this long; an endless line (a
#: binary file, /dev/zero) is refused at this length instead of filling memory. Reading and
#: parsing a line takes about 12 bytes a character, so the longest line fits the smallest
#: budget (128 MB); 30 vectors of 10,000 components at full precision fit in it
MAX_LINE_CHARACTERS = 1 << 23
#: the longest CSV field read (the csv module's limit is a C long on some platforms)
CSV_FIELD_LIMIT = 2**31 - 1


def too_many_points(where: str) -> str:
    """The message for more than ``MAX_POINTS`` points."""
    return (f"{where}: more than {MAX_POINTS:,} points (the limit on points per run); "
            f"split the input")
from ..expr.record import Record


#: the ``--on-error`` policies (``options.OnError``'s values)
STOP, NAN, SKIP = "stop", "nan", "skip"


class Block(Points):
    """Points read one per line (``--at -``) or per row (``--points``), with what a plain
    ``Points`` lacks: ``errors`` maps each row whose line could not be read (``--on-error
    nan``) to its message; that row holds a stand-in point (another row's, or zeros), whose
    results are to be replaced by nan. ``extra`` holds, per row, the texts of the CSV columns
    named ``extra_names`` that are not variables (passed through to the output)."""

    _fields = ("names", "arrays", "count", "errors", "extra_names", "extra")

    def __init__(self, names: list[str], arrays: dict, count: int,
                 errors: dict | None = None, extra_names: tuple = (),
                 extra: list | None = None) -> None:
        super().__init__(names, arrays, count)
        self.errors = {} if errors is None else errors
        self.extra_names = tuple(extra_names)
        self.extra = extra

    def slice(self, start: int, stop: int) -> "Block":
        part = super().slice(start, stop)
        errors = {i - start: m for i, m in self.errors.items() if start <= i < stop}
        return Block(part.names, part.arrays, part.count, errors, self.extra_names,
                     None if self.extra is None else self.extra[start:stop])


class Misread(CLIError):
    """The line ``--on-error stop`` stops at (bad input: exit 2)."""


class Misreads:
    """What the ``--on-error`` ``policy`` does with the lines of one input that cannot be
    read (``take``), and the count said on standard error at the end (``summary``)."""

    def __init__(self, policy: str = STOP) -> None:
        self.policy = policy
        self.count = 0
        self.first = ""
        self.filler: dict | None = None       # the last point read, to stand in for bad ones
        self.pending: list = []               # (message, extra) of bad lines before any point
        self.sizes: dict | None = None        # each variable's vector length at the points read

    def shaped(self, point: dict, at: str) -> dict | str:
        """``point``, or the message saying that a variable's shape differs from the points
        before it (a vector of another length: the line is bad, not the whole input)."""
        sizes = {n: len(v) if isinstance(v, list) else None for n, v in point.items()}
        if self.sizes is None:
            self.sizes = sizes
            return point
        changed = next((n for n in sizes if sizes[n] != self.sizes.get(n)), None)
        if changed is None:
            return point

        def shape(k):
            return "a scalar" if k is None else f"a vector of {k}"

        return (f"{at}: {changed!r} is {shape(sizes[changed])} here and "
                f"{shape(self.sizes[changed])} at the points before")

    def scalars(self, names: list[str]) -> None:
        """Points of plain numbers were read (every variable a scalar)."""
        if self.sizes is None:
            self.sizes = {n: None for n in names}

    def take(self, parsed: list, names: list[str], where: str,
             extra_names: tuple = (), extras: list | None = None) -> Iterator[Points]:
        """The blocks of ``parsed`` (a point dict, or the message of a line that could not be
        read, per line; ``extras``: per line, its pass-through texts), as the policy says."""
        bad = [i for i, p in enumerate(parsed) if isinstance(p, str)]
        if not bad and not self.pending:
            if parsed:
                self.filler = parsed[-1]
                yield _with_extra(stack(parsed, names, where), extra_names, extras)
            return
        if bad and not self.count:
            self.first = parsed[bad[0]]
        self.count += len(bad)
        if self.policy == STOP:
            if bad[0]:
                yield _with_extra(stack(parsed[:bad[0]], names, where), extra_names,
                                  None if extras is None else extras[:bad[0]])
            raise Misread(parsed[bad[0]])
        if self.policy == SKIP:
            keep = [i for i, p in enumerate(parsed) if not isinstance(p, str)]
            if keep:
                self.filler = parsed[keep[-1]]
                yield _with_extra(stack([parsed[i] for i in keep], names, where), extra_names,
                                  None if extras is None else [extras[i] for i in keep])
            return
        good = next((p for p in parsed if not isinstance(p, str)), self.filler)
        if good is None:        # no point read yet: the lines wait for one (their stand-in)
            self.pending += [(p, None if extras is None else extras[i])
                             for i, p in enumerate(parsed)]
            return
        if self.pending:
            parsed = [m for m, _ in self.pending] + parsed
            extras = None if extras is None else [e for _, e in self.pending] + extras
            self.pending = []
        yield self._block(parsed, good, names, where, extra_names, extras)

    def _block(self, parsed, good, names, where, extra_names, extras) -> "Block":
        errors = {i: p for i, p in enumerate(parsed) if isinstance(p, str)}
        points = [good if isinstance(p, str) else p for p in parsed]
        self.filler = points[-1]
        block = stack(points, names, where)
        return Block(block.names, block.arrays, block.count, errors, extra_names, extras)

    def finish(self, names: list[str], where: str,
               extra_names: tuple = ()) -> Iterator[Points]:
        """The lines still waiting at the end of the input (``nan``, no point ever read):
        zeros stand in for them."""
        if self.pending:
            zeros = {n: 0.0 for n in names}
            parsed, extras = [m for m, _ in self.pending], [e for _, e in self.pending]
            self.pending = []
            yield self._block(parsed, zeros, names, where, extra_names,
                              extras if extra_names else None)

    def summary(self) -> str | None:
        """The standard-error line for the lines that could not be read (None: there were
        none, or ``stop``, whose error says it)."""
        if not self.count or self.policy == STOP:
            return None
        lines = f"{self.count:,} line{'s' if self.count != 1 else ''}"
        done = "skipped" if self.policy == SKIP else "written as nan"
        return f"{lines} could not be read and {'were' if self.count != 1 else 'was'} " \
               f"{done} (the first: {self.first})"


def _with_extra(points: Points, extra_names: tuple, extras: list | None) -> Points:
    if not extra_names:
        return points
    return Block(points.names, points.arrays, points.count, None, extra_names, extras)


#: ``1e``, ``2e+``: a number whose exponent is missing (not ``1*e``, which is written so); a
#: plain string compiled (and cached by ``re``) on first use, which only a value that is not
#: a plain number reaches: compiling it at import cost ~0.2 ms of every start
_INCOMPLETE_EXPONENT = r"[+-]?((?:[0-9]+\.?[0-9]*|\.[0-9]+))[eE][+-]?$"


_NOTED: set = set()     # reading notes on point values this run has written

#: characters of a long input that a message quotes (the start of it, then its length): a
#: message is a line, whatever was typed or piped
QUOTE_CHARACTERS = 40


def quoted(text: str) -> str:
    """``text`` as a message quotes it: its repr, or for a long text the repr of its start
    followed by its length."""
    if len(text) <= QUOTE_CHARACTERS:
        return repr(text)
    return f"{text[:QUOTE_CHARACTERS]!r}... ({len(text):,} characters)"


def shortened(text: str) -> str:
    """``text`` as it is when short, else quoted (``quoted``)."""
    return text if len(text) <= QUOTE_CHARACTERS else quoted(text)


#: what a point's values may be, said after every value refused for not being one
FINITE_ONLY = "a point's values must be finite real numbers"


def _not_finite(text: str, value: float, where: str) -> CLIError:
    """The error for a value that is nan or infinite: the derivative there means nothing,
    and an inf or nan typed on purpose is as likely a slip (a NaN in a data file) as not."""
    plain = text.strip().lstrip("+-").lower()
    if plain in ("nan", "inf", "infinity"):
        what = "is NaN, not a number" if plain == "nan" else "is infinite"
    elif not _is_expression(text):
        what = "is too large for a float (beyond 1.8e308)"
    else:
        what = f"has no finite real value (it evaluates to {value!r})"
    return CLIError(f"{where}: {quoted(text)} {what}; {FINITE_ONLY}")


def _is_expression(text: str) -> bool:
    try:
        float(text)
    except ValueError:
        return True
    return False


def parse_number(text: str, where: str) -> float:
    """A finite float from ``text``: a number or a constant expression (``pi/4``)."""
    text = text.strip()
    try:
        value = float(text)
    except ValueError:
        value = None
    if value is not None:
        if math.isfinite(value):
            return value
        raise _not_finite(text, value, where)
    from ..expr import parse as expr, lower

    if not text:
        raise CLIError(f"{where}: a value is missing")
    if text.startswith("["):        # a vector inside a vector (brackets group in formulas)
        raise CLIError(f"{where}: {text!r} is not a number")
    incomplete = re.match(_INCOMPLETE_EXPONENT, text)
    if incomplete:
        mantissa = incomplete.group(1)
        raise CLIError(f"{where}: {quoted(text)} has an incomplete exponent; write "
                       f"{mantissa}e0 for the number {mantissa} or {mantissa}*e for "
                       f"{mantissa} times Euler's number")
    try:
        reading = expr.read(text)
    except ExprError:
        raise CLIError(f"{where}: {quoted(text)} is not a number") from None
    tree = reading.tree
    if expr.free_variables(tree):
        raise CLIError(f"{where}: {quoted(text)} is not a number (it has variables)")
    lower.check_shapes(tree, {}, text)
    for note in reading.notes:          # sin pi/2 is sin(pi)/2: said once per run, as a target's
        if note not in _NOTED:
            _NOTED.add(note)
            output.note(f"{where}: {note}")
    with np.errstate(all="ignore"):
        value = float(np.asarray(lower.to_tape(tree, [])()).reshape(-1)[0])
    if not math.isfinite(value):        # sqrt(-1), 1/0, exp(1000)
        raise _not_finite(text, value, where)
    return value


def parse_value(text: str, where: str):
    """A float, or a list of floats for ``[1, 2, 3]``."""
    text = text.strip()
    if text.startswith("["):
        if not text.endswith("]"):
            raise CLIError(f"{where}: {quoted(text)} has an unclosed bracket")
        items = split_top_level(text[1:-1])
        if items == [""]:
            raise CLIError(f"{where}: {quoted(text)} is an empty vector")
        if len(items) > MAX_VECTOR_LENGTH:
            raise CLIError(f"{where}: a vector of {len(items):,} components; the limit is "
                           f"{MAX_VECTOR_LENGTH:,} components per vector variable")
        return [parse_number(item, where) for item in items]
    return parse_number(text, where)


def parse_point(text: str, names: list[str], where: str = "--at") -> dict:
    """Parse one point into ``{name: value}`` covering exactly ``names``."""
    parts = split_top_level(text.strip())
    if parts == [""]:
        raise CLIError(f"{where}: empty point")
    empty = next((i for i, p in enumerate(parts, 1) if not p.strip()), None)
    if empty is not None:
        # never dropped: "1,,2" read as (1, 2) would shift every value after the gap
        raise CLIError(f"{where}: a value is missing: field {empty} of "
                       f"{quoted(text.strip())} is empty (give one in every comma-separated "
                       f"field)")
    named = ["=" in p for p in parts]
    if all(named):
        point = {}
        for part in parts:
            name, _, value = part.partition("=")
            name = normalize(name)
            if name not in names:
                check_look_alikes([*names, name])
                have = ", ".join(names) if names else "none"
                raise CLIError(f"{where}: {quoted(name)} is not a variable of the target "
                               f"(its variables: {have})")
            if name in point:
                raise CLIError(f"{where}: {quoted(name)} is given twice")
            point[name] = parse_value(value, f"{where} {name}")
        missing = [n for n in names if n not in point]
        if missing:
            raise CLIError(f"{where}: no value for {', '.join(map(repr, missing))} "
                           f"(give every variable: {', '.join(names)})")
        return {n: point[n] for n in names}
    if any(named):
        raise CLIError(f"{where}: {quoted(text)} mixes named and positional values")
    if len(parts) != len(names):
        have = ", ".join(names) if names else "no variables"
        raise CLIError(f"{where}: {quoted(text)} gives {len(parts):,} value"
                       f"{'s' if len(parts) != 1 else ''} but the target has "
                       f"{len(names)} ({have})")
    return {n: parse_value(p, f"{where} {n}") for n, p in zip(names, parts)}


def stack(points: list[dict], names: list[str], where: str = "--at") -> Points:
    """Stack parsed points into one array per variable, checking shapes agree."""
    arrays = {}
    for name in names:
        column = [p[name] for p in points]
        kinds = {len(v) if isinstance(v, list) else None for v in column}
        if len(kinds) > 1:
            raise CLIError(f"{where}: {name!r} has different shapes at different points "
                           f"({', '.join(sorted('scalar' if k is None else f'length {k}' for k in kinds))})")
        arrays[name] = np.asarray(column, dtype=np.float64)
    return Points(list(names), arrays, len(points))


def from_text(text: str, names: list[str], where: str) -> Points:
    """Points from text, one per line (the ``--at -`` format)."""
    return concatenate(list(stream_lines(io.StringIO(text), names, where)), names)


def _numeric_rows(text: str, width: int) -> np.ndarray | None:
    """Fast path for the common pipeline case, every line ``width`` plain numbers separated
    by commas or blanks: NumPy's C reader. None when the text needs the general path."""
    if width == 0 or "=" in text or "[" in text:
        return None
    if "," in text and re.search(_EMPTY_FIELD, text):
        return None     # commas become blanks below, which would drop the empty field
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")          # "input contained no data"
            rows = np.loadtxt(io.StringIO(text.replace(",", " ")), dtype=np.float64,
                              comments="#", ndmin=2)
    except ValueError:
        return None
    if rows.shape[0] and rows.shape[1] != width:
        return None
    if not np.isfinite(rows).all():
        return None     # nan, inf, 1e999: the careful path names the line and the value
    return rows


#: an empty comma-separated field: a comma first on a line, or followed by blanks and another
#: comma or the line's end (compiled by re on first use)
_EMPTY_FIELD = r"(?m)^[ \t]*,|,[ \t]*(?:,|$)"


def from_at(values: list[str], names: list[str], stdin: io.TextIOBase) -> Points:
    """Points from the ``--at`` options (``-`` reads standard input), all at once."""
    return gather(stream_at(values, names, stdin), names, "--at")


def from_csv(path: str, names: list[str], stdin: io.TextIOBase) -> Points:
    """Points from a CSV file whose header names the variables (``-``: standard input), all
    at once."""
    where = "standard input" if path == "-" else path
    return gather(stream_csv(path, names, stdin), names, f"--points {where}")


def gather(blocks: Iterator[Points], names: list[str], where: str,
           stopped: list | None = None) -> Points:
    """Every block of a stream joined, refusing more than ``MAX_POINTS`` as they come. With a
    list ``stopped``, a stop at a line that cannot be read (``--on-error stop``) ends the
    points there and its error is appended to the list."""
    parts, count = [], 0
    try:
        for block in blocks:
            count += block.count
            if count > MAX_POINTS:
                raise CLIError(too_many_points(where))
            parts.append(block)
    except Misread as exc:
        if stopped is None or not parts:
            raise
        stopped.append(exc)
    return concatenate(parts, names)


def raising(error: Exception) -> Iterator[Points]:
    """Blocks of points that end at once, with ``error``."""
    raise error
    yield   # (a generator: raised when iterated)


def stream_at(values: list[str], names: list[str], stdin: io.TextIOBase,
              block: int | None = None, misreads: Misreads | None = None
              ) -> Iterator[Points]:
    """The ``--at`` points in blocks of at most ``block``: the ones on the command line first
    (read now), then standard input's (``-``) as its lines arrive, one point per line. When
    every point is on the command line, the blocks are a plain iterator over what is in hand."""
    given = [parse_point(v, names) for v in values if v.strip() != "-"]
    first = [stack(given, names)] if given else []
    if given and misreads is not None:
        misreads.shaped(given[0], "--at")       # the lines that follow take these shapes
    if not _reads_stdin(values):
        return iter(first)
    return itertools.chain(first, decoded(stream_lines(stdin, names, "standard input",
                                                       block or STREAM_BLOCK, misreads),
                                          "standard input"))


def _reads_stdin(values: list[str]) -> bool:
    """Whether ``--at`` values include ``-``: the points that follow come from standard input."""
    return any(v.strip() == "-" for v in values)


def decoded(blocks: Iterator[Points], where: str) -> Iterator[Points]:
    """``blocks`` (from ``stream_at`` or ``stream_csv``), with input that is not UTF-8 text
    reported as bad input (exit 2) naming ``where`` and the byte."""
    try:
        yield from blocks
    except UnicodeDecodeError as exc:
        raise CLIError(f"{where}: not UTF-8 text ({exc.reason} at byte {exc.start})") from None


def from_options(at: list[str] | None, points_file: str | None, names: list[str],
                 stdin: io.TextIOBase, on_error: str = STOP
                 ) -> tuple[Points, Iterator[Points] | None, str]:
    """The points a command was given by ``--at`` or ``--points``: the first block, read now
    (its faults are reported before anything else is done), the blocks still to read (None
    when every point was on the command line), and where they come from, as messages name
    it. A line of standard input or a row of the file that cannot be read is handled as
    ``on_error`` says (``Misreads``); a point given on the command line is always read or
    refused."""
    _NOTED.clear()
    misreads = Misreads(on_error)
    if at and points_file:
        raise CLIError("give the points with --at or with --points, not both")
    if at:
        blocks, where = stream_at(at, names, stdin, misreads=misreads), "--at"
        in_hand = not _reads_stdin(at)
    elif points_file:
        where = f"--points {'standard input' if points_file == '-' else points_file}"
        blocks = decoded(stream_csv(points_file, names, stdin, misreads=misreads),
                         f"--points {points_file}")
        in_hand = False
    elif names:
        raise CLIError(f"the target has variables ({', '.join(names)}): say where to "
                       f"evaluate with --at or --points")
    else:
        return Points([], {}, 1), None, ""
    return next(blocks), None if in_hand else blocks, where


def blocks_of(first: Points, more: Iterator[Points] | None, most: int) -> Iterable[Points]:
    """``first``, then the points ``more`` brings, in blocks of at most ``most`` points; the
    vector variables keep the lengths they have in ``first`` (exit 2 otherwise). ``first``'s
    blocks are in hand (a list); the others are read as they are asked for."""
    cut = _cut(first, most)
    return cut if more is None else itertools.chain(cut, _cut_stream(first.sizes(), more,
                                                                       most))


def _cut(points: Points, most: int) -> list[Points]:
    """``points`` in blocks of at most ``most`` (views of its arrays, not copies)."""
    if points.count <= most:
        return [points]
    return [points.slice(start, start + most) for start in range(0, points.count, most)]


def _cut_stream(sizes: dict, more: Iterator[Points], most: int) -> Iterator[Points]:
    for points in more:
        changed = [n for n, k in points.sizes().items() if k != sizes[n]]
        if changed:
            raise CLIError(f"{changed[0]!r} has different shapes at different points")
        yield from _cut(points, most)


def stream_lines(handle, names: list[str], where: str, block: int | None = None,
                 misreads: Misreads | None = None) -> Iterator[Points]:
    """Points from text lines (the ``--at -`` format) in blocks of at most ``block`` lines,
    read as they arrive: an endless producer gets answers as it goes. A blank line, or one
    that cannot be read, goes to ``misreads`` (default: stop there)."""
    misreads = Misreads() if misreads is None else misreads
    first_line, yielded = 1, False
    for batch in _line_batches(handle, where, block or STREAM_BLOCK):
        text, fast = batch.text, None
        if "\r" not in text and not misreads.pending:
            # the common pipeline case first, on the text as it came: when every line gave
            # a row there were no blank or comment lines to number around
            count = text.count("\n") + (not text.endswith("\n"))
            fast = _numeric_rows(text, len(names))
            if fast is not None and fast.shape[0] == count:
                first_line += count
                yielded = True
                misreads.filler = {n: float(fast[-1, j]) for j, n in enumerate(names)}
                misreads.scalars(names)
                yield Points(list(names), {n: fast[:, j].copy() for j, n in enumerate(names)},
                             count)
                continue
        lines = batch.lines
        numbered = [(first_line + i, line.strip()) for i, line in enumerate(lines)]
        first_line += len(lines)
        numbered = [(i, t) for i, t in numbered if not t.startswith("#")]
        if not numbered:
            continue
        if "\r" in text and all(t for _, t in numbered) and not misreads.pending:
            fast = _numeric_rows("\n".join(t for _, t in numbered), len(names))
        if fast is not None and fast.shape[0] == len(numbered):
            yielded = True
            misreads.scalars(names)
            yield Points(list(names), {n: fast[:, j].copy() for j, n in enumerate(names)},
                         fast.shape[0])
        else:
            for points in misreads.take(_parse_numbered(numbered, names, where, misreads),
                                        names, where):
                yielded = True
                yield points
    for points in misreads.finish(names, where):
        yielded = True
        yield points
    _end_of_input(misreads, yielded, where, "no points given")


def _end_of_input(misreads: Misreads, yielded: bool, where: str, nothing: str) -> None:
    """Say how many lines could not be read; refuse an input that gave no point at all."""
    summary = misreads.summary()
    if not yielded:
        raise CLIError(f"{where}: {nothing}" + (f"; {summary}" if summary else ""))
    if summary:
        output.warn(f"{where}: {summary}")


#: the end of a line: after a line feed, or after a carriage return not followed by one
_LINE_END = r"(?<=\n)|(?<=\r)(?!\n)(?!$)"         # (compiled by re on first use)
#: the place after a carriage return that is not followed by a line feed
_AFTER_LONE_CR = r"(?<=\r)(?!\n)(?!$)"


class Lines:
    """Whole lines of input as one text; ``lines`` splits it (each line keeps its end) only
    when asked: the numeric CSV reader takes the text as it is."""

    __slots__ = ("text", "_lines")

    def __init__(self, text: str, lines: list[str] | None = None) -> None:
        self.text = text
        self._lines = lines

    @property
    def lines(self) -> list[str]:
        if self._lines is None:
            self._lines = _split_lines(self.text)
        return self._lines


def _split_lines(text: str) -> list[str]:
    """Lines ending in "\n", "\r\n" or "\r", ends kept (the last one may lack one)."""
    if "\r" in text:
        lines = re.split(_LINE_END, text)
    else:                   # the common case, ~10x faster than the regular expression
        lines = [line + "\n" for line in text.split("\n")]
        lines[-1] = lines[-1][:-1]
    return [line for line in lines if line]


def _line_batches(handle, where: str, block: int) -> Iterator[Lines]:
    """The lines of ``handle`` in batches of at most ``block``, each as soon as it is there:
    from a file descriptor, every read takes what the producer has written so far (a slow
    producer gets each line answered; a fast one fills whole blocks)."""
    try:
        fd = handle.fileno() if hasattr(handle, "buffer") else None
    except (OSError, ValueError, io.UnsupportedOperation):
        fd = None
    if fd is None:
        lines = _lines_of(handle, where)
        while batch := list(itertools.islice(lines, block)):
            yield Lines("".join(batch), batch)
        return
    import codecs

    decoder = codecs.getincrementaldecoder(handle.encoding or "utf-8")(handle.errors or "strict")
    unfinished: list[str] = []     # the pieces of a line still waiting for its end
    unfinished_length = 0
    read = 0                        # bytes read before this read
    while True:
        try:
            data = os.read(fd, READ_BYTES)
        except OSError as exc:
            raise CLIError(f"{where}: cannot read it ({exc.strerror})") from None
        try:
            new = decoder.decode(data, final=not data)
        except UnicodeDecodeError as exc:
            # the decoder counts from the bytes it was given (this read, after any it kept
            # from the last one): the caller names the byte of the whole input
            shift = read + len(data) - len(exc.object)
            raise UnicodeDecodeError(exc.encoding, exc.object, exc.start + shift,
                                     exc.end + shift, exc.reason) from None
        read += len(data)
        if data:
            # keep an unfinished last line (and a last "\r", whose "\n" may follow) for later;
            # only the new text is searched, so a long line costs linear time
            cut = max(new.rfind("\n"), new.rfind("\r", 0, -1)) + 1
            if not cut:
                unfinished.append(new)
                unfinished_length += len(new)
                if unfinished_length > MAX_LINE_CHARACTERS:
                    raise CLIError(f"{where}: a line longer than {MAX_LINE_CHARACTERS:,} "
                                   f"characters (the limit on one line of points); is it "
                                   f"text with one point per line?")
                continue
            text = "".join(unfinished) + new[:cut]
            unfinished, unfinished_length = [new[cut:]], len(new) - cut
        else:
            text = "".join(unfinished) + new
        if text.count("\n") + text.count("\r") <= block:
            if text:
                yield Lines(text)
        else:
            lines = _split_lines(text)
            for start in range(0, len(lines), block):
                part = lines[start:start + block]
                yield Lines("".join(part), part)
        if not data:
            return


def numbered_lines(handle, where: str) -> Iterator[tuple[int, str]]:
    """The lines of ``handle`` as they arrive, each as (line number, text without its end);
    text that is not UTF-8 is bad input naming the byte."""
    number = 0
    for batch in decoded(_line_batches(handle, where, STREAM_BLOCK), where):
        for line in batch.lines:
            number += 1
            yield number, line.rstrip("\r\n")


def _lines_of(handle, where: str) -> Iterator[str]:
    """The lines of ``handle`` as they come; a closed or unreadable input is bad input, not a
    bug (text that is not UTF-8 is left to the caller, which names the byte)."""
    try:
        for line in handle:     # not ``yield from``: closing this generator must not close it
            if "\r" in line:     # old Mac line ends, from a stream that does not split them
                yield from re.split(_AFTER_LONE_CR, line)
            else:
                yield line
    except UnicodeDecodeError:
        raise
    except (OSError, ValueError) as exc:
        raise CLIError(f"{where}: cannot read it ({exc})") from None


def _parse_numbered(numbered: list[tuple[int, str]], names: list[str], where: str,
                    misreads: Misreads | None = None) -> list:
    """Each numbered line as a point dict, or as the message saying why it cannot be one
    (``misreads``: also a point whose shapes differ from the points before it)."""
    parsed: list = []
    for lineno, s in numbered:
        at = f"{where} line {lineno}"
        if not s:
            parsed.append(f"{at}: a blank line (one point per line)")
            continue
        if "=" not in s and "[" not in s and "," not in s and len(names) > 1:
            s = ",".join(s.split())
        try:
            point = parse_point(s, names, at)
        except CLIError as exc:
            parsed.append(exc.message)
            continue
        parsed.append(point if misreads is None else misreads.shaped(point, at))
    return parsed


def stream_csv(path: str, names: list[str], stdin: io.TextIOBase,
               block: int | None = None, misreads: Misreads | None = None
               ) -> Iterator[Points]:
    """Points from a CSV file whose header names the variables (``-``: standard input), in
    blocks of at most ``block`` rows, read as they come; the other named columns come along
    as ``Block.extra``. Plain numeric blocks go through NumPy's reader; from the first block
    that is not (quotes, blanks, expressions), the rest is read by the csv module, which also
    handles a quoted field across lines. A blank row, or one that cannot be read, goes to
    ``misreads`` (default: stop there)."""
    import csv

    misreads = Misreads() if misreads is None else misreads
    block = block or STREAM_BLOCK
    where = "standard input" if path == "-" else path
    try:
        handle = stdin if path == "-" else open(path, newline="", encoding="utf-8")
    except OSError as exc:
        raise CLIError(f"--points: cannot read {path!r}: {exc.strerror}") from None
    # a field may be as long as the file (the module's default stops at 131,072 characters,
    # even in a column nobody asked for)
    csv.field_size_limit(CSV_FIELD_LIMIT)
    with handle:
        batches = _line_batches(handle, f"--points {where}", block)
        header_text, header, rest = _csv_header(batches, where)
        missing = [n for n in names if n not in header]
        if missing:
            check_look_alikes([*names, *header])
            raise CLIError(f"--points {where}: no column for {', '.join(map(repr, missing))} "
                           f"(header: {shortened(', '.join(header))})")
        extra = [(j, h) for j, h in enumerate(header) if h and h not in names]
        extra_names = tuple(h for _, h in extra)
        chunks = itertools.chain([rest] if rest.text else [], batches)
        rows_read, yielded = 0, False
        for chunk in chunks:
            fast = _numeric_csv(header_text + chunk.text, names) \
                if '"' not in chunk.text and not misreads.pending else None
            if fast is None:
                break
            rows_read += fast.count
            yielded = True
            misreads.filler = {n: fast.arrays[n][-1] for n in names}
            misreads.scalars(names)
            yield _with_extra(fast, extra_names, _plain_fields(chunk.text, extra))
        else:
            chunk = Lines("", [])
        careful = csv.reader(itertools.chain(chunk.lines,
                                             (line for c in chunks for line in c.lines)))
        while rows := list(itertools.islice(careful, block)):
            extras = [tuple(r[j] if j < len(r) else "" for j, _ in extra) for r in rows] \
                if extra else None
            for points in misreads.take(_csv_cells(rows, header, names, where, rows_read,
                                                   misreads),
                                        names, f"--points {where}", extra_names, extras):
                yielded = True
                yield points
            rows_read += len(rows)
        for points in misreads.finish(names, f"--points {where}", extra_names):
            yielded = True
            yield points
    _end_of_input(misreads, yielded, f"--points {where}", "no rows after the header")


def _plain_fields(text: str, columns: list[tuple[int, str]]) -> list | None:
    """The fields of ``columns`` (index, name) of each line of a CSV text without quotes."""
    if not columns:
        return None
    lines = text.replace("\r\n", "\n").split("\n")
    if lines and not lines[-1]:
        lines.pop()
    rows = [line.split(",") for line in lines]
    return [tuple(r[j] if j < len(r) else "" for j, _ in columns) for r in rows]


def _csv_header(batches: Iterator[Lines], where: str) -> tuple[str, list[str], Lines]:
    """The first non-blank line (a byte order mark dropped), its names, and the lines of its
    batch after it."""
    import csv

    for batch in batches:
        lines = batch.lines
        for i, text in enumerate(lines):
            if text.startswith("\ufeff"):     # the byte order mark of Excel's "CSV UTF-8"
                text = text[1:]
            row = next(csv.reader([text]), [])
            if not any(c.strip() for c in row):
                continue
            header = [normalize(h) for h in row]
            repeated = sorted(h for h, times in collections.Counter(header).items()
                              if h and times > 1)
            if repeated:
                raise CLIError(f"--points {where}: the header names "
                               f"{shortened(', '.join(map(repr, repeated)))} more than once (each column "
                               f"needs its own name)")
            rest = lines[i + 1:]
            return (text if text.endswith("\n") else text + "\n"), header, \
                Lines("".join(rest), rest)
    raise CLIError(f"--points {where}: the file is empty (expected a header row naming "
                   f"the variables)")


def _csv_cells(body: list[list[str]], header: list[str], names: list[str], where: str,
               rows_before: int, misreads: Misreads | None = None) -> list:
    """Each CSV row (rows ``rows_before + 2`` on, counting the header) as a point dict of
    its needed columns, or as the message saying why it cannot be one."""
    columns = [header.index(name) for name in names]
    parsed: list = []
    for i, row in enumerate(body):
        at = f"--points {where} row {rows_before + i + 2}"
        if not any(c.strip() for c in row):
            parsed.append(f"{at}: a blank row (one point per row)")
            continue
        point = {}
        try:
            for name, j in zip(names, columns):
                cell = row[j] if j < len(row) else ""
                try:
                    value = float(cell)
                except ValueError:
                    value = None
                point[name] = value if value is not None and math.isfinite(value) else \
                    parse_value(cell, f"{at} column {name}")
        except CLIError as exc:
            parsed.append(exc.message)
            continue
        parsed.append(point if misreads is None else misreads.shaped(point, at))
    return parsed


def _numeric_csv(text: str, names: list[str]) -> Points | None:
    """Fast path for a plain numeric CSV (a million rows in a fraction of a second): the header
    on the first line, then one row per line, every needed cell a plain number. Read by
    NumPy's C reader; None whenever anything is unusual (quotes, blank or ragged lines, cells
    that are not plain numbers, no rows...), so that ``from_csv``'s careful path handles it and
    says what is wrong exactly as it always has. When this succeeds the careful path would
    have produced the same arrays (both parse cells with correctly rounded float conversion)."""
    if not names or '"' in text:
        return None
    if "\r" in text:
        text = text.replace("\r\n", "\n")
        if "\r" in text:
            return None
    end = text.find("\n")
    if end < 0:
        return None
    header = [normalize(h) for h in text[:end].split(",")]
    if any(n not in header for n in names) or len(set(header)) != len(header):
        return None
    lines = text.count("\n", end + 1) + (0 if text.endswith("\n") or len(text) == end + 1
                                          else 1)
    columns = [header.index(n) for n in names]
    blocks = []
    start = end + 1
    try:
        # in slices of about CSV_SLICE characters, cut at line ends: a StringIO of the whole
        # body would hold 4 bytes per character (160 MB for a 40 MB file of 10^6 rows)
        while start < len(text):
            stop = text.find("\n", min(start + CSV_SLICE, len(text) - 1))
            stop = len(text) if stop < 0 else stop + 1
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")          # "input contained no data"
                blocks.append(np.loadtxt(io.StringIO(text[start:stop]), dtype=np.float64,
                                         delimiter=",", usecols=columns, comments=None,
                                         quotechar=None, ndmin=2))
            start = stop
    except (ValueError, TypeError, IndexError):
        return None
    data = (np.concatenate(blocks) if len(blocks) > 1 else blocks[0] if blocks
            else np.zeros((0, len(names))))
    if data.shape[0] == 0 or data.shape[0] != lines:   # blank lines were skipped: be careful
        return None
    if not np.isfinite(data).all():     # the careful path names the row of a nan or inf
        return None
    return Points(list(names), {n: data[:, j].copy() for j, n in enumerate(names)},
                  data.shape[0])


def concatenate(batches: list[Points], names: list[str]) -> Points:
    """Join point sets (from several ``--at`` options, blocks of a stream) into one."""
    if len(batches) == 1:
        return batches[0]
    arrays = {}
    for name in names:
        parts = [b.arrays[name] for b in batches]
        if len({p.shape[1:] for p in parts}) > 1:
            raise CLIError(f"--at: {name!r} has different shapes at different points")
        arrays[name] = np.concatenate(parts)
    count = sum(b.count for b in batches)
    if not any(isinstance(b, Block) for b in batches):
        return Points(list(names), arrays, count)
    errors, extra, start = {}, [], 0
    extra_names = next((b.extra_names for b in batches if getattr(b, "extra_names", ())), ())
    for b in batches:
        errors.update({start + i: m for i, m in getattr(b, "errors", {}).items()})
        extra += getattr(b, "extra", None) or [("",) * len(extra_names)] * b.count
        start += b.count
    return Block(list(names), arrays, count, errors, extra_names,
                 extra if extra_names else None)
