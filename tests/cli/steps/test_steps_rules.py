"""tape diff --steps: every rule's steps are right (against SymPy), the textbook rule is the
top one where there is no doubt, every format shows the same derivation, and a wrong step can
never be printed (the engine check stops it with exit 70)."""
from __future__ import annotations

import json
import math
import random
import re

import pytest
import sympy as sp

from cli_helpers import tape_cli
from tape.calculus import steps as ST
from tape.expr.parse import parse

RULES = {"constant", "identity", "constant multiple", "sum", "power", "product", "quotient",
         "chain", "exponential", "logarithm", "trigonometric", "inverse trigonometric",
         "hyperbolic", "inverse hyperbolic", "root", "absolute value", "general power",
         "rewrite"}

#: a corpus that between them uses every rule
CORPUS = ["x^2*sin(x)", "sin(x^2)", "x^x", "3*x^2", "5", "x", "x + 1 - x^3",
          "(x^2+1)/(x-2)", "exp(x)*2^x", "ln(x^2+1)", "tan(x)*sec(x)+csc(x)-cot(x)",
          "asin(x/2)+acos(x/3)+atan(x)", "sinh(x)*cosh(x)-tanh(2*x)",
          "asinh(x)+acosh(x+2)+atanh(x/2)", "sqrt(1+x^2)+cbrt(x)", "abs(x^2-1)",
          "sin(x)^cos(x)", "sigmoid(x)", "softplus(2*x)", "relu(x)", "log2(x)+log10(x)",
          "-x^2", "x*y*sin(x*y)", "e^(x^2)", "1/x", "x^(1/3)", "2*pi*x"]

REAL = {n: sp.Symbol(n, real=True) for n in "xyuvw"}


def read(text: str):
    """Our own SymPy-syntax output read back (trusted text produced by tape, not user input)."""
    return sp.sympify(text, locals={**REAL, "sigmoid": lambda a: 1 / (1 + sp.exp(-a)),
                                    "softplus": lambda a: sp.log(1 + sp.exp(a)),
                                    "relu": lambda a: sp.Max(0, a),
                                    "cbrt": lambda a: sp.real_root(a, 3),
                                    "log2": lambda a: sp.log(a, 2),
                                    "log10": lambda a: sp.log(a, 10)})


def walk(step, wrt):
    yield step, step.get("wrt", wrt)
    for s in step["steps"]:
        yield from walk(s, wrt)


def agree_numerically(a, b, names, seed=0) -> int:
    """How many random points of the common domain a == b at (asserting it at each)."""
    rng = random.Random(seed)
    syms = [REAL[n] for n in names]
    fa = sp.lambdify(syms, a, "mpmath")
    fb = sp.lambdify(syms, b, "mpmath")
    hits = 0
    for _ in range(60):
        point = [rng.choice([0.5, 1, 2]) * rng.uniform(-1, 1) + rng.choice([0, 0, 1.5])
                 for _ in syms]
        try:
            va, vb = complex(fa(*point)), complex(fb(*point))
        except (ZeroDivisionError, ValueError, TypeError, OverflowError):
            continue
        if abs(va.imag) > 1e-12 or abs(vb.imag) > 1e-12 or not all(
                map(math.isfinite, (va.real, vb.real))):
            continue
        assert va.real == pytest.approx(vb.real, rel=1e-9, abs=1e-9), (a, b, point)
        hits += 1
    return hits


def derivation(text, wrt=("x",), order=1):
    tree = parse(text)
    return ST.derivation(tree, list(wrt), order)


@pytest.mark.parametrize("text", CORPUS)
def test_every_step_matches_sympy(text):
    tree = parse(text)
    names = [n for n in ("x", "y") if n in ST.E.free_variables(tree)] or ["x"]
    doc = derivation(text, names)
    for x in names:
        (root,) = doc["steps"][x]
        for step, wrt in walk(root, x):
            expression, result = read(step["expression"]), read(step["result"])
            free = sorted({s.name for s in (expression.free_symbols | result.free_symbols)}
                          | {wrt})
            if step["rule"] == "rewrite":       # claims equal values
                assert agree_numerically(expression, result, free) >= 3
                continue
            expected = sp.diff(expression, REAL[wrt])
            expected = expected.replace(sp.DiracDelta, lambda *a: 0)
            assert agree_numerically(expected, result, free) >= 3, step
            if "substitution" in step:
                (u, inner), = step["substitution"].items()
                assert step["rule"] == "chain"
                outer, _ = step["steps"][0], step["steps"][1]
                assert outer["wrt"] == u
                # outer'(inner) * inner' is the chain step's result
                back = read(outer["result"]).subs(REAL[u], read(inner))
                product = back * read(step["steps"][1]["result"])
                assert agree_numerically(product, result, free) >= 3


