"""Printing tensors the way PyTorch prints them.

The observable rules of PyTorch's printer (default print options): floats with 4 decimals in a
common width; floats that are all whole numbers as ``1.``; scientific notation (``1.0000e-05``)
when the largest magnitude is over 1e8, over 1000 times the smallest, or the smallest is under
1e-4; lines of at most 80 characters; more than 1000 elements summarised with the first and
last 3 of each axis around ``...``; then ``dtype=`` when it is not the default (float64 here,
int64 and bool are never named) and ``grad_fn=<...>`` or ``requires_grad=True``.
"""
from __future__ import annotations

import math

import numpy as np

from . import _dtypes

PRECISION = 4
THRESHOLD = 1000
EDGEITEMS = 3
LINEWIDTH = 80


class _Formatter:
    def __init__(self, values: np.ndarray):
        self.floating = values.dtype.kind == "f"
        self.complex = values.dtype.kind == "c"
        self.int_mode = True
        self.sci = False
        self.width = 1
        flat = values.ravel()
        if self.complex:
            self.width = max((len(self._complex(v)) for v in flat), default=1)
            return
        if not self.floating:
            self.width = max((len(self._plain(v)) for v in flat), default=1)
            return
        finite = flat[np.isfinite(flat) & (flat != 0)].astype(np.float64)
        if finite.size == 0:
            return
        mags = np.abs(finite)
        lo, hi = float(mags.min()), float(mags.max())
        self.int_mode = bool(np.all(finite == np.ceil(finite)))
        if self.int_mode:
            self.sci = hi / lo > 1000.0 or hi > 1.0e8
            if not self.sci:
                self.width = max(len(f"{v:.0f}") + 1 for v in finite)
        else:
            self.sci = hi / lo > 1000.0 or hi > 1.0e8 or lo < 1.0e-4
            if not self.sci:
                self.width = max(len(f"{v:.{PRECISION}f}") for v in finite)
        if self.sci:
            self.width = max(len(f"{v:.{PRECISION}e}") for v in finite)

    @staticmethod
    def _plain(v):
        return "True" if v is np.True_ else "False" if v is np.False_ else str(v.item())

    def _complex(self, v):
        return f"{v.real:.{PRECISION}f}{v.imag:+.{PRECISION}f}j"

    def format(self, v) -> str:
        if self.complex:
            text = self._complex(v)
        elif not self.floating:
            text = self._plain(v)
        else:
            x = float(v)
            if self.sci:
                text = f"{x:.{PRECISION}e}"
            elif self.int_mode:
                text = f"{x:.0f}" + ("" if math.isinf(x) or math.isnan(x) else ".")
            else:
                text = f"{x:.{PRECISION}f}"
        return text.rjust(self.width)


def _summary_values(values):
    """The elements a summarised print shows (first and last EDGEITEMS of every axis)."""
    if values.ndim == 0:
        return values.reshape(1)
    if values.shape[0] > 2 * EDGEITEMS:
        parts = [values[:EDGEITEMS], values[-EDGEITEMS:]]
    else:
        parts = [values]
    return np.concatenate([_summary_values(p[i]) for p in parts for i in range(p.shape[0])]) \
        if values.ndim > 1 else np.concatenate(parts)


def _vector(values, fmt, indent, summarise):
    width = fmt.width + 2
    per_line = max((LINEWIDTH - indent) // width, 1)
    if summarise and values.shape[0] > 2 * EDGEITEMS:
        items = [fmt.format(v) for v in values[:EDGEITEMS]] + [" ..."] + \
                [fmt.format(v) for v in values[-EDGEITEMS:]]
    else:
        items = [fmt.format(v) for v in values]
    lines = [", ".join(items[i:i + per_line]) for i in range(0, len(items), per_line)]
    return "[" + (",\n" + " " * (indent + 1)).join(lines) + "]"


def _array(values, fmt, indent, summarise):
    if values.ndim == 1:
        return _vector(values, fmt, indent, summarise)
    sep = "," + "\n" * (values.ndim - 1) + " " * (indent + 1)
    n = values.shape[0]
    if summarise and n > 2 * EDGEITEMS:
        parts = [_array(values[i], fmt, indent + 1, summarise) for i in range(EDGEITEMS)] + \
                ["..."] + [_array(values[i], fmt, indent + 1, summarise) for i in range(n - EDGEITEMS, n)]
    else:
        parts = [_array(values[i], fmt, indent + 1, summarise) for i in range(n)]
    return "[" + sep.join(parts) + "]"


def tensor_repr(t, prefix="tensor(") -> str:
    values = np.asarray(t._value)
    indent = len(prefix)
    suffixes = []
    if values.size == 0:
        body = "[]"
        if values.shape != (0,):
            suffixes.append(f"size={tuple(values.shape)}")
    else:
        summarise = values.size > THRESHOLD
        fmt = _Formatter(_summary_values(values) if summarise else values)
        body = fmt.format(values.reshape(())[()]) if values.ndim == 0 else \
            _array(values, fmt, indent, summarise)
    if values.dtype != _dtypes.DEFAULT._np and values.dtype not in (np.int64, np.bool_) \
            or (values.size == 0 and values.dtype != _dtypes.DEFAULT._np):
        suffixes.append(f"dtype={_dtypes.of(values.dtype)!r}")
    fn = t._grad_fn
    if fn is not None:
        suffixes.append(f"grad_fn=<{type(fn).__name__}>")
    elif t._requires_grad:
        suffixes.append("requires_grad=True")
    text = prefix + body
    for s in suffixes:
        last = text.rsplit("\n", 1)[-1]
        if len(last) + len(s) + 3 > LINEWIDTH:
            text += ",\n" + " " * indent + s
        else:
            text += ", " + s
    return text + ")"
