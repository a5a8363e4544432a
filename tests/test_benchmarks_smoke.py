"""Smoke test of benchmarks/run.py: one workload, quick-sized, correctness only (never timings)."""
import importlib.util
import sys
from pathlib import Path

import pytest

RUN_PY = Path(__file__).resolve().parents[1] / "benchmarks" / "run.py"


@pytest.fixture(scope="module")
def bench():
    spec = importlib.util.spec_from_file_location("tape_benchmarks_run", RUN_PY)
    mod = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = mod                     # dataclasses look their module up there
    spec.loader.exec_module(mod)
    return mod


@pytest.mark.parametrize("workload", ["W1", "W2", "W6", "AG"])
def test_workload_runs_and_checks_pass(bench, workload):
    opts = bench.Opts(sample_target=0.001, warmup=0.0, min_rounds=1, max_rounds=1, budget=0.0)
    rows = bench.WORKLOADS[workload]([], True)
    for row in rows:
        rec = bench.run_row(row, opts, log=print)
        assert rec["status"] == "ok", rec.get("message")
        if row.tape is None:                 # an API still missing here (W6 Taylor mode): skipped
            assert "tape" in rec["skipped"]
            continue
        assert rec["tape"] is not None
        assert rec["ref"] is not None or row.ref is None


def test_check_rejects_a_wrong_gradient(bench):
    row = bench.WORKLOADS["W1"]([], True)[0]
    row.tape = lambda: 10.0 + 1e-6
    rec = bench.run_row(row, bench.Opts.quick(), log=lambda *a: None)
    assert rec["status"] == "FAIL"


def test_table_renders(bench):
    opts = bench.Opts(sample_target=0.001, warmup=0.0, min_rounds=1, max_rounds=1, budget=0.0)
    recs = [bench.run_row(r, opts, log=print) for r in bench.WORKLOADS["W1"]([], True)]
    lines = bench.table_lines(recs, [], markdown=True)
    assert lines[0].startswith("| workload") and "W1" in lines[2]


def test_partials_series_reference_matches_sympy(bench):
    """The 30-digit series reference of the doubted-digits row agrees with sympy.diff."""
    series = bench.partials_series(3, 4)
    from tape.engine.higher import multi_indices
    for k, multiset in enumerate(multi_indices(3, 4)):
        if k % 4:
            continue
        exponents = tuple(multiset.count(l) for l in range(3))
        want = bench.partials_sympy(3, exponents)     # at the exact decimals, not the doubles
        assert series[k] == pytest.approx(want, rel=1e-12, abs=1e-12)


def test_tenth_order_partials_are_seldom_doubted_and_never_in_vain(bench):
    """Issue 38: of the 3,003 tenth-order partials of sin(ab + cd + e1 f) exp(a + ... + f)/(1 +
    a^2) at 0.1..0.6, at most 1% flagged doubtful; the row's measure fails when a flag's digits
    are not all true or when a number not flagged is off by 1e-8."""
    row = bench.partials_digits_row(6, 10)
    got = row.measure_peak()
    assert got["tape"] <= 1.0, got["note"]