def test_the_corpus_uses_every_rule():
    seen = set()
    for text in CORPUS:
        tree = parse(text)
        names = [n for n in ("x", "y") if n in ST.E.free_variables(tree)] or ["x"]
        for x, roots in derivation(text, names)["steps"].items():
            for root in roots:
                seen |= {s["rule"] for s, _ in walk(root, x)}
    assert seen == RULES


@pytest.mark.parametrize("text, rule, children", [
    ("x^2*sin(x)", "product", ["power", "trigonometric"]),
    ("sin(x^2)", "chain", ["trigonometric", "power"]),
    ("x^x", "general power", ["product"]),
    ("3*x^2", "constant multiple", ["power"]),
    ("x^3 + sin(x)", "sum", ["power", "trigonometric"]),
    ("sin(x)/x", "quotient", ["trigonometric", "identity"]),
    ("x^5", "power", []),
    ("exp(x)", "exponential", []),
    ("2^x", "exponential", []),
    ("ln(x)", "logarithm", []),
    ("sec(x)", "trigonometric", []),
    ("atan(x)", "inverse trigonometric", []),
    ("cosh(x)", "hyperbolic", []),
    ("asinh(x)", "inverse hyperbolic", []),
    ("sqrt(x)", "root", []),
    ("abs(x)", "absolute value", []),
    ("7", "constant", []),
    ("x", "identity", []),
    ("(x+1)^3", "chain", ["power", "sum"]),
    ("x^2*y", "constant multiple", ["power"]),
])
def test_textbook_top_rule(text, rule, children):
    (root,) = derivation(text)["steps"]["x"]
    assert root["rule"] == rule
    assert [s["rule"] for s in root["steps"]] == children


def test_chain_step_names_its_placeholder():
    (root,) = derivation("sin(x^2)")["steps"]["x"]
    assert root["substitution"] == {"u": "x**2"}
    assert root["steps"][0] == {"rule": "trigonometric", "expression": "sin(u)",
                                "result": "cos(u)", "steps": [], "wrt": "u"}
    assert "wrt" not in root["steps"][1]
    assert root["result"] == "2*x*cos(x**2)"


def test_placeholder_avoids_the_expression_s_own_names():
    (root,) = derivation("sin(u*x)", wrt=("x",))["steps"]["x"]
    assert list(root["substitution"]) == ["v"]


def test_general_power_is_logarithmic_differentiation():
    (root,) = derivation("x^x")["steps"]["x"]
    assert root["steps"][0]["expression"] == "x*log(x)"
    assert sp.simplify(read(root["result"]) - sp.diff(REAL["x"] ** REAL["x"], REAL["x"])) == 0


def test_rewrite_step_result_is_the_rewritten_expression():
    doc = derivation("sigmoid(x)")
    (rewrite,) = doc["steps"]["x"]
    assert rewrite["rule"] == "rewrite" and rewrite["expression"] == "sigmoid(x)"
    assert sp.simplify(read(rewrite["result"]) - 1 / (1 + sp.exp(-REAL["x"]))) == 0
    # its one sub-step differentiates the rewritten expression: that is the derivative
    (quotient,) = rewrite["steps"]
    assert quotient["rule"] == "quotient" and quotient["result"] == doc["derivative"]["x"]


def test_higher_orders_each_in_turn():
    doc = derivation("x^3*sin(x)", order=3)
    roots = doc["steps"]["x"]
    assert len(roots) == 3
    x = REAL["x"]
    f = x ** 3 * sp.sin(x)
    for k, root in enumerate(roots, start=1):
        assert sp.simplify(read(root["result"]) - sp.diff(f, x, k)) == 0
    # each order differentiates the previous order's result
    assert sp.simplify(read(roots[1]["expression"]) - read(roots[0]["result"])) == 0


