"""tape diff on tape's own rules (calculus/rules.py, treediff): right against SymPy, never
shown unconfirmed by the engine, no SymPy loaded on the common path, and as short as SymPy's
simplified form on the suite's corpora."""
from __future__ import annotations

import importlib.util
import json
import subprocess
import sys

import pytest
import sympy as sp

from cli_helpers import ROOT, tape_cli

X, Y = sp.Symbol("x", real=True), sp.Symbol("y", real=True)


def _agree(text: str, reference, names=(X,)) -> int:
    """Points where the printed derivative and SymPy's are both real: asserts they agree."""
    shown = sp.sympify(text, locals={s.name: s for s in names})
    a, b = (sp.lambdify(names, e, "mpmath") for e in (shown, reference))
    hits = 0
    for k in range(30):
        point = [(-1) ** (k + j) * (0.15 + 0.11 * ((5 * k + 3 * j) % 13)) for j in range(len(names))]
        try:
            u, v = complex(a(*point)), complex(b(*point))
        except (ZeroDivisionError, ValueError, TypeError, OverflowError):
            continue
        if abs(u.imag) > 1e-12 or abs(v.imag) > 1e-12:
            continue
        assert u.real == pytest.approx(v.real, rel=1e-9, abs=1e-12), (text, point)
        hits += 1
    return hits


@pytest.mark.parametrize("expression, f, order", [
    ("x^2*sin(x)", X ** 2 * sp.sin(X), 1),
    ("e^(2x)*cos(3x)", sp.exp(2 * X) * sp.cos(3 * X), 3),
    ("(x^2+1)/(x-2)", (X ** 2 + 1) / (X - 2), 2),
    ("x^x", X ** X, 2),
    ("sqrt(1+x^2)*atan(x)", sp.sqrt(1 + X ** 2) * sp.atan(X), 1),
    ("ln(x^2+1)^3", sp.log(X ** 2 + 1) ** 3, 2),
    ("sin(x)*exp(x)", sp.sin(X) * sp.exp(X), 20),      # checked by Taylor mode, not 20 tapes
])
def test_orders_agree_with_sympy(expression, f, order):
    result = tape_cli("diff", expression, "--order", str(order), "--format", "plain")
    assert result.exit_code == 0, result.stderr
    assert _agree(result.stdout, sp.diff(f, X, order)) >= 10


def test_partials_agree_with_sympy():
    doc = json.loads(tape_cli("diff", "x^2*y^3 + sin(x*y)", "--order", "2", "--format",
                              "json").stdout)
    f = X ** 2 * Y ** 3 + sp.sin(X * Y)
    refs = {"d2f/dx2": sp.diff(f, X, 2), "d2f/dxdy": sp.diff(f, X, Y),
            "d2f/dy2": sp.diff(f, Y, 2)}
    assert set(doc["derivative"]) == set(refs)
    for label, ref in refs.items():
        assert _agree(doc["derivative"][label], ref, (X, Y)) >= 10


def test_a_derivative_the_engine_does_not_confirm_is_never_shown(monkeypatch):
    """A wrong rule for sin (as if the table had a bug): tape's own derivative disagrees with
    the engine, so SymPy's is shown instead, and it is right."""
    from tape.expr import functions as F

    wrong = F.Function("sin", 1, F.FUNCTIONS["sin"].tape, "sin", mpmath="sin",
                       derivative=lambda b, u: b.neg(b.call("cos", u)), rule=F.TRIG)
    monkeypatch.setitem(F.FUNCTIONS, "sin", wrong)
    result = tape_cli("diff", "x^2*sin(x)", "--format", "plain")
    assert result.exit_code == 0, result.stderr
    assert _agree(result.stdout, sp.diff(X ** 2 * sp.sin(X), X)) >= 10


def test_simplify_asks_sympy():
    result = tape_cli("diff", "sin(x)*cos(x)^3", "--simplify", "--format", "plain")
    assert result.exit_code == 0, result.stderr
    assert _agree(result.stdout, sp.diff(sp.sin(X) * sp.cos(X) ** 3, X)) >= 10
    both = tape_cli("diff", "x^2", "--steps", "--simplify")
    assert both.exit_code == 2 and "do not go together" in both.stderr


@pytest.mark.parametrize("args", [
    ["diff", "x^2*sin(x)"],
    ["diff", "x^2*y^3", "--order", "2"],
    ["diff", "x^2*sin(x)", "--steps"],
    ["diff", "x^2 + y^2 = 1", "--implicit"],
])
def test_the_common_path_loads_no_sympy(args):
    code = ("import sys; from tape_launch import main; sys.argv = ['tape', *sys.argv[1:]]\n"
            "try:\n    main()\nexcept SystemExit:\n    pass\n"
            "print('SYMPY' if 'sympy' in sys.modules else 'NO SYMPY', file=sys.stderr)")
    result = subprocess.run([sys.executable, "-c", code, *args, "--format", "plain"],
                            capture_output=True, text=True, cwd=ROOT, timeout=120)
    assert result.returncode == 0, result.stderr
    assert result.stderr.strip().endswith("NO SYMPY"), result.stderr


def test_on_the_corpora_every_derivative_agrees_and_90_percent_are_as_short():
    """benchmarks/diff_shapes.py's figures: the printed derivative equals SymPy's on every
    case of the suite's diff, steps and homework corpora, and has no more characters than
    SymPy's simplify'd form in at least 90% of them (docs/symbolic.md states the figures)."""
    spec = importlib.util.spec_from_file_location("diff_shapes",
                                                  ROOT / "benchmarks" / "diff_shapes.py")
    shapes = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(shapes)
    shapes._setup()
    rows = shapes.measure(shapes.corpus())
    figures = shapes.figures(rows)
    assert figures["cases"] >= 90
    assert figures["agree"] == figures["cases"], [r for r in rows if not r["agree"]]
    assert figures["no_longer_percent"] >= 90.0, [r for r in rows if not r["no_longer"]]
