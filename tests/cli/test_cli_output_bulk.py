"""Bulk CSV output writes exactly what ``csv.writer`` wrote row by row."""
from __future__ import annotations

import csv
import io
import sys

import numpy as np
import pytest

from tape.cli import output


def report(n: int, width: int) -> output.Report:
    rng = np.random.default_rng(n + width)
    data = rng.standard_normal((n, 1 + width)) * 10.0 ** rng.integers(-320, 300, (n, 1 + width))
    specials = [np.inf, -np.inf, np.nan, -0.0, 0.0, 1e16, 1e-5, 123456789.0, 5e-324]
    data.flat[:min(data.size, len(specials))] = specials[:data.size]
    return output.Report(
        title="t", at_labels=["x", "w[0]"], at=data[:, :2] if width else data[:, :1],
        value_labels=["value"], value=np.arange(n, dtype=float).reshape(n, 1) / 3,
        derivative_labels=[f"df/d{i}" for i in range(max(width - 1, 0))],
        table_labels=[], derivatives=data[:, 2:] if width else np.zeros((n, 0)),
        document=dict)


def row_by_row(r: output.Report) -> str:
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(r.at_labels + r.value_labels + r.derivative_labels)
    rows = np.concatenate([r.at, r.value, r.derivatives], axis=1)
    writer.writerows([repr(v) for v in row] for row in rows.tolist())
    return out.getvalue()


@pytest.mark.parametrize("n, width", [(0, 2), (1, 0), (1, 3), (7, 2), (500, 4)])
def test_bulk_csv_is_what_csv_writer_wrote(n, width, monkeypatch):
    r = report(n, width)
    out = io.StringIO()
    monkeypatch.setattr(sys, "stdout", out)
    output._render_csv(r)
    assert out.getvalue() == row_by_row(r)
