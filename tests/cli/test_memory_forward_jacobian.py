"""A streamed Jacobian with fewer components than outputs (forward mode, a column per pass)
takes its d columns once when their raw numbers fit in the budget and writes them a block of
rows at a time; when they do not, it repeats the d passes for each block. Both print the
bytes of the whole Jacobian."""
from __future__ import annotations

import numpy as np
import pytest
from cli_helpers import tape_cli

from tape.calculus import derivatives

# a NumPy warning escaping the blocks would mean they ran outside run()'s warning handling
pytestmark = pytest.mark.filterwarnings("error::RuntimeWarning")

# 7 outputs of 2 variables: forward mode; one row with an infinite slope
ARGS = ["jacobian", "[x*y, sin(x)*y, sqrt(x), x^2 + y, exp(y), y/x, x - y]", "--at", "x=0,y=2"]


@pytest.fixture
def passes(monkeypatch):
    """Counts the forward passes (one per component per call of ``_forward_jacobian``)."""
    count = [0]
    original = derivatives._forward_jacobian

    def counted(fn, arrays, comps, shape, rows=slice(None)):
        count[0] += len(comps)
        return original(fn, arrays, comps, shape, rows)

    monkeypatch.setattr(derivatives, "_forward_jacobian", counted)
    return count


@pytest.mark.parametrize("fmt", ["plain", "csv", "json"])
@pytest.mark.parametrize("kept", [True, False], ids=["columns-kept", "passes-repeated"])
def test_forward_row_blocks_print_the_same_bytes(fmt, kept, passes, monkeypatch):
    whole = tape_cli(*ARGS, "--format", fmt)
    assert whole.exit_code == 0 and passes[0] == 2
    passes[0] = 0
    monkeypatch.setattr(derivatives, "FORCED_ROW_BLOCK", 2)
    if not kept:
        monkeypatch.setattr(derivatives, "COLUMN_BYTES_PER_ENTRY", 1 << 40)
    got = tape_cli(*ARGS, "--format", fmt)
    assert got.exit_code == 0
    assert got.stdout == whole.stdout and got.stderr == whole.stderr
    # 4 blocks of 2 rows: the 2 passes once, or once per block
    assert passes[0] == (2 if kept else 2 * 4)


def test_kept_columns_are_the_forward_jacobian(monkeypatch):
    monkeypatch.setattr(derivatives, "FORCED_ROW_BLOCK", 3)
    got = tape_cli("jacobian", "[x*y, x^2*y, sin(y), x/y]", "--at", "x=1.5,y=-2",
                   "--format", "plain")
    jac = np.array(got.stdout.split(), dtype=float).reshape(4, 2)
    x, y = 1.5, -2.0
    want = [[y, x], [2 * x * y, x * x], [0.0, np.cos(y)], [1 / y, -x / y**2]]
    np.testing.assert_allclose(jac, want, rtol=1e-15, atol=0)
