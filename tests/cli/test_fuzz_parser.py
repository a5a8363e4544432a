"""Fuzzing the expression parser and the point parsers (hypothesis).

Properties:

* ``expr.parse`` / ``parse_list`` on any text return a tree or raise ``ExprError`` - never
  another exception - and finish in bounded time, for inputs up to the size limit;
* nothing is ever executed: known injection tricks are rejected, no file appears, no module
  is imported (``sys.modules`` is compared before and after), ``builtins`` are not touched;
* a tree that parses can be shape-checked and evaluated on tape tensors, raising nothing but
  ``CLIError``;
* ``--at`` / ``--at -`` / ``--points`` parsing returns points or raises ``CLIError``;
* the notation of SPEC section 4 (spaces as products, bracketless functions, ``sin^2 x``,
  bars, superscripts, roots, labels, equations, LaTeX) obeys the same rules, and a text that
  reads gives a ``read_as`` that reads back to the same tree.
"""
from __future__ import annotations

import builtins
import io
import os
import sys
import time

import numpy as np
import pytest
from hypothesis import HealthCheck, example, given, settings, strategies as st

from tape.expr import parse as E
from tape.expr import lower
from tape.cli import points as P
from tape.expr.errors import CLIError, ExprError
from tape.expr.functions import FUNCTIONS

FUZZ = settings(max_examples=200, deadline=None,
                suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much])

# --------------------------------------------------------------------------- helpers


def parse_or_error(text: str, parser=E.parse):
    """Parse; the only exception allowed is ExprError."""
    try:
        return parser(text)
    except ExprError as err:
        assert err.code == 2
        lines = err.lines()     # rendering the message must not fail either
        assert lines and all(isinstance(line, str) for line in lines)
        return None


def evaluate_or_error(tree) -> None:
    """Shape-check and evaluate a parsed tree at one point; only CLIError may escape."""
    names = E.free_variables(tree)
    sizes = {n: None for n in names}
    try:
        lower.check_shapes(tree, sizes)
    except CLIError:
        return
    import tape

    fn = lower.to_tape(tree, names)
    with np.errstate(all="ignore"):
        out = fn(*[tape.constant(np.full((2, 1), 0.5)) for _ in names])
    assert np.asarray(out).size in (1, 2)


# --------------------------------------------------------------------------- grammar pieces

NAMES = ["x", "y", "z", "w", "pi", "e", "π", "x1", "_x", "__x__", "__import__", "os", "sys",
         "eval", "exec", "open", "print", "globals", "lambda", "import", "class", "def",
         "None", "True", "ｘ", "𝓍", "а", "ⅰ", "é"] + list(FUNCTIONS)
NUMBERS = ["0", "1", "2", "0.5", ".5", "5.", "1e3", "1e-3", "1e999", "2e", "0x10", "1_0",
           "9" * 30, "00", "1j", "3.14159"]
OPERATORS = ["+", "-", "*", "/", "**", "^", "%", "//", "@", "&", "|", "<<", "<", "==", "=",
             ":=", "−", "×", "·", "÷", "!", "~", "not ", " and ", " if ", " else ", " for ",
             " in ", ":", ";", ",", ".", "...", "#", "\\", "$", "?", "'", '"', "`"]
BRACKETS = ["(", ")", "[", "]", "{", "}", "()", "[]", "[0]", "[-1]", "[1:2]"]
SPACE = [" ", "", "\t", "\n", "\u00a0", "\u200b", "\x00", "\x7f"]
PIECES = NAMES + NUMBERS + OPERATORS + BRACKETS + SPACE

near_valid = st.lists(st.sampled_from(PIECES), min_size=1, max_size=40).map("".join)


@st.composite
def valid_expression(draw, depth=4):
    """A syntactically valid expression of the language (shapes not guaranteed)."""
    if depth == 0 or draw(st.booleans()):
        return draw(st.sampled_from(["x", "y", "z", "2", "0.5", "pi", "e", "π", "1e-3"]))
    kind = draw(st.sampled_from(["bin", "call", "neg", "paren", "implicit"]))
    a = draw(valid_expression(depth=depth - 1))
    if kind == "bin":
        b = draw(valid_expression(depth=depth - 1))
        return f"{a}{draw(st.sampled_from(['+', '-', '*', '/', '**', '^', '−', '×', '·']))}{b}"
    if kind == "call":
        name = draw(st.sampled_from(sorted(n for n, f in FUNCTIONS.items()
                                           if f.kind == "elementwise")))
        if FUNCTIONS[name].arity == 2:
            return f"{name}({a}, {draw(valid_expression(depth=depth - 1))})"
        return f"{name}({a})"
    if kind == "neg":
        return f"-({a})"
    if kind == "implicit":
        return f"3({a})"
    return f"({a})"


