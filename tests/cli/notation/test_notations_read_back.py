"""SPEC section 13: every formula tape writes in ``math`` and ``latex`` notation reads back
through tape's own reader (``tape.expr.read``) as the same function, and ``python`` through
SymPy. Checked over the notation corpus and the textbook corpora (each expression and its
derivative), compared numerically at several points; and through ``tape diff --notation``."""
from __future__ import annotations

import math
import random

import pytest
import sympy as sp

from cli_helpers import tape_cli
from notation_corpus import READINGS
from tape.expr import read
from tape.expr import symbolic as S
from tape.expr.errors import ExprError
from tape.expr.printer import NOTATIONS, notate
from tape.expr.tree import free_variables
from textbook_corpus import active_calculus, apex_calculus, clp_calculus


def _functions() -> list:
    """SymPy forms of the corpora's expressions (scalar, no relation), each once."""
    texts = [typed for typed, _ in READINGS]
    for book in (active_calculus, apex_calculus, clp_calculus):
        texts += [item[1] for item in book.ITEMS]
    found, seen = [], set()
    for text in texts:
        try:
            tree = read(text).tree
            f = S.as_scalar(S.to_sympy(tree, {n: None for n in free_variables(tree)}))
        except (ExprError, Exception):   # labels, relations, vectors: not one formula
            continue
        if not isinstance(f, sp.Expr) or f.has(sp.I, sp.zoo, sp.nan) or f in seen:
            continue
        seen.add(f)
        found.append(f)
    return found


FUNCTIONS = _functions()


def _same_function(f, g, symbols) -> bool:
    """f and g agree (to 1e-8 relative) at every one of 8 points where f is finite and real
    (points of both signs, small and large); True also when f has too few such points to
    compare (not the printer's fault)."""
    rng = random.Random(40)
    agreed = 0
    for k in range(60):
        scale = (0.3, 1.0, 3.0)[k % 3]
        point = {s: sp.Float(rng.uniform(-scale, scale)) for s in symbols}
        try:
            a = complex(f.evalf(30, subs=point))
        except (TypeError, ValueError, ZeroDivisionError):
            continue
        if not (math.isfinite(a.real) and abs(a.imag) < 1e-12 * max(1, abs(a.real))):
            continue
        # the reader's symbols may carry assumptions: matched by name
        by_name = {str(s): v for s, v in point.items()}
        b = complex(g.evalf(30, subs={s: by_name[str(s)] for s in g.free_symbols}))
        if abs(b - a) > 1e-8 * max(1.0, abs(a)):
            return False
        agreed += 1
        if agreed == 8:
            break
    return True


def _read_back(text: str, notation: str, symbols=()):
    if notation == "python":
        return sp.sympify(text, locals={str(s): s for s in symbols} | {"e": sp.E})
    tree = read(text).tree
    return S.as_scalar(S.to_sympy(tree, {n: None for n in free_variables(tree)}))


def test_the_corpora_give_many_functions():
    assert len(FUNCTIONS) > 200


def test_a_wrong_reading_is_caught():
    x = sp.Symbol("x")
    assert not _same_function(1 / (2 * x), x / 2, [x])


@pytest.mark.parametrize("notation", NOTATIONS)
def test_every_formula_reads_back_as_the_same_function(notation):
    failures = []
    for f in FUNCTIONS:
        symbols = sorted(f.free_symbols, key=str)
        formulas = [f] + ([sp.diff(f, symbols[0])] if symbols else [])
        for formula in formulas:
            if formula.has(sp.DiracDelta, sp.Heaviside):
                continue    # SymPy's lowering of sign and comparisons: not a formula tape prints
            text = notate(formula, notation)
            try:
                back = _read_back(text, notation, formula.free_symbols)
            except ExprError as error:
                failures.append(f"{formula}: {text!r} is not read: {error}")
                continue
            if not _same_function(formula, back, symbols):
                failures.append(f"{formula}: {text!r} reads as {back}")
    assert not failures, "\n".join(failures[:20])


