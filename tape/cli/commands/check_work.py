"""``tape check-work FILE``: a derivation checked line by line (``grading/derivation.py``).

On a terminal every line gets a mark (✓ follows, ✗ wrong, ~ follows from a wrong line, ? not
decided or not read) and the first wrong one a pointer with what happened there; plain text (a
pipe) is one ``line N: verdict`` row per line; ``--format json`` one document. Exit 0 when
every line follows and the last one answers the task, 1 a wrong step, 2 a line that cannot be
read (or no task), 3 undecided or ambiguous.
"""
from __future__ import annotations

import sys
from typing import Annotated

import typer

from .. import options as O, output
from ...expr.errors import BAD_INPUT, CHECK_FAILED, UNDECIDED

#: the exit code of each status of a ``WorkVerdict``
CODES = {"correct": 0, "wrong": CHECK_FAILED, "unreadable": BAD_INPUT,
         "undecided": UNDECIDED, "ambiguous": UNDECIDED}
MARKS = {"follows": "✓", "wrong": "✗", "follows from a wrong line": "~", "unreadable": "?",
         "undecided": "?"}
#: the largest derivation read (characters)
MAX_TEXT = 250_000


def check_work(
    path: Annotated[str, typer.Argument(
        metavar="FILE", help="The derivation: the task on the first line, one step per line "
                             "(or LaTeX align*); '-' for standard input.")],
    fmt: O.FormatOption = O.Format.auto,
    timeout: O.TimeoutOption = O.TIMEOUT,
) -> None:
    """Check a derivation line by line: which lines follow, the first wrong step and what
    happened there. Exit 0 all follow and the last line answers the task, 1 a wrong step,
    2 unreadable, 3 undecided."""
    from ...grading.derivation import check_work as judge

    text = _text(path)
    work = judge(text, timeout=timeout)
    output.render(WorkResult(work), output.resolve_format(fmt))
    code = CODES[work.status]
    if code:
        output.abort(code=code)


def _text(path: str) -> str:
    """The derivation's text from ``path`` or standard input, as UTF-8."""
    try:
        if path == "-":
            data = sys.stdin.buffer.read(MAX_TEXT + 1) if hasattr(sys.stdin, "buffer") else \
                sys.stdin.read(MAX_TEXT + 1).encode()
            where = "standard input"
        else:
            with open(path, "rb") as handle:
                data = handle.read(MAX_TEXT + 1)
            where = path
    except FileNotFoundError:
        output.abort(f"{path}: no such file (give a derivation's file, or '-' for standard "
                     f"input)")
    except IsADirectoryError:
        output.abort(f"{path}: is a directory, not a derivation's file")
    except OSError as err:
        output.abort(f"{path}: cannot be read ({err.strerror})")
    if len(data) > MAX_TEXT:
        output.abort(f"{where}: longer than {MAX_TEXT:,} characters, the limit of a derivation")
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as err:
        output.abort(f"{where}: not UTF-8 text (byte {err.start}); save the derivation as "
                     f"plain text")


class WorkResult(output.FieldsResult):
    """The verdict on a derivation."""

    _fields = ("work",)

    def document(self) -> dict:
        return self.work.to_dict()

    def header(self) -> list[str]:
        return ["line", "text", "verdict", "diagnosis", "counterexample", "reason"]

    def rows(self):
        yield [[str(line.number), line.text, line.verdict,
                _diagnosis(line.diagnosis), _point(line.counterexample), line.reason or ""]
               for line in self.work.lines]

    def lines(self):
        out = []
        for line in self.work.lines:
            row = f"line {line.number}: {line.verdict}"
            if line.diagnosis:
                row += f": {_diagnosis(line.diagnosis)}"
            elif line.reason:
                row += f": {_unprefixed(line.reason)}"
            out.append(row)
            if line.counterexample:
                out.append(f"  {_point(line.counterexample)}")
        out += _ending(self.work)
        yield "".join(row + "\n" for row in out)

    def draw(self, out, precision: int) -> None:
        work = self.work
        width = max(len(line.text) for line in work.lines)
        rows = [f"  task  {work.task['text']}"]
        for line in work.lines:
            mark = MARKS.get(line.verdict, "?")
            pointer = "  <- first wrong step" if line.number == work.first_wrong and \
                line.verdict == "wrong" and line is _first(work) else ""
            rows.append(f"{mark} {line.number:>4}  {line.text.ljust(width)}  {line.verdict}"
                        f"{pointer}")
            if line.diagnosis and line is _first(work):
                rows.append(f"        {_diagnosis(line.diagnosis)}")
            if line.counterexample and line is _first(work):
                rows.append(f"        {_point(line.counterexample)}")
            if line.reason and line.verdict != "wrong":
                rows.append(f"        {_unprefixed(line.reason)}")
        rows += _ending(work)
        out.writelines(row + "\n" for row in rows)


def _unprefixed(reason) -> str:
    """A reason without the ``undecided:`` its verdict already says."""
    return (reason or "").removeprefix("undecided: ")


def _first(work):
    return next((line for line in work.lines if line.verdict == "wrong"), None)


def _diagnosis(d) -> str:
    if not d:
        return ""
    return f"{d['kind']}: {d['detail']}"


def _point(c) -> str:
    if not c:
        return ""
    at = ", ".join(f"{k} = {v!r}" for k, v in c["at"].items())
    against = "the derivative" if c.get("against") == "derivative" else "the line before"
    return f"at {at}: this line gives {c['line']!r}, {against} {c['before']!r}"


def _ending(work) -> list[str]:
    """The last line against the task, and the status."""
    final = work.final
    if work.final_reason:
        said = work.final_reason
    elif final is None:
        said = "the last line was not graded"
    elif final.ambiguous:
        said = f"the last line is {final.reason}"
    elif final.correct:
        said = "the last line answers the task"
    elif final.correct is False:
        said = "the last line does not answer the task"
        if final.expected:
            said += f" (the answer is {final.expected})"
    else:
        said = f"the last line could not be graded: {_unprefixed(final.reason)}"
    return [said, f"verdict: {work.status}"]
