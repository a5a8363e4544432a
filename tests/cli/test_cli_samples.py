"""Every sample expression runs; the sample CSV works with the sample script."""
from __future__ import annotations

import math

import pytest

from cli_helpers import SAMPLES, numbers, tape_cli
from tape.expr import parse as E

VECTORS = {"w": "[0.3,0.7]", "v": "[1,2,3]"}


def sample_expressions():
    lines = (SAMPLES / "expressions.txt").read_text().splitlines()
    return [line for line in lines if line.strip() and not line.startswith("#")]


@pytest.mark.parametrize("text", sample_expressions())
def test_sample_expression_runs(text):
    names = E.free_variables(E.parse(text))
    point = ",".join(f"{n}={VECTORS.get(n, '0.5')}" for n in names)
    result = tape_cli("grad", text, "--at", point)
    assert result.exit_code == 0, result.stderr
    assert all(math.isfinite(v) for v in numbers(result.stdout)[0])


def test_sample_points_have_a_header_naming_rosenbrocks_variables():
    result = tape_cli("hessian", str(SAMPLES / "rosenbrock.py"), "--points",
                      str(SAMPLES / "points.csv"))
    rows = numbers(result.stdout)
    assert len(rows) == 4
    # Hessian of (1-x)^2 + 100 (y-x^2)^2 at (1, 1): [[802, -400], [-400, 200]]
    assert rows[1] == [802.0, -400.0, -400.0, 200.0]
