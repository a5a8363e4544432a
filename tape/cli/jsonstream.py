"""The one JSON writer: a plain document in one go, and documents whose ``"points"`` list is
written a block of points at a time.

A million points as Python dicts take about a gigabyte; streamed, the memory is that of one
block. The text is exactly what ``json.dumps(doc, ensure_ascii=False)`` gives for the whole
document (separators ``", "`` and ``": "``, floats as ``repr``), with the numbers JSON lacks
written as the strings ``"inf"``, ``"-inf"`` and ``"nan"`` (never ``null``, which reads as
"absent"). ``write_lines`` writes a document's points as JSON Lines (``--format ndjson``):
one object per point, each line written whole.

A ``Document`` has fixed parts (``head`` before ``"points"``, ``tail`` after) and one point's
``entry``: a nest of dicts and lists whose varying leaves are ``Column``s (one number or bool per
point). The entry becomes a %-template once; each block fills it from the columns' texts.
"""
from __future__ import annotations

import json
import math
from typing import Any, Callable, Iterator, TextIO

import numpy as np

from ..expr.record import Record

#: numbers formatted at a time (a block has this many cells over all columns)
BLOCK_CELLS = 65_536


class Column:
    """A leaf of a point's entry: ``values[i]`` is point i's number (or bool)."""

    __slots__ = ("values",)

    def __init__(self, values: np.ndarray) -> None:
        self.values = values


class Nested:
    """A leaf of a point's entry that is a list (of lists...) of numbers: point i's is
    ``values[i]``, written as one JSON array (a big Jacobian: one leaf, not m x d)."""

    __slots__ = ("values",)

    def __init__(self, values: np.ndarray) -> None:
        self.values = values


class Rows:
    """A leaf of a one-point document's entry that is a matrix too big to hold whole:
    ``blocks()`` yields it as 2-D blocks of consecutive rows, written as one JSON array of
    rows while they are computed."""

    __slots__ = ("blocks",)

    def __init__(self, blocks: Callable[[], Iterator[np.ndarray]]) -> None:
        self.blocks = blocks


class Sparse:
    """A dict entry of a point's entry present only at some points: point i has it, as a
    whole number, where ``values[i]`` is not NaN (a derivative's ``"digits"``, there only
    where it has fewer than full), or, for an object array, as a string where ``values[i]``
    is not None (the ``"error"`` of a line that could not be read); no such key elsewhere.
    Not a dict's first entry (the comma before it is part of its text)."""

    __slots__ = ("values", "key")

    def __init__(self, values: np.ndarray) -> None:
        self.values = values
        self.key = ""           # set by ``_template``

    def texts(self, values: np.ndarray) -> list[str]:
        pair = ", " + _dumps(self.key) + ": "
        if values.dtype.kind == "O":        # texts, None where absent
            return ["" if v is None else pair + _dumps(v) for v in values.tolist()]
        return ["" if v != v else pair + repr(int(v)) for v in values.tolist()]


#: stands for a ``Rows`` leaf in a point's text until its rows are written (json.dumps
#: escapes a NUL, so it cannot be part of the text itself)
_ROWS_MARK = "\x00"


class Document(Record):
    """``{**head, "points": [entry for each of count points], **tail}``."""

    _fields = ("head", "entry", "count", "tail")

    def __init__(self, head: dict, entry: Any, count: int, tail: dict | None = None) -> None:
        self.head = head
        self.entry = entry
        self.count = count
        self.tail = {} if tail is None else tail


def write(doc: Document | dict, out: TextIO, cells: int = BLOCK_CELLS) -> None:
    """Write ``doc`` (a ``Document``, or a dict of plain values, NumPy arrays and floats) as
    one line of JSON and a newline."""
    if not isinstance(doc, Document):
        out.write(_dumps(doc) + "\n")
        return
    open_points(doc, out)
    write_points(doc, out, True, cells)
    close_points(doc.tail, out)


def open_points(doc: Document, out: TextIO) -> None:
    """The document's head and the opening of its ``"points"`` list."""
    out.write("{" + "".join(_pair(k, v) + ", " for k, v in doc.head.items()) + '"points": [')


def write_lines(doc: Document, out: TextIO, cells: int = BLOCK_CELLS) -> None:
    """``doc``'s points as JSON Lines: each point's entry on a line of its own."""
    write_points(doc, out, True, cells, lines=True)


