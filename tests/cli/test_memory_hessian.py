"""``tape hessian`` on the memory budget: the Hessian is the Jacobian of the gradient, its rows
swept back in blocks the budget holds; a Hessian of one point too big to hold whole is written
a block of rows at a time, mirrored so that it prints exactly symmetric, the numbers nested
tapes give; sizes the budget can never hold are refused before the sweeps."""
from __future__ import annotations

import json

import numpy as np
import pytest
import sympy
from cli_helpers import central_difference, numbers, tape_capped, tape_cli

from tape.calculus import derivatives
from tape.cli.commands.derive import prepare

SCRIPT = "import tape as tf\n\ndef f(x):\n    return tf.reduce_sum(x**2) * x[0]\n"
MIXED = ("import tape as tf\n\ndef f(x, y):\n    return tf.reduce_sum(tf.sin(x)) * tf.exp(y * x[1])"
         " + tf.reduce_sum(tf.log(1 + x**2)) / (1 + y**2)\n")


def script_hessian(x: np.ndarray) -> np.ndarray:
    """The Hessian of sum(x^2) * x[0]."""
    h = 2 * x[0] * np.eye(len(x))
    h[0, :] += 2 * x
    h[:, 0] += 2 * x
    return h


def _forced(block, *args):
    old = derivatives.FORCED_ROW_BLOCK
    derivatives.FORCED_ROW_BLOCK = block
    try:
        return tape_cli(*args)
    finally:
        derivatives.FORCED_ROW_BLOCK = old


# ------------------------------------------------------------------ the numbers of nested tapes
@pytest.mark.parametrize("texts, ats, wrt", [
    (["sin(x*y)*exp(z)/(1+x^2) + y^3*z"], ["0.3,-1.2,0.7", "1,2,3", "-0.5,0.25,2"], None),
    (["sin(x*y)*exp(z)/(1+x^2) + y^3*z"], ["0.3,-1.2,0.7"], "z,x"),
    (["log(x)*w[0]*w[1] + cos(w[1]*x)*w[0]^3"], ["w=[1,2],x=0.5", "w=[3,-4],x=2"], "x,w"),
    (["sqrt(x)*y + abs(y)"], ["0,0", "1,-1"], None),
    (["atan2(y, x)*x^2 + cbrt(y)"], ["1,0", "2,3"], None),
    (["x[0]*sum(x^2) + prod(sin(x)) - x[1]^2*y"], ["x=[1,-2,3,0.5],y=0", "x=[0,0,1,2],y=3"],
     None),
])
@pytest.mark.parametrize("by_rows", [True, False], ids=["rows", "batched"])
def test_the_hessian_is_the_mirrored_upper_triangle_of_nested_tapes(texts, ats, wrt, by_rows,
                                                                      monkeypatch):
    problem = prepare(texts, ats, None, wrt)
    args = (problem.target, problem.points, problem.variables, problem.comps)
    monkeypatch.setattr(derivatives, "_by_rows", lambda n, comps: by_rows)
    new = derivatives.run(*args, "hessian")
    old = derivatives.run(*args, "partials", 2)
    d = len(problem.comps)
    want = np.zeros((problem.points.count, d, d))
    for i, j in derivatives.multisets(d, 2):
        want[:, i, j] = want[:, j, i] = old.partials[(i, j)]
    np.testing.assert_array_equal(new.value, old.value)
    # bit for bit what nested tapes printed before (nan where they gave nan; -0.0 now 0.0)
    assert np.array_equal(new.jacobian, want, equal_nan=True)
    assert not np.signbit(new.jacobian[new.jacobian == 0]).any()
    assert np.array_equal(new.jacobian, np.swapaxes(new.jacobian, 1, 2), equal_nan=True)


def test_a_script_hessian_agrees_with_sympy(tmp_path):
    script = tmp_path / "mixed.py"
    script.write_text(MIXED)
    at = [0.3, -1.2, 2.5, 0.7]
    y0 = 0.4
    got = json.loads(tape_cli("hessian", str(script), "--at", f"x={at},y={y0}",
                              "--format", "json").stdout)["points"][0]["hessian"]
    xs = sympy.symbols("x0:4")
    y = sympy.Symbol("y")
    f = (sum(sympy.sin(v) for v in xs) * sympy.exp(y * xs[1])
         + sum(sympy.log(1 + v**2) for v in xs) / (1 + y**2))
    variables = list(xs) + [y]
    subs = dict(zip(variables, at + [y0]))
    want = [[float(sympy.diff(f, a, b).evalf(30, subs=subs)) for b in variables]
            for a in variables]
    np.testing.assert_allclose(got, want, rtol=1e-13, atol=1e-14)


def test_a_hessian_agrees_with_finite_differences_of_the_gradient():
    f_text = "exp(x*y)*sin(y) + x^3/(1+y^2)"
    x, y = 0.7, -0.4
    got = np.array(numbers(_forced(1, "hessian", f_text, "--at", f"{x},{y}").stdout)[0])

    def gradient(i):
        def df(a, b):
            return json.loads(tape_cli("grad", f_text, "--at", f"{a!r},{b!r}", "-f", "json")
                              .stdout)["points"][0]["gradient"][["x", "y"][i]]
        return df

    want = [central_difference(gradient(i), [x, y], j, h=1e-5) for i in range(2)
            for j in range(2)]
    np.testing.assert_allclose(got, want, rtol=1e-7, atol=1e-8)


