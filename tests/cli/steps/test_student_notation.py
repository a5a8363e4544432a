"""--steps, tangent and taylor take the notation a student writes (``x^2 sin x``, ``3x^2``,
``e^x``, ``sin^2 x``, ``d/dt ...``): each reading is asserted (``read_as``), the derivation's
top rule is the textbook's, and its result is SymPy's derivative of the expression as a person
means it (written here in SymPy's own terms, independently of tape's reader)."""
from __future__ import annotations

import json
import math

import pytest
import sympy as sp

from cli_helpers import tape_cli

x, t, y = sp.symbols("x t y", real=True)
E = sp.E


def read(text: str):
    """tape's own SymPy-syntax output read back (trusted text produced by tape)."""
    return sp.sympify(text, locals={"x": x, "t": t, "y": y, "e": E})


def run_json(*args):
    result = tape_cli(*args, "--format", "json")
    assert result.exit_code == 0, result.stderr
    return json.loads(result.stdout)


@pytest.mark.parametrize("text, read_as, meant, rule, children", [
    ("x^2 sin x", "x**2*sin(x)", x**2 * sp.sin(x), "product", ["power", "trigonometric"]),
    ("3x^2 - 5/x", "3*x**2 - 5/x", 3 * x**2 - 5 / x, "sum", ["constant multiple", "quotient"]),
    ("e^(2x)", "e**(2*x)", sp.exp(2 * x), "chain", ["exponential", "constant multiple"]),
    ("sin^2 x", "sin(x)**2", sp.sin(x)**2, "chain", ["power", "trigonometric"]),
    ("x e^x", "x*e**x", x * sp.exp(x), "product", ["identity", "exponential"]),
    ("2x ln x", "2*x*log(x)", 2 * x * sp.log(x), "constant multiple", ["product"]),
    ("sqrt(x) cos x", "sqrt(x)*cos(x)", sp.sqrt(x) * sp.cos(x), "product",
     ["root", "trigonometric"]),
])
def test_steps_read_student_notation(text, read_as, meant, rule, children):
    doc = run_json("diff", text, "--steps")
    assert doc["expression"] == text and doc["read_as"] == read_as
    assert doc["wrt"] == ["x"]
    (root,) = doc["steps"]
    assert root["rule"] == rule
    assert [s["rule"] for s in root["steps"]] == children
    assert sp.simplify(read(doc["derivative"]) - sp.diff(meant, x)) == 0
    assert sp.simplify(read(root["result"]) - sp.diff(meant, x)) == 0


def test_a_d_by_dt_label_picks_the_variable():
    doc = run_json("diff", "d/dt t^3 e^t", "--steps")
    assert doc["read_as"] == "t**3*e**t" and doc["wrt"] == ["t"]
    assert doc["steps"][0]["rule"] == "product"
    assert sp.simplify(read(doc["derivative"]) - sp.diff(t**3 * sp.exp(t), t)) == 0


def test_the_board_for_x2_sin_x():
    """The teacher's board: math notation, the reading on top, one rule per line."""
    result = tape_cli("diff", "x^2 sin x", "--steps", "--format", "table")
    assert result.exit_code == 0
    lines = [line.rstrip() for line in result.stdout.splitlines()]
    assert lines == [
        "read as x**2*sin(x)",
        "d/dx [x^2 sin(x)] = x^2 cos(x) + 2x sin(x)   (product rule)",
        "  d/dx [x^2] = 2x                            (power rule)",
        "  d/dx [sin(x)] = cos(x)                     (trigonometric rule)",
    ]


def test_latex_from_student_notation():
    result = tape_cli("diff", "x^2 sin x", "--steps", "--latex", "--format", "plain")
    assert result.exit_code == 0
    text = result.stdout
    assert text.count("{") == text.count("}")
    assert "\\sin" in text and "\\begin{align" in text


def test_tangent_reads_student_notation():
    doc = run_json("tangent", "x^2 sin x", "--at", "1")
    assert doc["read_as"] == "x**2*sin(x)"
    f = x**2 * sp.sin(x)
    assert doc["value"] == pytest.approx(float(f.subs(x, 1)), rel=1e-14)
    assert doc["slope"] == pytest.approx(float(sp.diff(f, x).subs(x, 1)), rel=1e-14)


def test_taylor_reads_student_notation():
    doc = run_json("taylor", "e^(2x)", "--at", "0", "--order", "6")
    assert doc["read_as"] == "e**(2*x)"
    expected = [2.0**k / math.factorial(k) for k in range(7)]
    assert doc["coefficients"] == pytest.approx(expected, rel=1e-14)