# --------------------------------------------------------------------------- properties

@FUZZ
@given(st.text(max_size=200))
def test_arbitrary_text_parses_or_raises_expr_error(text):
    tree = parse_or_error(text)
    if tree is not None:
        evaluate_or_error(tree)
    parse_or_error(text, E.parse_list)


@FUZZ
@given(near_valid)
def test_near_valid_text_parses_or_raises_expr_error(text):
    tree = parse_or_error(text)
    if tree is not None:
        evaluate_or_error(tree)


@FUZZ
@given(valid_expression(), st.integers(0, 3), st.sampled_from(PIECES))
def test_valid_expressions_parse_and_mutations_fail_cleanly(text, cut, piece):
    tree = E.parse(text)
    evaluate_or_error(tree)
    # one mutation: insert a grammar piece somewhere, or drop a character
    position = (len(text) * cut) // 3
    parse_or_error(text[:position] + piece + text[position:])
    parse_or_error(text[:position] + text[position + 1:])


INJECTIONS = [
    "__import__('os').system('touch pwned')",
    "__import__",
    "().__class__.__bases__[0].__subclasses__()",
    "x.__class__",
    "[].__class__.__mro__",
    "open('pwned', 'w')",
    "eval('1')",
    "exec('import os')",
    "compile('1', 'f', 'eval')",
    "globals()",
    "getattr(x, 'real')",
    "lambda: __import__('os')",
    "(lambda: 1)()",
    "f'{__import__(\"os\").system(\"touch pwned\")}'",
    "f'{x}'",
    "(x := __import__('os'))",
    "[x for x in ().__class__.__bases__]",
    "breakpoint()",
    "＿＿import＿＿('os')",          # fullwidth underscores
    "𝓮𝔁𝓮𝓬('1')",                     # NFKC-normalised to exec
    "ｅｖａｌ('1')",
    "sin.__globals__",
    "x[__import__('os')]",
    "x if __import__('os') else 1",
    "sin(x, key=__import__('os'))",
    "sin(*[x])",
    "sin(**{'x': 1})",
    "import os",
    "x; import os",
    "x\nimport os",
    "'\\x5f\\x5fimport\\x5f\\x5f'",
    "b'\\x00'",
    "9**9**9**9",
    "9" * 5000,
    "(" * 10_000 + "x" + ")" * 10_000,
    "-" * 100_000 + "x",
    "x" + "**x" * 50_000,
    "sin(" * 149 + "x" + ")" * 149,
    "[" * 149 + "x" + "]" * 149,
    "x[0]" * 1000,
    "#x",
    "x # __import__('os')",
]


