"""A Jacobian of one point too big for the memory budget is computed a block of output rows
at a time and written as it comes: the same bytes as the whole Jacobian, in every streamed
format, and within the budget."""
from __future__ import annotations

import json

import numpy as np
import pytest
from cli_helpers import central_difference, tape_capped, tape_cli

from tape.calculus import derivatives

CASES = [
    # several expressions: rows are outputs, one with an infinite slope at the point
    (["[x*y, sin(x)*y, sqrt(x), x^2 + y, exp(y), y/x, x - y]"], "x=0,y=2"),
    (["[x*y, sin(x)*y, x^2 + y, exp(y), y/x, x - y, cos(x*y)]"], "x=0.7,y=-1.3"),
    # a vector variable: a 7 x 7 Jacobian (tridiagonal-ish)
    (["x*2 + x^2"], "x=[1,-2,3,0.5,4,-1,2]"),
]


def _run(texts, at, fmt, block):
    old = derivatives.FORCED_ROW_BLOCK
    derivatives.FORCED_ROW_BLOCK = block
    try:
        return tape_cli("jacobian", *texts, "--at", at, "--format", fmt)
    finally:
        derivatives.FORCED_ROW_BLOCK = old


@pytest.mark.parametrize("fmt", ["plain", "csv", "json", "ndjson"])
@pytest.mark.parametrize("texts,at", CASES)
@pytest.mark.parametrize("block", [1, 2, 3])
def test_row_blocks_print_the_same_bytes(texts, at, fmt, block):
    whole = _run(texts, at, fmt, None)
    streamed = _run(texts, at, fmt, block)
    assert whole.exit_code == 0, whole.stderr
    assert streamed.exit_code == 0, streamed.stderr
    assert streamed.stdout == whole.stdout
    assert streamed.stderr == whole.stderr


def test_row_blocks_agree_with_finite_differences():
    got = _run(["[x*y, sin(x)*y, x^2 + y, exp(y), y/x, x - y, cos(x*y)]"], "x=0.7,y=-1.3",
               "json", 2)
    jac = np.array(json.loads(got.stdout)["points"][0]["jacobian"])
    fs = [lambda x, y: x * y, lambda x, y: np.sin(x) * y, lambda x, y: x**2 + y,
          lambda x, y: np.exp(y), lambda x, y: y / x, lambda x, y: x - y,
          lambda x, y: np.cos(x * y)]
    want = np.array([[central_difference(f, [0.7, -1.3], i) for i in range(2)]
                     for f in fs])
    assert jac.shape == (7, 2)
    np.testing.assert_allclose(jac, want, rtol=1e-7, atol=1e-8)


def test_row_blocks_report_an_infinite_slope():
    got = _run(["[x*y, sqrt(x)]"], "x=0,y=2", "json", 1)
    assert got.exit_code == 0
    doc = json.loads(got.stdout)
    assert doc["points"][0]["jacobian"] == [[2.0, 0.0], ["inf", 0.0]]
    assert "non-finite" in got.stderr and "x=0.0" in got.stderr


@pytest.mark.parametrize("fmt", ["plain", "csv", "json", "ndjson"])
def test_several_points_stream_one_point_at_a_time(fmt, monkeypatch):
    from tape.cli.commands import derive

    args = ["jacobian", "[x*y, x+y, sin(x)/y]", "--at", "x=1,y=2", "--at", "x=2,y=0",
            "--at", "x=-1,y=3", "--format", fmt]
    whole = tape_cli(*args)
    # a block of one point each (a report "costs" more than the budget), rows one by one
    monkeypatch.setattr(derive, "REPORT_BYTES_PER_NUMBER", 1 << 40)
    monkeypatch.setattr(derivatives, "FORCED_ROW_BLOCK", 1)
    got = tape_cli(*args)
    assert whole.exit_code == got.exit_code == 0
    assert got.stdout == whole.stdout
    assert got.stderr == whole.stderr and "non-finite result (inf or nan) at 1 point" in got.stderr


def test_big_jacobian_streams_within_the_budget():
    # 3,000 x 3,000 at one point: about 550 MB whole by the budget's reckoning, over a
    # 128 MB budget; streamed it fits, under an address-space cap near the budget
    n = 3000
    at = "x=[" + ",".join(str(i % 7 + 1) for i in range(n)) + "]"
    got = tape_capped("jacobian", "x*2", "--at", at, "--format", "plain", "--memory", "128",
                      memory_mb=1024)
    assert got.returncode == 0, got.stderr[-500:]
    assert got.stderr == ""
    lines = got.stdout.split("\n")
    assert lines[1:] == [""]
    numbers = lines[0].split(" ")
    assert len(numbers) == n * n
    # the diagonal is 2, everything else 0
    diag = numbers[::n + 1]
    assert set(diag) == {"2.0"} and numbers.count("2.0") == n


@pytest.mark.parametrize("ats", [["x=[1,-2,3]"], ["x=[1,-2,3]", "x=[0.5,4,-1]"]])
@pytest.mark.parametrize("fmt", ["plain", "json"])
def test_a_script_streams_the_same_bytes(tmp_path, monkeypatch, ats, fmt):
    script = tmp_path / "f.py"
    script.write_text("import tape\n\ndef f(x):\n    return tape.sin(x) * 2 + x[0]\n")
    args = ["jacobian", str(script)] + [a for at in ats for a in ("--at", at)] + [
        "--format", fmt]
    whole = tape_cli(*args)
    monkeypatch.setattr(derivatives, "FORCED_ROW_BLOCK", 2)
    got = tape_cli(*args)
    assert whole.exit_code == got.exit_code == 0, got.stderr
    assert got.stdout == whole.stdout and got.stderr == whole.stderr
    first = np.array(json.loads(tape_cli(*args[:4], "--format", "json").stdout)
                     ["points"][0]["jacobian"]) if fmt == "json" else None
    if first is not None:
        want = np.diag(2 * np.cos([1.0, -2.0, 3.0]))
        want[:, 0] += 1.0
        np.testing.assert_allclose(first, want, rtol=1e-12)