def test_several_variables_one_tree_each():
    doc = derivation("x^2*sin(y)", wrt=("x", "y"))
    assert set(doc["steps"]) == {"x", "y"}
    assert doc["derivative"] == {"x": "2*x*sin(y)", "y": "x**2*cos(y)"}


def test_a_wrong_step_is_never_shown(monkeypatch):
    from tape.calculus.treediff import neg

    real = ST._elementary

    def broken(name, u):
        rule, result = real(name, u)
        return (rule, neg(result)) if name == "sin" else (rule, result)

    monkeypatch.setattr(ST, "_elementary", broken)
    with pytest.raises(ST.StepFailure) as caught:
        derivation("x^2*sin(x)")
    assert caught.value.code == 70
    result = tape_cli("diff", "x^2*sin(x)", "--steps")
    assert result.exit_code == 70
    assert result.stdout == ""
    assert "trigonometric step" in result.stderr and result.stderr.startswith("error:")
    assert "Traceback" not in result.stderr


# ----------------------------------------------------------------------------- the CLI

def test_json_document_shape():
    result = tape_cli("diff", "x^2*sin(x)", "--steps", "--format", "json")
    assert result.exit_code == 0, result.stderr
    doc = json.loads(result.stdout)
    assert list(doc) == ["expression", "read_as", "wrt", "order", "derivative", "steps"]
    assert doc["expression"] == "x^2*sin(x)" and doc["read_as"] == "x**2*sin(x)"
    assert doc["wrt"] == ["x"] and doc["order"] == 1
    assert sp.simplify(read(doc["derivative"]) - sp.diff(read(doc["read_as"]), REAL["x"])) == 0
    (root,) = doc["steps"]
    assert set(root) == {"rule", "expression", "result", "steps"}
    assert root["rule"] == "product"


def test_json_several_variables_is_a_dict_per_variable():
    result = tape_cli("diff", "x*y^2", "--steps", "--format", "json")
    doc = json.loads(result.stdout)
    assert set(doc["steps"]) == {"x", "y"} and set(doc["derivative"]) == {"x", "y"}
    assert doc["steps"]["y"][0]["rule"] == "constant multiple"


def test_plain_and_table_layouts():
    plain = tape_cli("diff", "sin(x^2)", "--steps", "--format", "plain")
    assert plain.exit_code == 0
    lines = plain.stdout.splitlines()
    assert lines[0].startswith("d/dx [sin(x**2)] = 2*x*cos(x**2)")
    assert lines[0].endswith("(chain rule, u = x**2)")
    assert lines[1].lstrip().startswith("d/du [sin(u)] = cos(u)")
    assert lines[1].startswith("  ")
    table = tape_cli("diff", "x^2*ln(x)", "--steps", "--format", "table")
    assert "read as x**2*log(x)" in table.stdout
    assert "d/dx [x^2 ln(x)]" in table.stdout and "(product rule)" in table.stdout


def test_csv_one_row_per_step():
    result = tape_cli("diff", "sin(x^2)", "--steps", "--format", "csv")
    rows = result.stdout.splitlines()
    assert rows[0] == "variable,order,depth,rule,wrt,expression,result,substitution"
    assert rows[1] == "x,1,0,chain,x,sin(x**2),2*x*cos(x**2),u = x**2"
    assert len(rows) == 4


KNOWN_LATEX = {"begin", "end", "frac", "left", "right", "quad", "text", "sin", "cos", "tan",
               "sec", "csc", "cot", "log", "sqrt", "operatorname", "sinh", "cosh", "tanh",
               "pi", "cdot", "right|", "left|", "asin", "acos", "atan", "e"}


def _balanced(text: str) -> bool:
    depth = 0
    for ch in re.sub(r"\\[{}]", "", text):
        depth += {"{": 1, "}": -1}.get(ch, 0)
        if depth < 0:
            return False
    return depth == 0


@pytest.mark.parametrize("text", ["x^2*sin(x)", "sin(x^2)", "x^x", "sqrt(1+x^2)/(x-1)",
                                  "abs(x)*asin(x)", "e^(2x)*cosh(x)", "sigmoid(x)"])
