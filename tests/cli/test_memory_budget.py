"""The memory budget (``--memory``, ``TAPE_MEMORY``): passes over the points shrink as the
target grows, Jacobians are taken in pieces that fit, and what can never fit is refused with
exit 2 naming the budget. Whole runs are made under an address-space cap (``tape_capped``):
going past the cap would show up as a MemoryError or exit 70, never as the right answer."""
from __future__ import annotations

import math
import sys
from pathlib import Path

import numpy as np
import pytest

from cli_helpers import central_difference, numbers, tape_capped, tape_cli

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "benchmarks"))
from memory_cases import MANY_VALUES_SCRIPT, long_expression  # noqa: E402

from tape.calculus import budget as B  # noqa: E402
from tape.calculus import derivatives as D  # noqa: E402
from tape.expr.errors import CLIError  # noqa: E402
from tape.calculus.derivatives import Points  # noqa: E402
from tape.calculus.targets import make_target  # noqa: E402

#: the address space a capped run may use: Python, NumPy and their libraries take ~300 MB of
#: it before tape computes anything
CAP_MB = 900


def vector_point(k: int) -> str:
    return "x=[" + ",".join(str(i) for i in range(1, k + 1)) + "]"


# ------------------------------------------------------------------ the budget itself
def test_budget_comes_from_the_option_then_the_environment(monkeypatch):
    monkeypatch.delenv(B.MEMORY_ENV, raising=False)
    assert B.from_option(None).mb == B.DEFAULT_MEMORY_MB
    monkeypatch.setenv(B.MEMORY_ENV, "300")
    assert B.from_option(None).mb == 300
    assert B.from_option(200).mb == 200
    for bad in ("lots", "1.5", "12", str(B.MAX_MEMORY_MB + 1)):
        monkeypatch.setenv(B.MEMORY_ENV, bad)
        with pytest.raises(CLIError) as err:
            B.from_option(None)
        assert B.MEMORY_ENV in err.value.message


def test_bad_budgets_are_refused_with_exit_2(monkeypatch):
    result = tape_cli("grad", "x^2", "--at", "1", "--memory", "10")
    assert result.exit_code == 2 and "--memory" in result.stderr
    monkeypatch.setenv(B.MEMORY_ENV, "nope")
    result = tape_cli("grad", "x^2", "--at", "1")
    assert result.exit_code == 2
    assert "TAPE_MEMORY='nope' is not a whole number of MB" in result.stderr


def test_a_pass_takes_what_half_the_free_budget_holds(monkeypatch):
    monkeypatch.setattr(B, "resident_bytes", lambda: 100 << 20)
    budget = B.Budget(300 << 20)
    assert budget.per_pass(1 << 20, 10_000) == 100          # (300 - 100) / 2 MB
    assert budget.per_pass(1 << 30, 10_000) == 1
    assert budget.per_pass(1, 50) == 50
    with pytest.raises(CLIError) as err:
        budget.require(200 << 20, "a thing", "do less")
    assert "300 MB" in err.value.message and "do less" in err.value.message
    budget.require(100 << 20, "a thing", "do less")


# ------------------------------------------------------------------ passes shrink as the target grows
def run_grad(text: str, xs: np.ndarray, ys: np.ndarray, budget: B.Budget, monkeypatch):
    """derivatives.run on an expression of x, y; returns (outcome, sizes of the passes)."""
    target = make_target([text])
    sizes = []
    batched = type(target).batched

    def counting(self, variables, shapes, count):
        sizes.append(count)
        return batched(self, variables, shapes, count)

    monkeypatch.setattr(type(target), "batched", counting)
    points = Points(["x", "y"], {"x": xs, "y": ys}, len(xs))
    comps = D.components(["x", "y"], ["x", "y"], points.sizes())
    outcome = D.run(target, points, ["x", "y"], comps, "partials", 1, budget=budget)
    monkeypatch.undo()
    return outcome, sizes


