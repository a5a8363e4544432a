"""The diagnosis on tape's own trees (in-process, no SymPy) against the same mistakes built
with SymPy (``diagnose_symbolic``, which the diagnosis falls back to), and the verdicts that
the numbers decide without loading SymPy at all."""
from __future__ import annotations

import json
import subprocess
import sys

from pathlib import Path

import pytest
import sympy as sp

from tape.calculus.rules import NoRule
from tape.expr.parse import read
from tape.grading import diagnosis
from tape.grading.homework import real_roots

ROWS = [
    ("sin(3*x)", "cos(3*x)"), ("x^2*sin(x)", "2*x*cos(x)"), ("x/(x+1)", "-1/(x+1)^2"),
    ("x/(x+1)", "1/(x+1)"), ("2^x", "x*2^(x-1)"), ("3^x", "3^x"), ("ln(x^2+1)", "1/(x^2+1)"),
    ("cos(x)", "sin(x)"), ("1/x", "1/x^2"), ("tan(x)", "sec(x)*tan(x)"),
    ("atan(x)", "1/sqrt(1+x^2)"), ("x^4", "4*x^4"), ("x^x", "x*x^(x-1)"),
    ("x^3 + 5", "3*x^2 + 5"), ("x^3 + sin(x)", "3*x^2"), ("x^2 - sin(x)", "2x"),
    ("7*x^2", "2*x"), ("x^2/5", "2*x"), ("e^(2x)", "e^(2x)"), ("sqrt(3x+1)", "1/(2sqrt(3x+1))"),
    ("abs(2x-1)", "sign(2x-1)"), ("x^(1/3)", "x^(-2/3)"), ("x^2", "2x + 7"), ("x^2", "3x"),
    ("sin(x)^2", "cos(x)^2"), ("x^sin(x)", "x^sin(x) ln(x) cos(x)"),
]
ROOT = Path(__file__).resolve().parents[2]
POINTS = [(0.5,), (1.5,), (0.3,), (2.0,), (0.7,)]


def _said(detail: str):
    """The right derivative a detail quotes, or None."""
    for key in (": its derivative is ", ": the derivative is "):
        if key in detail:
            return detail.split(key)[1].split(", not ")[0].split(", and ")[0]
    if "its derivative, " in detail:
        return detail.split("its derivative, ")[1].split(", is missing")[0]
    return None


@pytest.mark.parametrize("expression, answer", ROWS)
def test_own_trees_name_the_mistake_sympy_names(expression, answer):
    tree, given = real_roots(read(expression).tree), real_roots(read(answer).tree)
    ours = diagnosis.diagnose(tree, given, ["x"], ["x"], POINTS)
    theirs = diagnosis.diagnose_symbolic(tree, given, ["x"], ["x"], POINTS)
    assert (ours or {}).get("kind") == (theirs or {}).get("kind"), (ours, theirs)
    if ours is None:
        return
    # the derivatives the two details quote are equal (SymPy decides), whatever their form
    x = sp.Symbol("x")
    texts = [_said(d["detail"]) for d in (ours, theirs)]
    if texts[0] is None:                      # nothing quoted: the same sentence
        assert ours == theirs
        return
    ours_expr, theirs_expr = (sp.sympify(t.replace("abs", "Abs").replace("e*", "E*"),
                                         locals={"x": x, "e": sp.E}) for t in texts)
    assert sp.simplify(ours_expr - theirs_expr) == 0, texts


def test_a_function_without_a_rule_here_is_left_to_sympy():
    tree, given = read("erf(2x)").tree, read("2/sqrt(pi)*exp(-4x^2)").tree
    with pytest.raises(NoRule):
        diagnosis.diagnose(tree, given, ["x"], ["x"], POINTS)
    found = diagnosis.diagnose_symbolic(tree, given, ["x"], ["x"], POINTS)
    assert found["kind"] == "chain rule"


def test_a_deadline_passed_gives_no_diagnosis():
    tree, given = read("x^2*sin(x)").tree, read("2*x*cos(x)").tree
    assert diagnosis.diagnose(tree, given, ["x"], ["x"], POINTS, deadline=0.0) is None


SCRIPT = """
import json, sys
import tape.grading as G
out = [G.check(*args, **options).to_dict() for args, options in json.loads(sys.argv[1])]
print(json.dumps({"sympy": "sympy" in sys.modules, "verdicts": out}))
"""


def test_verdicts_the_numbers_decide_load_no_sympy():
    asked = [(("x^2*sin(x)", "2x cos(x)"), {}), (("sin(3x)", "cos(3x)"), {}),
             (("x^2 + y^2 = 1", "-x/y"), {"implicit": True}),
             (("x^2 + y^2 = 1", "x/y"), {"implicit": True}),
             (("x^3 + y^3 = 6*x*y", "(2*y - x^2)/(y^2 - 2*x)"), {"implicit": True})]
    run = subprocess.run([sys.executable, "-c", SCRIPT, json.dumps(asked)],
                         capture_output=True, text=True, check=True, cwd=ROOT, timeout=120)
    doc = json.loads(run.stdout)
    assert doc["sympy"] is False
    wrong, chain, circle, flipped, folium = doc["verdicts"]
    assert wrong["correct"] is False and wrong["diagnosis"]["kind"] == "product rule"
    assert chain["diagnosis"]["detail"] == ("the chain rule was not applied to sin(3*x): its "
                                            "derivative is 3*cos(3*x), not cos(3*x)")
    assert circle["correct"] is True and circle["method"] == "numeric"
    assert circle["expected"] == "-x/y"
    assert flipped["correct"] is False and flipped["diagnosis"]["kind"] == "sign"
    assert folium["correct"] is True
    # the slope shown is the curve's: -F_x/F_y, checked by SymPy here
    x, y = sp.symbols("x y")
    shown = sp.sympify(folium["expected"], locals={"x": x, "y": y})
    F = x ** 3 + y ** 3 - 6 * x * y
    assert sp.simplify(shown + sp.diff(F, x) / sp.diff(F, y)) == 0
