"""SPEC section 4, "Second edition": what textbooks and students also write. Each rule is held
to the tree it gives (through ``read_as``, which reads back to the same tree) and to its note."""
from __future__ import annotations

import pytest

import tape.expr
from tape.expr.parse import parse, read_list


def reads(text: str, meaning: str, **names) -> tape.expr.Reading:
    reading = tape.expr.read(text, **names)
    assert reading.tree == parse(meaning), (text, reading.read_as)
    assert tape.expr.read(reading.read_as, **names).tree == reading.tree
    return reading


def noted(reading, *fragments) -> None:
    assert any(all(f in note for f in fragments) for note in reading.notes), reading.notes


# --- square brackets and braces group ---------------------------------------------------

@pytest.mark.parametrize("typed, meaning", [
    ("[x^2+3]^2", "(x**2 + 3)**2"),
    (r"\dfrac{-2x}{[x^2+3]^2}", "-2*x/(x**2 + 3)**2"),
    ("2[(2x+1)^{10}+1]", "2*((2*x + 1)**10 + 1)"),
    (r"h(x)=[(2x+1)^{10} + 1]^{10}", "((2*x + 1)**10 + 1)**10"),
    (r"\left[\left(1+ \dfrac{1}{t}\right)^{-1} + 1\right]^{-1}", "((1 + 1/t)**-1 + 1)**-1"),
    (r"\big[x+1\big]^2", "(x + 1)**2"),
    (r"(\cos x)^{\sin x}\left[(\cos x) \log (\cos x) - \sin x \tan x\right]",
     "cos(x)**sin(x)*(cos(x)*log(cos(x)) - sin(x)*tan(x))"),
    ("(5r^3 + sin(r))[4^r ln(4) + 2sin(r)]", "(5*r**3 + sin(r))*(4**r*log(4) + 2*sin(r))"),
    ("3 [z^7 e^z + 7z^6e^z]", "3*(z**7*e**z + 7*z**6*e**z)"),
    ("[x]", "x"),
    ("{x+1}^2", "(x + 1)**2"),
    ("x[0] + x[-1]", "x[0] + x[-1]"),
])
def test_square_brackets_and_braces_group(typed, meaning):
    reads(typed, meaning)


def test_a_list_is_a_top_level_bracket_holding_a_comma():
    items = read_list("[x*y, x+y]")
    assert [r.read_as for _, r in items] == ["x*y", "x + y"]
    with pytest.raises(tape.expr.ReadError, match="only allowed as the whole target"):
        tape.expr.read("[x*y, x+y]")
    with pytest.raises(tape.expr.ReadError, match="tuples are not allowed"):
        tape.expr.read("2[x, y]")


# --- a bracketless argument ends before a bracket after a name, and before e^ -------------

@pytest.mark.parametrize("typed, meaning, note", [
    ("sec x(sec x + tan x)", "sec(x)*(sec(x) + tan(x))",
     "read sec x(sec x + tan x) as sec(x)*(sec x + tan x)"),
    ("cos x e^(sin x)", "cos(x)*e**sin(x)", "read cos x e^(sin x) as cos(x)*e^(sin x)"),
    ("ln x(x+1)", "log(x)*(x + 1)", "write ln(x(x+1)) to include it"),
    ("sin x^2(x+1)", "sin(x**2)*(x + 1)", "the argument of sin ends at the bracket"),
    ("cos 2x e^x", "cos(2*x)*e**x", "the argument of cos ends before e^"),
    (r"\sec x(\sec x + \tan x)", "sec(x)*(sec(x) + tan(x))", "ends at the bracket"),
])
def test_a_bracketless_argument_ends_before_a_bracket_after_a_name_and_before_e(
        typed, meaning, note):
    noted(reads(typed, meaning), note)


@pytest.mark.parametrize("typed, meaning", [
    ("sin 2(x+1)", "sin(2*(x + 1))"),      # after a number the group stays
    ("sin π(x+1)", "sin(pi*(x + 1))"),
    ("sin e^x", "sin(e**x)"),               # e^ as the whole argument
    (r"\sec e^{x^3}", "sec(e**x**3)"),
    ("sin(x)(x+1)", "sin(x)*(x + 1)"),
    ("cos x exp(x)", "cos(x)*exp(x)"),     # the next function name, as before
])
def test_what_stays_in_the_argument(typed, meaning):
    reads(typed, meaning)


def test_a_number_before_the_bracket_keeps_it_with_a_note():
    noted(reads("sin 2(x+1)", "sin(2*(x + 1))"), "read sin 2(x+1) as sin(2*(x+1))")


# --- superscript letters and signs are exponents ------------------------------------------

@pytest.mark.parametrize("typed, meaning", [
    ("2ˣ", "2**x"), ("eˣ", "e**x"), ("xⁿ", "x**n"), ("e⁻ˣ", "e**(-x)"),
    ("x⁽ⁿ⁺¹⁾", "x**(n + 1)"), ("2ˣ ln 2", "2**x*log(2)"), ("x²", "x**2"), ("x⁻¹", "x**-1"),
    ("sinⁿx", "sin(x)**n"), ("tⁿ⁻¹", "t**(n - 1)"),
])
def test_superscript_letters_are_exponents(typed, meaning):
    reading = reads(typed, meaning)
    assert reading.notes == []