def test_long_expressions_take_smaller_passes_with_the_same_results(monkeypatch):
    rng = np.random.default_rng(5)
    xs, ys = rng.uniform(-1, 1, 3000), rng.uniform(-1, 1, 3000)
    text = long_expression(3000)
    # a budget of 8 MB, most of it taken already: a tenth of it is left for the passes
    small, small_sizes = run_grad(text, xs, ys, B.Budget(8 << 20), monkeypatch)
    short, short_sizes = run_grad("x*y", xs, ys, B.Budget(8 << 20), monkeypatch)
    big, big_sizes = run_grad(text, xs, ys, B.Budget(1 << 40), monkeypatch)
    # several passes; the measured first one is smaller when the expression is long and the
    # budget small (guessed from the expression's size, so that it fits)
    assert small_sizes[0] < B.PROBE_POINTS and len(small_sizes) > 2
    assert short_sizes[0] == big_sizes[0] == B.PROBE_POINTS
    assert max(small_sizes) < max(big_sizes) and max(short_sizes) >= 3000 - B.PROBE_POINTS
    assert sum(small_sizes) == 3000
    np.testing.assert_array_equal(small.value, big.value)
    for key in big.partials:
        np.testing.assert_array_equal(small.partials[key], big.partials[key])
    # and the numbers are the derivatives
    slope = small.partials[(0,)][17]
    assert math.isclose(slope, central_difference(
        lambda x, y: float(D.value_only(make_target([text]).batched(
            ["x", "y"], {"x": None, "y": None}, 1), [np.array([x]), np.array([y])])[0]),
        [xs[17], ys[17]], 0), rel_tol=1e-6, abs_tol=1e-8)


# ------------------------------------------------------------------ Jacobians
def fd_jacobian(texts: list[str], point: list[float]) -> np.ndarray:
    """Central differences of each expression (evaluated by tape grad's value column)."""
    def f(i):
        def value(*xs):
            target = make_target([texts[i]])
            fn = target.batched(["x", "y"], {"x": None, "y": None}, 1)
            return float(D.value_only(fn, [np.array([v]) for v in xs])[0])
        return value

    return np.array([[central_difference(f(i), point, j) for j in range(2)]
                     for i in range(len(texts))])


@pytest.mark.parametrize("texts", [
    ["x*y", "sin(x)+y^2", "x", "exp(x*y)"],      # fewer components than outputs: forward mode
    ["x*y", "sin(x)+y^2"],                         # as many: backward sweeps
    ["x^2*y"],                                     # fewer outputs
])
def test_jacobians_agree_with_finite_differences_in_both_modes(texts):
    at = [[0.3, -0.7], [1.1, 0.4]]
    result = tape_cli("jacobian", *texts, *sum((["--at", f"{a},{b}"] for a, b in at), []),
                      "--format", "csv")
    assert result.exit_code == 0, result.stderr
    rows = [list(map(float, line.split(","))) for line in result.stdout.splitlines()[1:]]
    for row, point in zip(rows, at):
        got = np.array(row[2 + len(texts):]).reshape(len(texts), 2)
        np.testing.assert_allclose(got, fd_jacobian(texts, point), rtol=1e-6, atol=1e-8)


def test_forward_and_backward_jacobians_are_the_same_numbers(monkeypatch):
    import tape

    rng = np.random.default_rng(2)
    arrays = [rng.uniform(-1, 1, (7, 3)), rng.uniform(-1, 1, 7)]
    comps = [D.Component("w", 0, i) for i in range(3)] + [D.Component("y", 1, None)]

    def fn(w, y):
        parts = [tape.sin(w[:, i] * y) for i in range(3)] + [w[:, 0] * w[:, 1]] * 3
        return tape.stack(parts, axis=1)          # 6 outputs, 4 components: forward mode

    value, forward = D.jacobian(fn, arrays, comps)
    backward = D._forward_jacobian(fn, arrays, comps, value.shape)
    monkeypatch.setattr(D, "_forward_jacobian", None)       # must not be used below
    arrays_one = [a[:1] for a in arrays]
    np.testing.assert_allclose(forward, backward, rtol=1e-14, atol=0)
    # force the backward sweep: as many components as outputs (a 4-output slice)
    value4, back4 = D.jacobian(lambda w, y: fn(w, y)[:, :4], arrays_one, comps)
    np.testing.assert_allclose(back4, forward[:1, :4], rtol=1e-14, atol=1e-15)


