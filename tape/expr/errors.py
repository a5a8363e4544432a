"""The domain errors of every layer. Each carries the exit code the command line maps it to;
``app.main`` prints them, the library only raises them.

Exit codes (SPEC section 3): 0 success, 1 a check failed, 2 bad input, 3 undecided, 130
interrupted (Ctrl-C).
"""
from __future__ import annotations

OK = 0
CHECK_FAILED = 1
BAD_INPUT = 2
UNDECIDED = 3
INTERRUPTED = 130  # 128 + SIGINT, as shells report a process that SIGINT ended
INTERNAL_ERROR = 70  # a bug in tape itself (EX_SOFTWARE); never used for user mistakes


class CLIError(Exception):
    """A problem to report as ``error: ...`` lines on standard error, then exit with ``code``."""

    def __init__(self, message: str, code: int = BAD_INPUT):
        super().__init__(message)
        self.message = message
        self.code = code

    def lines(self) -> list[str]:
        """The message as lines, without the ``error:`` prefix."""
        return self.message.splitlines() or [""]


class ExprError(CLIError, ValueError):
    """An expression the language does not accept, pointing at the offending part
    (``tape.expr.ReadError``). ``str()`` is the message the command line prints, with the
    column and a caret; ``column`` is 1-based, or None when no place is known.

    ``start`` and ``end`` are character offsets into ``text`` (the expression as the user
    typed it); ``lines()`` shows the message with the column, the text and a caret under it.
    ``label`` names the text when a command reads several (``--answer``); ``hint`` is an
    extra line (a suggestion, or what is allowed).
    """

    #: how many characters of a long expression to show on each side of the offending part
    CONTEXT = 90

    def __init__(self, message: str, text: str | None = None,
                 start: int | None = None, end: int | None = None):
        super().__init__(message, BAD_INPUT)
        self.text = text
        self.start = start
        self.end = end
        self.hint: str | None = None
        self.label: str | None = None

    @property
    def column(self) -> int | None:
        return None if self.start is None else self.start + 1

    def __str__(self) -> str:
        return "\n".join(self.lines())

    def lines(self) -> list[str]:
        hint = [self.hint] if self.hint else []
        message = f"{self.label}: {self.message}" if self.label else self.message
        if self.text is None or self.start is None:
            return [message] + hint
        start = max(0, min(self.start, len(self.text)))
        end = max(start + 1, min(self.end if self.end is not None else start + 1,
                                 len(self.text) + 1))
        lo = max(0, start - self.CONTEXT)
        hi = min(len(self.text), max(end, start + 1) + self.CONTEXT)
        shown = "".join(c if c.isprintable() else "?" for c in self.text[lo:hi])
        prefix = "..." if lo > 0 else ""
        suffix = "..." if hi < len(self.text) else ""
        width = min(end, hi + 1) - start
        caret = " " * (len(prefix) + start - lo) + "^" * max(1, width)
        return [f"{message} (column {start + 1})",
                "  " + prefix + shown + suffix,
                "  " + caret] + hint


class OutputClosed(Exception):
    """Standard output was closed by the reader (``tape ... | head -1``): stop quietly.

    Deliberately not an OSError, so that no layer in between mistakes it for a failure."""