def test_latex_is_a_pasteable_align_block(text):
    result = tape_cli("diff", text, "--steps", "--latex")
    assert result.exit_code == 0, result.stderr
    out = result.stdout.strip()
    assert out.startswith("\\begin{align*}") and out.endswith("\\end{align*}")
    assert _balanced(out)
    commands = set(re.findall(r"\\([A-Za-z]+)", out))
    assert commands <= KNOWN_LATEX, commands - KNOWN_LATEX
    body = out.splitlines()[1:-1]
    assert all("&=" in line for line in body)
    assert all(line.endswith("\\\\") for line in body[:-1])


def test_latex_json_strings_are_latex():
    result = tape_cli("diff", "x^2", "--steps", "--latex", "--format", "json")
    doc = json.loads(result.stdout)
    assert doc["steps"][0]["expression"] == "x^{2}" and doc["derivative"] == "2 x"


@pytest.mark.parametrize("args, code, words", [
    (["x[0]^2", "--steps"], 2, "scalar variables"),
    (["x^2", "--steps", "--order", "5"], 2, "up to 4"),
    (["x^2", "--steps", "--wrt", "y"], 2, "not a variable"),
    (["x^^2", "--steps"], 2, "column"),
    (["erf(x)", "--steps"], 3, "no step-by-step rule for erf"),
    (["atan2(x, 1)", "--steps"], 3, "no step-by-step rule for atan2"),
])
def test_bad_input(args, code, words):
    result = tape_cli("diff", *args)
    assert result.exit_code == code
    assert result.stderr.startswith("error:") and words in result.stderr
    assert "Traceback" not in result.stderr and result.stdout == ""


def test_partial_derivatives_are_written_with_a_round_d():
    table = tape_cli("diff", "x*y^2", "--steps", "--format", "table").stdout
    assert "along y:\n∂/∂y [x y^2] = 2x y" in table
    plain = tape_cli("diff", "x*y^2", "--steps", "--format", "plain").stdout
    assert "d/dy [x*y**2] = 2*x*y" in plain


def test_time_limit_gives_exit_3():
    result = tape_cli("diff", "sin(x)^cos(x)*tan(x^2)/(1+x^4)", "--steps", "--timeout",
                      "0.01")
    assert result.exit_code == 3
    assert result.stderr.startswith("error:") and "did not finish" in result.stderr


FUNCTION_NAMES = ["sin", "cos", "tan", "sec", "atan", "sinh", "tanh", "asinh", "exp", "ln",
                  "sqrt", "abs", "sigmoid"]


def _random_expression(rng: random.Random, depth: int) -> str:
    if depth == 0 or rng.random() < 0.15:
        return rng.choice(["x", "x", "x", "2", "3", "0.5", "pi"])
    if rng.random() < 0.4:
        return f"{rng.choice(FUNCTION_NAMES)}({_random_expression(rng, depth - 1)})"
    op = rng.choice(["+", "-", "*", "/", "^"])
    right = rng.choice(["2", "3", "-1", "0.5"]) if op == "^" and rng.random() < 0.7 \
        else _random_expression(rng, depth - 1)
    return f"({_random_expression(rng, depth - 1)}){op}({right})"


@pytest.mark.parametrize("seed", range(12))
def test_random_expressions_derive_to_sympy_s_derivative(seed):
    """Random nestings of the rules: the root result is SymPy's derivative, and no step is
    ever refused as wrong (exit 70) — at worst an expression without a real domain is
    undecided (exit 3)."""
    from tape.expr.errors import CLIError

    rng = random.Random(seed)
    text = _random_expression(rng, 4)
    tree = parse(text)
    if "x" not in ST.E.free_variables(tree):
        text, tree = f"x*({text})", parse(f"x*({text})")
    try:
        doc = derivation(text)
    except ST.StepFailure:
        raise
    except CLIError as exc:
        assert exc.code == 3, exc.message
        return
    from tape.expr.symbolic import to_sympy

    f = to_sympy(tree, {"x": None})
    expected = sp.diff(f, REAL["x"]).replace(sp.DiracDelta, lambda *a: 0)
    assert agree_numerically(expected, read(doc["derivative"]["x"]), ["x"]) >= 1, text