# ------------------------------------------------------------------ row blocks
STREAM_CASES = [
    (["sin(x*y)*exp(z)/(1+x^2) + y^3*z*w"], "x=0.3,y=-1.2,z=0.7,w=2"),
    (["sqrt(x)*y + x*z^2 + log(z)"], "x=0,y=2,z=1.5"),
    (["x[0]*sum(x^2) + prod(sin(x))"], "x=[1,-2,3,0.5,4,-1,2]"),
]


@pytest.mark.parametrize("fmt", ["plain", "csv", "json"])
@pytest.mark.parametrize("texts,at", STREAM_CASES)
@pytest.mark.parametrize("block", [1, 2, 3])
def test_row_blocks_print_the_same_bytes(texts, at, fmt, block):
    whole = tape_cli("hessian", *texts, "--at", at, "--format", fmt)
    streamed = _forced(block, "hessian", *texts, "--at", at, "--format", fmt)
    assert whole.exit_code == 0, whole.stderr
    assert streamed.exit_code == 0, streamed.stderr
    assert streamed.stdout == whole.stdout
    assert streamed.stderr == whole.stderr


def test_row_blocks_report_an_infinite_entry():
    got = _forced(1, "hessian", "sqrt(x)*y", "--at", "x=0,y=2", "--format", "json")
    assert got.exit_code == 0
    # d2/dx2 = -y/(4 x^1.5) and d2/dxdy = 1/(2 sqrt x) at x = 0: JSON's strings for infinities
    assert json.loads(got.stdout)["points"][0]["hessian"] == [["-inf", "inf"], ["inf", 0.0]]
    assert "non-finite" in got.stderr and "x=0.0" in got.stderr


def test_the_sweeps_are_batched_for_a_vector_at_few_points_only():
    vector = [derivatives.Component("x", 0, i) for i in range(20)]
    scalars = [derivatives.Component(f"v{i}", i, None) for i in range(20)]
    assert not derivatives._by_rows(1, vector) and not derivatives._by_rows(1999, vector)
    assert derivatives._by_rows(2000, vector)
    assert derivatives._by_rows(1, scalars)


def test_mirrored_rows_take_every_lower_entry_from_the_row_above():
    rng = np.random.default_rng(5)
    for d, rows in [(10, 3), (10, 1), (7, 7), (9, 4), (1, 1)]:
        full = rng.normal(size=(d, d))      # not symmetric: the lower part must be replaced
        blocks = (full[s:s + rows].copy() for s in range(0, d, rows))
        got = np.concatenate(list(derivatives._mirrored_rows(blocks, d, rows)))
        want = np.triu(full) + np.triu(full, 1).T
        np.testing.assert_array_equal(got, want)


# ------------------------------------------------------------------ sizes past the old limit
def test_a_script_hessian_of_200_components(tmp_path):
    # 20,100 distinct partials: refused before the budget decided
    script = tmp_path / "h.py"
    script.write_text(SCRIPT)
    x = np.arange(1.0, 201.0)
    got = tape_cli("hessian", str(script), "--at", "x=[" + ",".join(map(repr, x.tolist())) + "]",
                   "--format", "plain")
    assert got.exit_code == 0, got.stderr
    h = np.array(got.stdout.split(), dtype=float).reshape(200, 200)
    np.testing.assert_array_equal(h, script_hessian(x))


@pytest.mark.parametrize("fmt", ["plain", "json"])
def test_a_2000_component_hessian_streams_under_a_128_mb_budget(tmp_path, fmt):
    # 4,000,000 entries: about 244 MB whole by the budget's reckoning, over half of 128 MB;
    # written in row blocks it fits, under an address-space cap near the budget
    script = tmp_path / "h.py"
    script.write_text(SCRIPT)
    x = np.arange(2000) % 13 - 6.0
    got = tape_capped("hessian", str(script), "--at", "x=[" + ",".join(map(repr, x.tolist())) + "]",
                      "--format", fmt, "--memory", "128", memory_mb=1024, timeout=300)
    assert got.returncode == 0, got.stderr[-500:]
    assert got.stderr == ""
    if fmt == "json":
        (point,) = json.loads(got.stdout)["points"]
        h = np.array(point["hessian"])
        assert point["value"] == float(np.sum(x**2) * x[0])
    else:
        assert got.stdout.count("\n") == 1
        h = np.array(got.stdout.split(), dtype=float).reshape(2000, 2000)
    np.testing.assert_array_equal(h, script_hessian(x))


def test_a_hessian_table_beyond_the_budget_is_refused_before_the_work():
    got = tape_capped("hessian", "sum(x^3)", "--at", "x=[" + ",".join(["1"] * 2000) + "]",
                      "--format", "table", "--memory", "128", memory_mb=1024)
    assert got.returncode == 2
    assert got.stdout == ""
    assert got.stderr.startswith("error: a report of 4,002,001 numbers at each of 1 point")
    assert "the memory budget is 128 MB (--memory MB or TAPE_MEMORY)" in got.stderr
    assert "Traceback" not in got.stderr