@pytest.mark.parametrize("text", INJECTIONS, ids=range(len(INJECTIONS)))
def test_injection_tricks_execute_nothing(text, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    modules = set(sys.modules)
    builtin_names = dict(vars(builtins))
    started = time.perf_counter()
    tree = parse_or_error(text)
    if tree is not None:        # only plain arithmetic may parse (9**9**9**9, sin(sin(...)))
        names = E.free_variables(tree)
        assert not any(n.startswith("_") or n in ("eval", "exec", "open") for n in names)
        evaluate_or_error(tree)
    assert time.perf_counter() - started < 10
    assert list(tmp_path.iterdir()) == []
    # only tape's own reader modules (LaTeX) and the standard library's unicodedata and
    # difflib (folding fullwidth text, suggesting a name) may load on the way
    new = set(sys.modules) - modules
    assert new <= {"tape.expr.latex", "unicodedata", "difflib"}, new
    assert dict(vars(builtins)) == builtin_names


def test_rejected_injections_point_at_the_offending_part():
    err = pytest.raises(ExprError, E.parse, "1 + __import__('os')").value
    assert err.start == 4 and "__import__" in err.message
    err = pytest.raises(ExprError, E.parse, "x + y.real").value
    assert err.start == 4


@pytest.mark.parametrize("make", [
    pytest.param(lambda n: "x" + "+x" * ((n - 1) // 2), marks=pytest.mark.slow),
    pytest.param(lambda n: ("sin(x)*y-" * (n // 9 + 1))[:n - 1] + "x", marks=pytest.mark.slow),
    lambda n: "-" * (n - 1) + "x",
    lambda n: "1." + "1" * (n - 2),
    lambda n: ("(" * 150 + "x" + ")" * 150 + "+") * (n // 302) + "x",
    lambda n: "".join(PIECES[(i * 7919) % len(PIECES)] for i in range(n))[:n],
], ids=["sum", "mixed", "unary", "long-float", "deep-parens", "soup"])
def test_inputs_at_the_size_limit_finish_in_bounded_time(make):
    text = make(E.MAX_LENGTH)[:E.MAX_LENGTH]
    started = time.perf_counter()
    parse_or_error(text)
    assert time.perf_counter() - started < 30


def test_limits_are_enforced_with_messages_naming_them():
    # SPEC: at least 100,000 characters and 100 levels of nesting are accepted
    E.parse("x" + "+x" * 50_000)
    E.parse("(" * 100 + "x" + ")" * 100)
    E.parse("sin(" * 100 + "x" + ")" * 100)
    E.parse("(" * E.MAX_NESTING + "x" + ")" * E.MAX_NESTING)
    too_long = pytest.raises(ExprError, E.parse, "x" * (E.MAX_LENGTH + 1)).value
    assert f"{E.MAX_LENGTH}" in too_long.message and "limit" in too_long.message
    too_deep = pytest.raises(ExprError, E.parse,
                             "(" * (E.MAX_NESTING + 1) + "x" + ")" * (E.MAX_NESTING + 1)).value
    assert str(E.MAX_NESTING) in too_deep.message and "limit" in too_deep.message


# --------------------------------------------------------------------------- point parsers

point_text = st.one_of(
    st.text(max_size=60),
    st.lists(st.sampled_from(["x", "y", "=", ",", "[", "]", "1", "-2.5", "pi", "1e999", "nan",
                              "inf", " ", "sin(1)", "2*", "(", ")", "x=", "y=", "#", "\n"]),
             max_size=20).map("".join),
)


@FUZZ
@given(point_text, st.sampled_from([["x"], ["x", "y"], []]))
def test_at_parser_returns_points_or_cli_error(text, names):
    try:
        point = P.parse_point(text, names)
    except CLIError as err:
        assert err.code == 2 and err.message
        return
    assert list(point) == names
    for value in point.values():
        assert isinstance(value, (float, list))


@FUZZ
@given(st.text(max_size=200), st.sampled_from([["x"], ["x", "y"], ["w"]]))
def test_stdin_points_parser_returns_points_or_cli_error(text, names):
    try:
        pts = P.from_at(["-"], names, io.StringIO(text))
    except CLIError as err:
        assert err.code == 2
        return
    assert pts.count >= 1
    for name in names:
        assert pts.arrays[name].shape[0] == pts.count


csv_cell = st.sampled_from(["1", "2.5", "-3", "", " ", "abc", "[1,2]", "[1,2,3]", "pi/4", "1e999",
                            "nan", '"1,2"', "x", "=", "[", "2*"])


@FUZZ
@given(text=st.one_of(
    st.text(max_size=200),
    st.lists(st.lists(csv_cell, max_size=4).map(",".join), max_size=6).map(
        lambda rows: "x,y\n" + "\n".join(rows)),
), names=st.sampled_from([["x"], ["x", "y"], ["y", "x"]]))
def test_csv_points_parser_returns_points_or_cli_error(text, names, tmp_path_factory):
    path = tmp_path_factory.mktemp("csv") / "points.csv"
    path.write_text(text, encoding="utf-8")
    try:
        pts = P.from_csv(str(path), names, io.StringIO(""))
    except CLIError as err:
        assert err.code == 2
        return
    assert pts.count >= 1
    for name in names:
        assert pts.arrays[name].shape[0] == pts.count


def test_csv_reading_matches_the_file_and_keeps_row_numbers(tmp_path):
    rng = np.random.default_rng(3)
    data = rng.normal(size=(1000, 2)).tolist()
    path = tmp_path / "p.csv"
    path.write_text("y,x,ignored\n" + "\n".join(f"{a!r},{b!r},z" for a, b in data) + "\n")
    pts = P.from_csv(str(path), ["x", "y"], io.StringIO(""))
    np.testing.assert_array_equal(pts.arrays["x"], [b for _, b in data])
    np.testing.assert_array_equal(pts.arrays["y"], [a for a, _ in data])
    lines = path.read_text().splitlines()
    lines[700] = "oops,1,z"
    path.write_text("\n".join(lines) + "\n")
    err = pytest.raises(CLIError, P.from_csv, str(path), ["x", "y"], io.StringIO("")).value
    assert "row 701 column y" in err.message


def test_point_count_and_vector_length_limits(tmp_path, monkeypatch):
    monkeypatch.setattr(P, "MAX_POINTS", 5)
    path = tmp_path / "p.csv"
    path.write_text("x\n" + "\n".join(str(i) for i in range(6)) + "\n")
    err = pytest.raises(CLIError, P.from_csv, str(path), ["x"], io.StringIO("")).value
    assert "more than 5 points" in err.message and "limit" in err.message
    err = pytest.raises(CLIError, P.from_at, ["-"], ["x"],
                        io.StringIO("\n".join("1" * 6))).value
    assert "more than 5 points" in err.message
    monkeypatch.setattr(P, "MAX_VECTOR_LENGTH", 3)
    err = pytest.raises(CLIError, P.parse_point, "x=[1,2,3,4]", ["x"]).value
    assert "limit is 3 components" in err.message
    assert P.parse_point("x=[1,2,3]", ["x"]) == {"x": [1.0, 2.0, 3.0]}


# --------------------------------------------------------------------------- SPEC 4 notation

PEOPLE = ["x", "y", "2", "0.5", "π", "e", "θ", "xy", "sinx", "sin", "cos", "ln", "sec", "arcsin",
          "log_2", "log", "√", "∛", "|", "²", "⁻¹", "^", "^2", "^-1", "^-2", "^(-1)", " ",
          "(", ")", "{", "}", "[", "]", ",", "+", "-", "/", "*", "·", "=", "y =", "f(x) =",
          "d/dx", "\\frac", "\\sqrt", "\\sin", "\\left(", "\\right)", "\\cdot",
          "\\pi", "\\log_{2}", "{x}", "[3]", "ｘ", "１", "__", ".", "'", "#", "\\", "$"]
people_text = st.lists(st.sampled_from(PEOPLE), min_size=1, max_size=30).map("".join)


def read_or_error(text, **options):
    """Read (SPEC 4); the only exception allowed is ExprError. Returns the reading or None."""
    try:
        return E.read(text, **options)
    except ExprError as err:
        assert err.code == 2
        lines = err.lines()
        assert lines and all(isinstance(line, str) for line in lines)
        if err.text is not None and err.start is not None:
            assert 0 <= err.start <= len(err.text)   # the caret is inside the text as typed
        return None


@FUZZ
@given(people_text, st.sampled_from([(), ("xy",), ("x", "y", "rate")]), st.booleans())
@example("{x}=x", (), True)     # an equation with a lone name on the left: not a label again
@example("(y) = x^2 + y", ("x", "y", "rate"), True)
@example("[3][3]", (), False)    # a number indexed: printed bracketed, or it reads as 3*3
def test_people_notation_reads_or_raises_expr_error(text, declared, relation):
    reading = read_or_error(text, names=declared, relation=relation)
    if reading is None:
        return
    again = E.read(reading.read_as, names=declared, relation=relation)
    assert again.tree == reading.tree, (text, reading.read_as)
    if not isinstance(reading.tree, E.Relation):
        evaluate_or_error(reading.tree)


@FUZZ
@given(st.text(max_size=120), st.sampled_from([None, "--answer"]))
def test_arbitrary_text_reads_or_raises_labelled_expr_error(text, label):
    try:
        E.read(text, label=label, relation=True)
    except ExprError as err:
        if label and err.text is not None:
            assert err.lines()[0].startswith("--answer: ")


@st.composite
def people_expression(draw, depth=3):
    """A valid expression written the way people write it, with its meaning in Python
    syntax: (typed, meaning)."""
    if depth == 0 or draw(st.booleans()):
        atom = draw(st.sampled_from([("x", "x"), ("y", "y"), ("2", "2"), ("π", "pi"),
                                     ("x²", "x**2"), ("|x|", "abs(x)"), ("√x", "sqrt(x)")]))
        return atom
    kind = draw(st.sampled_from(["product", "bare", "power", "sum", "bars", "latex"]))
    a, ma = draw(people_expression(depth=depth - 1))
    if kind == "product":
        b, mb = draw(people_expression(depth=depth - 1))
        return f"({a})({b})", f"({ma})*({mb})"
    if kind == "bare":
        name = draw(st.sampled_from(["sin", "cos", "ln", "tan", "exp"]))
        py = "log" if name == "ln" else name
        return f"{name} ({a})", f"{py}({ma})"
    if kind == "power":
        name = draw(st.sampled_from(["sin", "cos", "sinh"]))
        return f"{name}^2 ({a})", f"{name}({ma})**2"
    if kind == "sum":
        b, mb = draw(people_expression(depth=depth - 1))
        return f"{a} + {b}", f"{ma} + {mb}"
    if kind == "bars":
        return f"|{a}|", f"abs({ma})"
    return f"\\frac{{{a}}}{{2}}", f"({ma})/2"


@FUZZ
@given(people_expression())
def test_people_expressions_read_as_meant_and_round_trip(case):
    typed, meaning = case
    reading = E.read(typed)
    assert reading.tree == E.parse(meaning)
    assert E.parse(reading.read_as) == reading.tree
