"""`--order N` at scale: every N-th partial of several variables from one Taylor-mode pass
(`tape.partials`), orders up to 30 for one variable, and the nested-tape limit where Taylor mode
does not apply. References: SymPy's exact derivatives evaluated at 30 digits, and nested tapes."""
import json
import math

import numpy as np
import pytest
import sympy as sp

from tape.calculus.derivatives import Component, multisets, partials as nested_partials
from tape.calculus.targets import expression_target

from cli_helpers import tape_cli as run_cli

a, b, c, x, y, z = sp.symbols("a b c x y z")

CASES = [
    ("sin(x*y)*exp(x+z)/(1+y^2)", sp.sin(x * y) * sp.exp(x + z) / (1 + y ** 2), (x, y, z),
     (0.3, 0.7, -0.2), 4),
    ("x^3*y^2*z + log(1+x^2+y^2)", x ** 3 * y ** 2 * z + sp.log(1 + x ** 2 + y ** 2), (x, y, z),
     (0.5, -1.5, 2.0), 3),
    ("exp(a*b)*cos(c)", sp.exp(a * b) * sp.cos(c), (a, b, c), (0.2, 0.9, 1.1), 6),
]


def _document(args):
    result = run_cli(*args, "--format", "json")
    assert result.exit_code == 0, (result.stdout + result.stderr)
    return json.loads(result.stdout)


@pytest.mark.parametrize("text, exact, symbols, point, order", CASES)
def test_every_partial_matches_sympy(text, exact, symbols, point, order):
    at = ",".join(f"{s}={v}" for s, v in zip(symbols, point))
    doc = _document(["grad", text, "--at", at, "--order", str(order)])
    got = doc["points"][0]["partials"]
    keys = multisets(len(symbols), order)
    assert len(got) == len(keys) == math.comb(len(symbols) + order - 1, order)
    subs = dict(zip(symbols, [sp.Float(v, 30) for v in point]))
    for key, entry in zip(keys, got):
        assert entry["wrt"] == [str(symbols[i]) for i in key]
        want = float(sp.diff(exact, *[symbols[i] for i in key]).evalf(30, subs=subs))
        assert entry["value"] == pytest.approx(want, rel=1e-9, abs=1e-9)


@pytest.mark.parametrize("text, exact, symbols, point, order", CASES[:2])
def test_taylor_partials_agree_with_nested_tapes_over_many_points(text, exact, symbols, point,
                                                                   order):
    rng = np.random.default_rng(3)
    names = [str(s) for s in symbols]
    pts = np.asarray(point) + 0.2 * rng.standard_normal((7, len(names)))
    csv = "\n".join([",".join(names)] + [",".join(repr(float(v)) for v in row) for row in pts])
    result = run_cli("grad", text, "--points", "-", "--order", str(order), "--format", "json",
                     input=csv + "\n")
    assert result.exit_code == 0, (result.stdout + result.stderr)
    doc = json.loads(result.stdout)
    target = expression_target(text)
    comps = [Component(n, i, None) for i, n in enumerate(names)]
    fn = target.batched(names, {n: None for n in names}, len(pts))
    _, want = nested_partials(fn, [pts[:, i] for i in range(len(names))], comps, order)
    for p, point_doc in enumerate(doc["points"]):
        for key, entry in zip(multisets(len(names), order), point_doc["partials"]):
            assert entry["value"] == pytest.approx(want[key][p], rel=1e-9, abs=1e-9)


def test_variables_held_constant_stay_constant():
    # --wrt x,y with z fixed: the partials are those of the function of x and y alone
    doc = _document(["grad", "x^2*y^2*z^3 + exp(x*z)", "--at", "x=0.5,y=2,z=1.5",
                     "--wrt", "x,y", "--order", "3"])
    subs = {x: sp.Rational(1, 2), y: 2, z: sp.Rational(3, 2)}
    f = x ** 2 * y ** 2 * z ** 3 + sp.exp(x * z)
    for key, entry in zip(multisets(2, 3), doc["points"][0]["partials"]):
        want = float(sp.diff(f, *[(x, y)[i] for i in key]).subs(subs))
        assert entry["value"] == pytest.approx(want, rel=1e-10, abs=1e-10)


@pytest.mark.parametrize("order", [12, 20, 30])
def test_one_variable_up_to_order_30(order):
    doc = _document(["grad", "exp(2x)*sin(x)", "--at", "0.3", "--order", str(order)])
    want = sp.diff(sp.exp(2 * x) * sp.sin(x), x, order).evalf(30, subs={x: sp.Float(0.3, 30)})
    assert doc["points"][0]["derivative"] == pytest.approx(float(want), rel=1e-9)


def test_order_above_30_is_refused():
    result = run_cli("grad", "x", "--at", "1", "--order", "31")
    assert result.exit_code == 2
    assert "1<=x<=30" in (result.stdout + result.stderr)


def test_nested_tapes_keep_their_limit(tmp_path):
    script = tmp_path / "two.py"
    script.write_text("def f(x, y):\n    return x * y\n")
    result = run_cli("grad", str(script), "--at", "1,2", "--order", "11")
    assert result.exit_code == 2
    assert "nested tapes" in (result.stdout + result.stderr) and "10" in (result.stdout + result.stderr)
    assert "Traceback" not in (result.stdout + result.stderr)


def test_plot_draws_high_orders_through_taylor_mode():
    result = run_cli("plot", "sin(2x)", "--range", "0:1", "--points", "5", "--order", "12",
                     "--format", "json")
    assert result.exit_code == 0, (result.stdout + result.stderr)
    doc = json.loads(result.stdout)
    grid = doc["x"]
    twelfth = doc["series"]["f" + "'" * 12] if "f" + "'" * 12 in doc["series"] else \
        list(doc["series"].values())[-1]
    for xv, got in zip(grid, twelfth):
        assert got == pytest.approx(2 ** 12 * math.sin(2 * xv), rel=1e-9, abs=1e-6)
