"""The expression language: rewriting, precedence, the whitelist, limits, robustness."""
from __future__ import annotations

import math

import pytest
from hypothesis import given, settings, strategies as st

from tape.expr import parse as E
from tape.expr.errors import ExprError
from tape.expr.functions import FUNCTIONS


def evaluate(text: str, **env: float) -> float:
    """Evaluate a parsed tree with plain math (an independent interpreter for the tests)."""
    import numpy as np

    ops = {"+": lambda a, b: a + b, "-": lambda a, b: a - b, "*": lambda a, b: a * b,
           "/": lambda a, b: a / b, "**": lambda a, b: a ** b}

    def visit(node, kids):
        if isinstance(node, E.Number):
            return node.value
        if isinstance(node, E.Constant):
            return {"pi": math.pi, "e": math.e}[node.name]
        if isinstance(node, E.Variable):
            return env[node.name]
        if isinstance(node, E.Unary):
            return -kids[0] if node.op == "-" else kids[0]
        if isinstance(node, E.Binary):
            return ops[node.op](*kids)
        if isinstance(node, E.Call):
            return getattr(np, {"asin": "arcsin"}.get(node.name, node.name))(*kids)
        raise AssertionError(node)

    return E.fold(E.parse(text), visit)


@pytest.mark.parametrize("text, python", [
    ("2x^2", "2*x**2"),
    ("3(x+1)", "3*(x+1)"),
    ("4sin(x)", "4*sin(x)"),
    ("2π", "2*pi"),
    ("x − 1", "x-1"),
    ("2 × x · y", "2*x*y"),
    ("1e-3x", "1e-3*x"),
    ("x2 + 2", "x2+2"),          # a digit inside a name is not implicit multiplication
    (".5x", ".5*x"),
])
def test_rewrite(text, python):
    assert E.rewrite(text)[0] == python


@pytest.mark.parametrize("text, expected", [
    ("-x^2", -9.0),                 # -(x^2)
    ("x^3^2", 3.0 ** 9),            # x^(3^2)
    ("2x^2", 18.0),                 # 2*(x^2)
    ("1/2x", 1.5),                  # (1/2)*x
    ("3(x+1)", 12.0),
    ("4sin(x)", 4 * math.sin(3.0)),
    ("2e", 2 * math.e),
    ("π/2", math.pi / 2),
    ("x−1", 2.0),
])
def test_precedence_matches_the_spec(text, expected):
    assert evaluate(text, x=3.0) == pytest.approx(expected)


def test_tree_and_variables():
    tree = E.parse("x**2*y + sin(z[1])")
    assert E.free_variables(tree) == ["x", "y", "z"]
    assert isinstance(tree, E.Binary) and tree.op == "+"
    assert tree.right == E.Call("sin", (E.Index(E.Variable("z"), 1),))


def test_constants_are_not_variables():
    assert E.free_variables(E.parse("pi*e*x")) == ["x"]


def test_parse_list_keeps_the_source_text():
    items = E.parse_list("[x*y,  x + y ]")
    assert [text for text, _ in items] == ["x*y", "x + y"]


@pytest.mark.parametrize("text, fragment", [
    ("x.real", "attributes"),
    ("().__class__", "attributes"),
    ("__import__('os')", "dunder"),
    ("__builtins__", "dunder"),
    ("lambda: 1", "lambda"),
    ("'abc'", "strings"),
    ("f'{x}'", "strings"),
    ("import os", "cannot parse"),
    ("foo(x)", "unknown function 'foo'"),
    ("eval('1')", "unknown function 'eval'"),
    ("[i for i in x]", "comprehensions"),
    ("x if y else z", "conditional"),
    ("x < y", "comparisons"),
    ("x % 2", "operator %"),
    ("x // 2", "operator //"),
    ("(x := 2)", "assignments"),
    ("x, y", "tuples"),
    ("sin", "is a function"),
    ("sin(x, y)", "takes 1 argument"),
    ("sin(x=1)", "keyword"),
    ("x[1:2]", "slices"),
    ("x[y]", "integer"),
    ("True", "not allowed"),
    ("1j", None),                    # 1*j: implicit multiplication, a variable j
    ("", "empty"),
    ("x\x00", "control character"),
])
def test_whitelist(text, fragment):
    if fragment is None:
        E.parse(text)
        return
    with pytest.raises(ExprError) as info:
        E.parse(text)
    assert fragment in info.value.message