@pytest.mark.parametrize("text, math_text", [
    ("x^2 sin x", "x^2 cos(x) + 2x sin(x)"),
    ("ln(x^2+1)", "2x/(x^2 + 1)"),
    ("x^x", "x^x (ln(x) + 1)"),
    ("e^(2x)", "2e^(2x)"),
    ("3^(2x)", "2·3^(2x) ln(3)"),
    ("sqrt(x)", "1/(2√x)"),
])
def test_diff_writes_math_notation(text, math_text):
    result = tape_cli("diff", text, "--notation", "math")
    assert result.exit_code == 0
    assert result.stdout.strip() == math_text


def test_diff_notations_read_back_through_the_cli():
    for text in ["x^2 sin x", "ln(x^2+1)", "x^x", "atan(x)/x", "sqrt(1+x^2) ln x",
                 "e^(-x^2) cos(3x)", "|x| x^3", "asin(x)^2", "sec(x) tan(x)", "2^x/x"]:
        f = S.as_scalar(S.to_sympy(read(text).tree, {"x": None}))
        x, = f.free_symbols
        expected = sp.diff(f, x)
        for notation in NOTATIONS:
            out = tape_cli("diff", text, "--notation", notation).stdout.strip()
            back = _read_back(out, notation, [x])
            assert _same_function(expected, back, [x]), (text, out)


def test_piped_default_is_python_and_latex_flag_conflicts():
    assert tape_cli("diff", "x^2 sin x").stdout.strip() == "x**2*cos(x) + 2*x*sin(x)"
    clash = tape_cli("diff", "x^2", "--latex", "--notation", "math")
    assert clash.exit_code == 2 and "--notation" in clash.stderr


def test_check_writes_the_derivative_in_the_notation():
    out = tape_cli("check", "x^2 sin x", "--answer", "2x sin x", "--notation", "math").stdout
    assert out.splitlines()[-1] == "d/dx x^2 sin x = x^2 cos(x) + 2x sin(x)"
    latex = tape_cli("check", "x^2 sin x", "--answer", "2x sin x", "--notation", "latex")
    assert "\\cos" in latex.stdout.splitlines()[-1]


def _steps(text: str, notation: str) -> list:
    import json

    doc = json.loads(tape_cli("diff", text, "--steps", "--notation", notation, "--format",
                              "json").stdout)
    out = []

    def walk(step):
        out.append((step["expression"], step["result"]))
        for s in step["steps"]:
            walk(s)

    for root in doc["steps"]:
        walk(root)
    return out


@pytest.mark.parametrize("text", ["x^2 sin x", "sin(x^2)", "sqrt(1 + x^2) ln x", "x^x",
                                  "3x^2 - 5/x", "e^(2x) cos x", "atan(x)/x"])
def test_every_step_reads_back_in_math_and_latex(text):
    python = _steps(text, "python")
    for notation in ("math", "latex"):
        written = _steps(text, notation)
        assert len(written) == len(python)
        for (pe, pr), (we, wr) in zip(python, written):
            for p, w in ((pe, we), (pr, wr)):
                expected = _read_back(p, "python", [])
                got = _read_back(w, notation)
                assert _same_function(expected, got, sorted(expected.free_symbols, key=str)), \
                    (notation, p, w)


@pytest.mark.parametrize("notation", NOTATIONS)
def test_powers_of_x_minus_a_read_back(notation):
    from tape.expr.printer import notate_terms

    x = sp.Symbol("x")
    for a in (sp.Integer(1), sp.Integer(-2), sp.pi / 6, -sp.pi / 4, 1 - sp.sqrt(2),
              sp.sqrt(2) - 1, sp.Rational(3, 2)):
        terms = [(sp.Integer(1), {}), (sp.Rational(-1, 2), {"x": (a, 1)}),
                 (sp.sqrt(3), {"x": (a, 3)})]
        expected = 1 - (x - a) / 2 + sp.sqrt(3) * (x - a) ** 3
        text = notate_terms(terms, notation)
        assert _same_function(expected, _read_back(text, notation, [x]), [x]), (a, text)
