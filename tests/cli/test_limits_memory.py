"""Memory stays bounded for many points: ``tape grad EXPR --points big.csv`` is measured as a
real process (peak RSS from ``wait4``). The CSV is read in blocks and plain/csv/json output is
written in blocks, so memory grows by tens of bytes per point, not by the Python objects of
every row (JSON's writer itself: tests/cli/test_json_stream.py).

Measured on the reliability branch (1e6 rows, 2 variables, ``x^2*sin(y)+exp(x*y)``): peak RSS
172 MB plain (was 467 MB before the CSV reading and the output were done in slices).
"""
from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

ROOT = Path(__file__).resolve().parents[2]


def write_points(path: Path, n: int) -> None:
    data = np.random.default_rng(0).uniform(-2, 2, size=(n, 2))
    with open(path, "w") as f:
        f.write("x,y\n")
        np.savetxt(f, data, delimiter=",", fmt="%.17g")


def peak_rss_mb(args: list[str], stdout) -> tuple[int, float]:
    proc = subprocess.Popen([sys.executable, "-m", "tape", *args], stdout=stdout,
                            stderr=subprocess.PIPE, cwd=ROOT)
    _, status, usage = os.wait4(proc.pid, 0)
    proc.returncode = os.waitstatus_to_exitcode(status)
    return proc.returncode, usage.ru_maxrss / 1024


def baseline_mb() -> float:
    _, rss = peak_rss_mb(["grad", "x*y", "--at", "1,2", "--format", "plain"],
                         subprocess.DEVNULL)
    return rss


def traced_peak_mb(fn) -> float:
    import tracemalloc

    tracemalloc.start()
    try:
        fn()
        return tracemalloc.get_traced_memory()[1] / 2**20
    finally:
        tracemalloc.stop()


def test_csv_points_are_read_in_bounded_memory(tmp_path, monkeypatch):
    import io

    from tape.cli import points as P

    def peak_for(n):
        path = tmp_path / f"points{n}.csv"
        write_points(path, n)
        holder = {}
        peak = traced_peak_mb(lambda: holder.update(
            pts=P.from_csv(str(path), ["x", "y"], io.StringIO(""))))
        assert holder["pts"].count == n
        return peak

    small, large = peak_for(100_000), peak_for(200_000)
    per_point = (large - small) * 2**20 / 100_000
    # the file's text (1 byte a character, ~40 per row here) and the result (16 bytes a point);
    # not a Python object per cell (the row-list reader: ~250 bytes a point; a StringIO of the
    # whole text: 4 bytes a character)
    assert per_point < 100, f"{per_point:.0f} bytes per point ({small:.1f} -> {large:.1f} MB)"


@pytest.mark.parametrize("fmt", ["plain", "csv"])
def test_output_is_written_in_bounded_memory(fmt, tmp_path, monkeypatch):
    from tape.cli import output as O

    monkeypatch.setattr(O, "OUTPUT_BLOCK", 8192)  # so that both sizes are many blocks

    def peak_for(n):
        rng = np.random.default_rng(1)
        report = O.Report(title="t", at_labels=["x"], at=rng.normal(size=(n, 1)),
                          value_labels=["value"], value=rng.normal(size=(n, 1)),
                          derivative_labels=["df/dx"], table_labels=["df/dx"],
                          derivatives=rng.normal(size=(n, 1)), document=lambda: {})
        out = tmp_path / f"out{n}.txt"
        with open(out, "w") as handle:   # a file, not a capture buffer (that would be traced)
            saved, sys.stdout = sys.stdout, handle
            try:
                peak = traced_peak_mb(lambda: O.render(report, O.Format(fmt)))
            finally:
                sys.stdout = saved
        assert len(out.read_text().splitlines()) == n + (fmt == "csv")
        return peak

    small, large = peak_for(100_000), peak_for(200_000)
    # formatting every row at once grew by ~8 (plain) / ~20 (csv) MB here
    assert large - small < 4, f"{small:.1f} MB -> {large:.1f} MB traced"


@pytest.mark.slow
def test_whole_command_memory_per_point(tmp_path):
    n = 200_000
    path = tmp_path / "points.csv"
    write_points(path, n)
    code, rss = peak_rss_mb(["grad", "x^2*sin(y)+exp(x*y)", "--points", str(path),
                             "--format", "plain"], subprocess.DEVNULL)
    assert code == 0
    per_point = (rss - baseline_mb()) * 1024 * 1024 / n
    assert per_point < 600, f"{per_point:.0f} bytes per point (peak {rss:.0f} MB)"


@pytest.mark.slow
@pytest.mark.parametrize("fmt", ["plain", "json"])
def test_a_million_points_stay_bounded(fmt, tmp_path):
    n = 1_000_000
    path = tmp_path / "points.csv"
    write_points(path, n)
    code, rss = peak_rss_mb(["grad", "x^2*sin(y)+exp(x*y)", "--points", str(path),
                             "--format", fmt], subprocess.DEVNULL)
    assert code == 0
    # json was 1.2 GB when the whole document was built as dicts
    assert rss < 300, f"peak RSS {rss:.0f} MB for 1e6 points ({fmt})"