def test_error_points_at_the_offending_part():
    with pytest.raises(ExprError) as info:
        E.parse("2*x + foo(y)")
    lines = info.value.lines()
    assert "column 7" in lines[0]
    assert lines[1] == "  2*x + foo(y)"
    assert lines[2] == "        ^^^"      # under "foo"
    assert "sin" in lines[3]             # says what is allowed


def test_a_misspelt_function_gets_a_suggestion():
    with pytest.raises(ExprError) as info:
        E.parse("arcsn(x)")
    assert info.value.lines()[-1] == "did you mean arcsin?"


def test_caret_columns_survive_rewriting():
    # "2x" becomes "2*x": the caret must still point at the original text
    with pytest.raises(ExprError) as info:
        E.parse("2x^2 + y.imag")
    assert info.value.text[info.value.start:info.value.end] == "y.imag"


def test_unicode_names_keep_their_columns():
    with pytest.raises(ExprError) as info:
        E.parse("θ·2 + bad(θ)")
    assert info.value.text[info.value.start:info.value.end] == "bad"


def test_every_function_in_the_table_parses():
    from tape.expr.notation import ALIASES

    for name, fn in FUNCTIONS.items():
        args = ", ".join(["x"] * fn.arity)
        tree = E.parse(f"{name}({args})")
        assert tree == E.Call(ALIASES.get(name, name),
                              tuple(E.Variable("x") for _ in range(fn.arity)))


def test_long_expressions_are_accepted():
    text = "+".join(f"{i % 7}*x^2" for i in range(20_000))   # > 100,000 characters
    assert len(text) >= 100_000
    tree = E.parse(text)
    assert E.free_variables(tree) == ["x"]
    count = E.fold(tree, lambda node, kids: 1 + sum(kids))
    assert count > 60_000                                      # no RecursionError walking it


def test_deep_nesting_is_accepted_up_to_the_limit():
    text = "sin(" * 50 + "(" * 50 + "x" + ")" * 100
    assert E.free_variables(E.parse(text)) == ["x"]


@pytest.mark.parametrize("text, fragment", [
    ("(" * 1000 + "x" + ")" * 1000, "nesting limit"),
    ("x" + "+x" * (E.MAX_LENGTH // 2), "limit is"),
    ("-" * 100_000 + "x", "nested too deeply"),
    ("**".join(["x"] * 20_000), "nested too deeply"),
])
def test_beyond_the_limits_is_a_clean_error(text, fragment):
    with pytest.raises(ExprError) as info:
        E.parse(text)
    assert fragment in info.value.message


def test_huge_numbers_do_not_hang():
    tree = E.parse("9**9**9 + " + "9" * 400)
    assert isinstance(tree, E.Binary)
    assert E.parse("1" * 400) == E.Number(math.inf) or E.parse("1" * 400).value > 1e300


@settings(max_examples=400, deadline=None)
@given(st.text(max_size=60))
def test_parser_raises_only_its_own_error_on_arbitrary_text(text):
    try:
        E.parse(text)
    except ExprError:
        pass


_ALPHABET = list("xyz0123456789.+-*/^()[], ") + ["sin", "**", "pi", "e", "π", "×", "__",
                                                 ".real", "lambda", "'", "sum(", "x[0]"]


@settings(max_examples=400, deadline=None)
@given(st.lists(st.sampled_from(_ALPHABET), max_size=25).map("".join))
def test_parser_raises_only_its_own_error_on_near_valid_text(text):
    try:
        tree = E.parse(text)
    except ExprError as err:
        assert err.lines() and err.lines()[0]
    else:
        assert all(n.isidentifier() and not n.startswith("_") for n in E.free_variables(tree))


def test_docstring_examples():
    import doctest

    from tape.expr import tree

    for module in (E, tree):
        assert doctest.testmod(module).failed == 0
