"""SPEC section 13: ``tape.calculus.derivative`` is ``tape diff`` as a call, with ``.text``,
``.math``, ``.latex``, ``.steps`` and ``_repr_latex_`` (Jupyter)."""
from __future__ import annotations

import subprocess
import sys

import pytest
import sympy as sp

import tape.calculus
from tape.expr import read
from tape.expr import symbolic as S
from tape.expr.errors import CLIError


def _sympy(text: str):
    tree = read(text).tree
    return S.as_scalar(S.to_sympy(tree, {n: None for n in read(text).variables}))


@pytest.mark.parametrize("text", ["x^2 sin x", "ln(x^2+1)", "x^x", "e^(-x) cos(2x)",
                                  "sqrt(1 + x^2)", "atan(x)/x"])
def test_the_call_gives_what_tape_diff_prints(text):
    d = tape.calculus.derivative(text)
    printed = subprocess.run([sys.executable, "-m", "tape", "diff", text],
                             capture_output=True, text=True).stdout.strip()
    assert d.text == printed
    f = _sympy(text)
    x, = f.free_symbols
    for written in (d.text, d.math, d.latex):
        g = _sympy(written)
        assert sp.simplify(g.subs({s: x for s in g.free_symbols}) - sp.diff(f, x)) == 0


def test_notations_and_jupyter():
    d = tape.calculus.derivative("x^2 sin x")
    assert d.math == "x^2 cos(x) + 2x sin(x)"
    assert d._repr_latex_().startswith("$\\displaystyle ") and "\\cos" in d._repr_latex_()
    assert str(d) == "x**2*cos(x) + 2*x*sin(x)"


def test_steps_are_the_derivation():
    d = tape.calculus.derivative("x^2 sin x")
    root, = d.steps["steps"]["x"]
    assert root["rule"] == "product" and root["result"] == "x**2*cos(x) + 2*x*sin(x)"


def test_several_variables_and_orders():
    d = tape.calculus.derivative("x^2 y", order=2)
    assert d.text == {"x,x": "2*y", "x,y": "2*x", "y,y": "0"}
    assert tape.calculus.derivative("x^2 y", wrt="y").text == "x**2"


def test_bad_text_is_a_clear_error():
    with pytest.raises(CLIError):
        tape.calculus.derivative("x^^2")
