"""SPEC section 13: exact tangents and Taylor polynomials where the expression and the point
are exact, equal to SymPy's (tangent from SymPy's diff, polynomial from SymPy's series);
``--numeric`` gives the engine's floats; inexact input stays numeric."""
from __future__ import annotations

import json

import pytest
import sympy as sp

from cli_helpers import tape_cli
from tape.expr import read
from tape.expr import symbolic as S


def _sympy_of(text: str):
    f = S.as_scalar(S.to_sympy(read(text).tree, {"x": None}))
    x = next(iter(f.free_symbols)) if f.free_symbols else sp.Symbol("x")
    return f, x


def _read_back(text: str, x):
    tree = read(text).tree
    g = S.as_scalar(S.to_sympy(tree, {n: None for n in ["x"]}))
    return g.subs({s: x for s in g.free_symbols if s.name == "x"})


def test_the_spec_examples():
    assert tape_cli("tangent", "x^2", "--at", "1").stdout == "y = 2*x - 1\n"
    assert tape_cli("tangent", "x^2", "--at", "1", "--notation", "math").stdout == \
        "y = 2x - 1\n"
    assert tape_cli("taylor", "sin x", "--at", "0", "--order", "5", "--notation",
                    "math").stdout == "x - x^3/6 + x^5/120\n"
    assert tape_cli("taylor", "sin x", "--at", "0", "--order", "5").stdout == \
        "x - x**3/6 + x**5/120\n"


@pytest.mark.parametrize("text, at", [
    ("x^2", "1"), ("sin x", "pi/6"), ("x^3 - 3x", "2"), ("e^x", "0"), ("ln x", "1"),
    ("sqrt(x)", "4"), ("atan(x)", "1"), ("x/(x^2+1)", "-1"), ("cos(2x)", "pi/4"),
    ("2^x", "3"), ("sin x", "1"),
])
@pytest.mark.parametrize("notation", ["python", "math", "latex"])
def test_exact_tangent_equals_sympys(text, at, notation):
    f, x = _sympy_of(text)
    a = S.as_scalar(S.to_sympy(read(at).tree, {}))
    expected = f.subs(x, a) + sp.diff(f, x).subs(x, a) * (x - a)
    out = tape_cli("tangent", text, "--at", at, "--notation", notation,
                   "--format", "plain").stdout.strip()
    left, _, right = out.partition(" = ")
    assert left == "y"
    assert "0." not in right                 # no float crept in
    assert sp.simplify(_read_back(right, x) - expected) == 0, out


@pytest.mark.parametrize("text, at, order", [
    ("sin x", "0", 5), ("e^x", "0", 6), ("ln x", "1", 4), ("sqrt(x)", "4", 3),
    ("sin x", "pi/6", 3), ("1/(1-x)", "0", 7), ("atan(x)", "0", 7), ("x^3", "1", 3),
    ("cos x", "pi", 4),
])
@pytest.mark.parametrize("notation", ["python", "math", "latex"])
def test_exact_taylor_equals_sympys_series(text, at, order, notation):
    f, x = _sympy_of(text)
    a = S.as_scalar(S.to_sympy(read(at).tree, {}))
    expected = sp.series(f, x, a, order + 1).removeO()
    out = tape_cli("taylor", text, "--at", at, "--order", str(order), "--notation", notation,
                   "--format", "plain").stdout.strip()
    assert "0." not in out
    assert sp.simplify(_read_back(out, x) - expected) == 0, out


def test_numeric_gives_the_engines_floats():
    out = tape_cli("taylor", "sin x", "--at", "0", "--order", "5", "--numeric").stdout
    assert out == "x - 0.16666666666666666*x**3 + 0.008333333333333333*x**5\n"
    tangent = tape_cli("tangent", "sin x", "--at", "pi/6", "--numeric").stdout
    assert tangent.startswith("y = 0.49999999999999")


def test_inexact_input_stays_numeric():
    assert tape_cli("tangent", "x^2", "--at", "1.5").stdout == \
        "y = 2.25 + 3.0*(x - 1.5)\n"
    assert tape_cli("tangent", "0.5x^2", "--at", "1").stdout == \
        "y = 0.5 + (x - 1.0)\n"


def test_json_numbers_stay_numbers():
    doc = json.loads(tape_cli("tangent", "sin x", "--at", "pi/6", "--format", "json").stdout)
    assert doc["value"] == pytest.approx(0.5) and doc["tangent"] == \
        "y = 1/2 + sqrt(3)*(x - pi/6)/2"
    assert doc["normal"].startswith("y = 1/2 - ")


@pytest.mark.parametrize("args", [
    ("tangent", "sin x", "--at", "1.5"), ("tangent", "sin x", "--at", "1", "--numeric"),
    ("taylor", "e^x", "--at", "0.5", "--order", "3"),
    ("taylor", "ln x", "--at", "2", "--order", "4", "--numeric"),
])
def test_numeric_formulas_read_back_in_every_notation(args):
    x = sp.Symbol("x")
    python = tape_cli(*args, "--notation", "python").stdout.strip().split(" = ")[-1]
    expected = sp.sympify(python)
    for notation in ("math", "latex"):
        out = tape_cli(*args, "--notation", notation).stdout.strip().split(" = ")[-1]
        got = _read_back(out, x)
        for v in (0.3, 1.1, 2.7):
            # math shows 6 significant digits, latex 15
            assert float(got.subs(x, v)) == pytest.approx(float(expected.subs(x, v)),
                                                          rel=2e-5), (notation, out)
