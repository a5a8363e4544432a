"""Short text for arrays of any shape: numbers as themselves, arrays by shape and a preview."""
from __future__ import annotations

import math

import numpy as np

#: how many leading elements an array preview shows
PREVIEW_ITEMS = 4


def number(value: float, precision: int | None = None) -> str:
    """A float: ``repr`` (full precision) or ``precision`` significant digits."""
    value = float(value)
    if precision is None or not math.isfinite(value):
        return repr(value)
    return f"{value:.{precision}g}"


def preview(value, precision: int | None = 6) -> str:
    """``0.25`` for a scalar (or one element), ``(2, 3) [1, 2, 3, 4, …]`` for an array."""
    if value is None:
        return "—"
    array = np.asarray(value)
    if array.dtype.kind == "b":
        array = array.astype(np.int64)
    if array.size == 1 and array.ndim == 0:
        return _item(array.item(), precision)
    flat = array.reshape(-1)
    items = [_item(v, precision) for v in flat[:PREVIEW_ITEMS].tolist()]
    more = ", …" if flat.size > PREVIEW_ITEMS else ""
    return f"{tuple(array.shape)} [{', '.join(items)}{more}]"


def exact(value) -> str:
    """A machine-readable form with no spaces: ``0.25`` or ``[[1.0,2.0],[3.0,4.0]]``."""
    array = np.asarray(value)
    if array.ndim == 0:
        return _item(array.item(), None)
    return "[" + ",".join(exact(v) for v in array) + "]"


def _item(v, precision):
    if isinstance(v, (bool, int)):
        return str(int(v))
    if isinstance(v, complex):
        return repr(v)
    return number(v, precision)