def test_a_jacobian_of_2000_components_fits_under_the_cap():
    result = tape_capped("jacobian", "x*2", "--at", vector_point(2000), "--format", "plain",
                         "--memory", "512", memory_mb=CAP_MB)
    assert result.returncode == 0, result.stderr[-500:]
    got = np.array(result.stdout.split(), dtype=np.float64)
    assert got.shape == (2000 * 2000,)
    np.testing.assert_array_equal(got.reshape(2000, 2000), 2 * np.eye(2000))


def test_a_jacobian_table_the_budget_cannot_hold_is_refused_before_the_work():
    # plain, csv and json stream it a block of rows at a time (test_jacobian_stream.py);
    # a table must hold it whole
    result = tape_capped("jacobian", "x*2", "--at", vector_point(10_000), "--format", "table",
                         memory_mb=CAP_MB)
    assert result.returncode == 2, result.stderr[-500:]
    assert result.stdout == ""
    assert "a report of 100,020,000 numbers at each of 1 point needs" in result.stderr
    assert "the memory budget is 1,024 MB (--memory MB or TAPE_MEMORY)" in result.stderr
    assert "--format plain, csv or json print it a block at a time" in result.stderr
    assert "Traceback" not in result.stderr and "MemoryError" not in result.stderr


def test_a_script_returning_100000_values_fits_under_the_cap(tmp_path):
    script = tmp_path / "many.py"
    script.write_text(MANY_VALUES_SCRIPT)
    result = tape_capped("jacobian", str(script), "--at", "0.5,2", "--format", "csv",
                         memory_mb=CAP_MB)
    assert result.returncode == 0, result.stderr[-500:]
    header, row = result.stdout.splitlines()
    values = np.array(row.split(","), dtype=np.float64)[2:]
    k = np.arange(100_000)
    value, jac = values[:100_000], values[100_000:].reshape(100_000, 2)
    np.testing.assert_allclose(value, np.sin(0.5 * k) + 2, rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(jac[:, 0], k * np.cos(0.5 * k), rtol=1e-12, atol=1e-9)
    np.testing.assert_array_equal(jac[:, 1], 1.0)


def test_wide_hessians_at_many_points_stream_in_small_blocks(tmp_path):
    d = 12
    names = [f"x{i:02d}" for i in range(d)]     # in the order tape sorts them
    text = "+".join(f"{a}*{b}^2" for a, b in zip(names, names[1:] + names[:1]))
    path = tmp_path / "p.csv"
    rng = np.random.default_rng(3)
    data = rng.uniform(-1, 1, (400, d))
    path.write_text(",".join(names) + "\n" + "\n".join(",".join(map(repr, r))
                                                        for r in data.tolist()) + "\n")
    whole = tape_cli("hessian", text, "--points", str(path), "--format", "plain")
    small = tape_capped("hessian", text, "--points", str(path), "--format", "plain",
                        "--memory", "128", memory_mb=CAP_MB)
    assert small.returncode == 0 and whole.exit_code == 0
    assert small.stdout == whole.stdout
    h = np.array(numbers(small.stdout)).reshape(400, d, d)
    # d2/dxi dxj of sum x_i x_{i+1}^2 at the first point
    x = data[0]
    want = np.zeros((d, d))
    for i in range(d):
        j = (i + 1) % d
        want[j, j] += 2 * x[i]
        want[i, j] += 2 * x[j]
        want[j, i] += 2 * x[j]
    np.testing.assert_allclose(h[0], want, rtol=1e-12, atol=1e-12)


# ------------------------------------------------------------------ long expressions, whole runs
@pytest.mark.slow
def test_a_97000_character_expression_runs_under_the_cap():
    text = long_expression(97_000)
    points = "".join(f"{0.001 * i},{0.5 - 0.001 * i}\n" for i in range(2000))
    result = tape_capped("grad", text, "--at", "-", "--format", "plain", "--memory", "512",
                         input=points, memory_mb=CAP_MB + 300, timeout=600)
    assert result.returncode == 0, result.stderr[-500:]
    rows = numbers(result.stdout)
    assert len(rows) == 2000 and all(len(r) == 2 and all(map(math.isfinite, r)) for r in rows)
