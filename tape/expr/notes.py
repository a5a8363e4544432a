"""Reading notes as they are found.

The library returns every note with what it read (``Reading.notes``, ``Target.notes``,
``Verdict.notes``) and writes nowhere. A program that wants to say each note at once, before the
work goes on (the command line: a note must come before an error the same text leads to), sets
``listener``: it is called with each note as one line, ``read … as …`` or ``--answer: read …``.
"""
from __future__ import annotations

from typing import Callable, Iterable, Optional

#: called with each note as it is found; None: notes are only returned
listener: Optional[Callable[[str], None]] = None


def tell(notes: Iterable[str], label: Optional[str] = None) -> None:
    """Hand each note to the listener, prefixed with ``label`` (``--answer``) when given."""
    if listener is None:
        return
    for note in notes:
        listener(f"{label}: {note}" if label else note)