def write_points(doc: Document, out: TextIO, first: bool, cells: int = BLOCK_CELLS,
                 lines: bool = False) -> None:
    """The entries of ``doc``'s points, after earlier ones unless ``first`` (a document can be
    written as the entries of several, one block of points at a time); ``lines``: each entry
    followed by a newline instead of separated by commas."""
    columns: list[Column | Nested | Rows | Sparse] = []
    template = _template(doc.entry, columns)
    if any(isinstance(c, Rows) for c in columns):
        _write_streamed_point(template, columns, out, first or lines)
        if lines:
            out.write("\n")
        return
    width = sum(1 if isinstance(c, (Column, Sparse)) else int(np.prod(c.values.shape[1:]))
                for c in columns)
    block = max(1, cells // max(1, width))
    for start in range(0, doc.count, block):
        stop = min(start + block, doc.count)
        if columns:
            texts = [_leaf_texts(c, c.values[start:stop]) for c in columns]
            rows = [template % row for row in zip(*texts)]
        else:
            rows = [template % ()] * (stop - start)
        if lines:
            out.write("\n".join(rows) + "\n")
        else:
            out.write(("" if first and not start else ", ") + ", ".join(rows))


def _write_streamed_point(template: str, columns: list, out: TextIO, first: bool) -> None:
    """The entry of a one-point document whose ``Rows`` leaf is written block by block."""
    texts = [_ROWS_MARK if isinstance(c, Rows) else _leaf_texts(c, c.values[:1])[0]
             for c in columns]
    pieces = (template % tuple(texts)).split(_ROWS_MARK)
    out.write(("" if first else ", ") + pieces[0])
    for leaf, after in zip((c for c in columns if isinstance(c, Rows)), pieces[1:]):
        out.write("[")
        written = False
        for block in leaf.blocks():
            if len(block):
                out.write((", " if written else "") + ", ".join(_nested_texts(block)))
                written = True
        out.write("]" + after)


def close_points(tail: dict, out: TextIO) -> None:
    """The end of the ``"points"`` list, the ``tail`` entries and the document."""
    out.write("]" + "".join(", " + _pair(k, v) for k, v in tail.items()) + "}\n")


def _dumps(obj) -> str:
    return json.dumps(_finite(obj), ensure_ascii=False, allow_nan=False)


def _pair(key: str, value) -> str:
    return _dumps(key) + ": " + _dumps(value)


def _template(obj, columns: list[Column]) -> str:
    """``obj`` as JSON text with ``%s`` for each Column (appended to ``columns`` in order)."""
    if isinstance(obj, (Column, Nested, Rows)):
        columns.append(obj)
        return "%s"
    if isinstance(obj, dict):
        text = ""
        for i, (k, v) in enumerate(obj.items()):
            if isinstance(v, Sparse):
                if not i:
                    raise ValueError("a Sparse entry cannot come first in its dict")
                v.key = k
                columns.append(v)
                text += "%s"
            else:
                text += (", " if i else "") + _dumps(k).replace("%", "%%") + ": " \
                    + _template(v, columns)
        return "{" + text + "}"
    if isinstance(obj, (list, tuple)):
        return "[" + ", ".join(_template(v, columns) for v in obj) + "]"
    return _dumps(obj).replace("%", "%%")


def _leaf_texts(leaf, values: np.ndarray) -> list[str]:
    """The texts of a Column, Nested or Sparse leaf at the points of ``values``."""
    if isinstance(leaf, Column):
        return _texts(values)
    if isinstance(leaf, Sparse):
        return leaf.texts(values)
    return _nested_texts(values)


def _texts(values: np.ndarray) -> list[str]:
    """Each value as json.dumps writes it (float repr; non-finite -> a string; bools)."""
    if values.dtype.kind == "b":
        return ["true" if v else "false" for v in values.tolist()]
    if values.dtype.kind == "O":            # texts (a CSV's passed-through columns)
        return [_dumps(v) for v in values.tolist()]
    texts = list(map(repr, values.tolist()))
    if values.dtype.kind == "f" and not np.isfinite(values).all():
        for i in np.flatnonzero(~np.isfinite(values)).tolist():
            texts[i] = '"' + texts[i] + '"'
    return texts


def _nested_texts(values: np.ndarray) -> list[str]:
    """Each point's array as JSON (non-finite numbers as strings)."""
    if np.isfinite(values).all():
        return [json.dumps(v) for v in values.tolist()]
    return [_dumps(v) for v in values.tolist()]


def _finite(obj):
    """Fixed parts: non-finite floats -> "inf", "-inf", "nan" (JSON has no such numbers);
    NumPy values -> Python."""
    if isinstance(obj, np.ndarray):
        return _finite(obj.tolist())
    if isinstance(obj, np.generic):
        return _finite(obj.item())
    if isinstance(obj, dict):
        return {k: _finite(v) for k, v in obj.items()}
    if isinstance(obj, (list, tuple)):
        return [_finite(v) for v in obj]
    if isinstance(obj, float) and not math.isfinite(obj):
        return repr(obj)
    if isinstance(obj, str) and not obj.isascii():
        # a file name that is not UTF-8 reaches Python as lone surrogates: JSON must stay
        # valid UTF-8, so those bytes are written as \xNN
        return obj.encode("utf-8", "surrogateescape").decode("utf-8", "backslashreplace")
    return obj
