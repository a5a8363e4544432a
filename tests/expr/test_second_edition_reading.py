"""SPEC section 4, "Second edition": what textbooks and students also write. Each rule is held
to the tree it gives (through ``read_as``, which reads back to the same tree) and to its note."""
from __future__ import annotations

import re

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


# --- operator forms and labels give the order ------------------------------------------------

@pytest.mark.parametrize("typed, meaning, order", [
    ("d/dx x^2", "x**2", 1),
    ("d/dx d/dx x^3", "x**3", 2),
    ("d/dx d/dx d/dx x^4", "x**4", 3),
    ("d^2/dx^2 x^3", "x**3", 2),
    ("d²/dx² x^3", "x**3", 2),
    ("d^3/dx^3 (x^4)", "x**4", 3),
    (r"\frac{d^2}{dx^2} x^3", "x**3", 2),
    (r"\frac{d^{2}}{dx^{2}}\left(x^4\right)", "x**4", 2),
    (r"\frac{d}{dx} [x^2]", "x**2", 1),
    ("d/dx of x^2", "x**2", 1),             # as said aloud
    ("d^2/dx^2 of (x^3)", "x**3", 2),
])
def test_an_operator_in_front_asks_for_the_derivative_of_its_order(typed, meaning, order):
    reading = reads(typed, meaning)
    assert (reading.derivative_order, reading.asks, reading.wrt) == (order, True, "x")


@pytest.mark.parametrize("typed, meaning, order, wrt", [
    ("y' = 2x", "2*x", 1, None),
    ("y'' = 6x", "6*x", 2, None),
    ("f'(x) = 2x", "2*x", 1, None),
    ("f'''(x) = 6", "6", 3, None),
    ("f^{(4)}(x) = 360x^2", "360*x**2", 4, None),
    ("f^(4)(x) = 360x^2", "360*x**2", 4, None),
    ("f⁽⁴⁾(x) = 360x^2", "360*x**2", 4, None),
    (r"f\,'(x) = \frac2x-1", "2/x - 1", 1, None),
    (r"f\,^{(4)}(x) = -4\cos x+ x\sin x", "-4*cos(x) + x*sin(x)", 4, None),
    (r"f^{(8)} = 0", "0", 8, None),
    ("dy/dx = -x/y", "-x/y", 1, "x"),
    (r"\frac{dy}{dx} = -\frac{x}{y}", "-(x/y)", 1, "x"),
    (r"\frac{dh}{dt} = -3\sin(t)", "-3*sin(t)", 1, "t"),
    (r"\frac{d^2y}{dx^2} = 6x", "6*x", 2, "x"),
    ("d^2y/dx^2 = 6x", "6*x", 2, "x"),
    (r"\frac{\mathrm{d} y}{\mathrm{d} x} = 2x", "2*x", 1, "x"),
    ("y = x^2", "x**2", None, None),
    ("f(x) = x^2", "x**2", None, None),
])
def test_a_label_states_the_order_of_the_derivative_on_its_right(typed, meaning, order, wrt):
    reading = reads(typed, meaning)
    assert (reading.derivative_order, reading.asks, reading.wrt) == (order, False, wrt)


def test_a_plain_power_in_brackets_is_not_a_label():
    reading = tape.expr.read("y^(2) = x^3", relation=True)
    assert reading.read_as == "y**2 = x**3" and reading.derivative_order is None


@pytest.mark.parametrize("typed, fragment", [
    ("d/dx d/dy x*y", "for a mixed partial derivative give --wrt x,y"),
    ("d^2/dx^3 x^5", "order 2 above and 3 below"),
    ("d^2y/dx^3 = 1", "order 2 above and 3 below"),
    ("f''^{(2)}(x) = 1", "primes or an order in brackets"),
])
def test_operators_and_labels_that_disagree_are_errors(typed, fragment):
    with pytest.raises(tape.expr.ReadError, match=re.escape(fragment)):
        tape.expr.read(typed)


# --- LaTeX additions --------------------------------------------------------------------------

@pytest.mark.parametrize("typed, meaning", [
    (r"1{,}100", "1100"),
    (r"f(x)=1{,}100", "1100"),
    (r"1\,100x", "1100*x"),
    (r"\arcsec(-x^2-2)", "asec(-x**2 - 2)"),
    (r"\arccsc x + \arccot x", "acsc(x) + acot(x)"),
    (r"\operatorname{arcsec}(x)", "asec(x)"),
    (r"\operatorname{sech}^2 x", "sech(x)**2"),
    (r"\dfrac{1}{x\log10}", "1/(x*log(10))"),
    (r"\ln5 \cdot 5^x", "log(5)*5**x"),
    (r"xy\sqrt{x}", "x*y*sqrt(x)"),
    (r"e^2\big(\sin (\pi/4) - 1\big)", "e**2*(sin(pi/4) - 1)"),
])
def test_latex_additions(typed, meaning):
    reads(typed, meaning)


def test_latex_letters_then_digits_then_a_power_are_a_product_with_a_note():
    reading = reads(r"x5^x\ln5", "x*5**x*log(5)")
    assert reading.notes == ["read x5^x as x*5^x (a letter then digits then ^ is a product; "
                             "write x_5 for a name)"]
    assert reads("x5^2", "x5**2").notes == []        # plain text: a name with a digit


def test_latex_braces_do_not_show_so_a_power_after_them_is_on_the_argument():
    reading = reads(r"\sin{x}^2", "sin(x**2)")
    assert reading.notes == [r"read \sin{x}^2 as sin(x^2), as it is typeset "
                             r"(write (\sin{x})^2 for the other reading)"]
    assert reads(r"\sin{x}", "sin(x)").notes == []
    assert reads(r"\sin^2{x}", "sin(x)**2").notes == []


# --- notes only where another reading is plausible -------------------------------------------

@pytest.mark.parametrize("typed, meaning", [
    (r"x^2(5x^3)", "x**2*(5*x**3)"),       # in LaTeX below: an exponent is one character
    ("t^3e", "t**3*e"),
    ("x^2π", "x**2*pi"),
])
def test_no_note_where_no_other_reading_is_plausible(typed, meaning):
    if "(" in typed:
        typed = r"\displaystyle " + typed
    assert reads(typed, meaning).notes == []


@pytest.mark.parametrize("typed", [
    r"e^2x\cdot 1", r"\frac{1}{2}x^3(x+1)", r"x^3\left(x+1\right)", r"xy\sqrt{x}",
    r"e^2\big(\sin (\pi/4) - 1\big)",
])
def test_latex_notes_are_never_garbled(typed):
    for note in tape.expr.read(typed).notes:
        assert "\\big" not in note and ")* " not in note and "sqrt as" not in note, note
        assert "x*y sqrt" not in note, note


# --- a product after / keeps section 3's reading, with a note ---------------------------------

@pytest.mark.parametrize("typed, meaning, note", [
    ("1/x(x+1)", "(1/x)*(x + 1)", "read 1/x(x+1) as (1/x)*(x+1) (write 1/(x(x+1)) to divide "
                                  "by x(x+1))"),
    ("1/(x+1)(x-1)", "(1/(x + 1))*(x - 1)", "read 1/(x+1)(x-1) as (1/(x+1))*(x-1) (write "
                                            "1/((x+1)(x-1)) to divide by (x+1)(x-1))"),
    ("1/xy", "(1/x)*y", "read 1/xy as (1/x)*y (write 1/(xy) to divide by xy)"),
    ("1/2x", "(1/2)*x", "read 1/2x as (1/2)*x (write 1/(2x) to divide by 2x)"),
    ("2/x^2(x+1)", "(2/x**2)*(x + 1)", "read 2/x^2(x+1) as (2/x^2)*(x+1)"),
])
def test_a_product_after_a_slash_is_read_as_in_python_with_a_note(typed, meaning, note):
    noted(reads(typed, meaning), note)


@pytest.mark.parametrize("typed", ["1/x y", "x/2", "(x+1)/(x-1)", r"\frac{1}{x}(x+1)", "1/x^2"])
def test_no_note_without_a_product_after_the_slash(typed):
    assert not any("to divide by" in n for n in tape.expr.read(typed).notes)


# --- e2x, line breaks and sentences are refused, saying what to write --------------------------

def test_e_then_digits_then_letters_is_not_a_silent_variable():
    with pytest.raises(tape.expr.ReadError, match=re.escape("did you mean e^(2x)?")):
        tape.expr.read("e2x")
    assert tape.expr.read("e2x", names=["e2x"]).variables == ["e2x"]
    assert tape.expr.read("e2 + x1").variables == ["e2", "x1"]


def test_a_line_break_inside_a_text_is_an_error():
    with pytest.raises(tape.expr.ReadError, match="line break") as info:
        tape.expr.read("x\nx")
    assert info.value.column == 2
    assert tape.expr.read("x^2\n").read_as == "x**2"


@pytest.mark.parametrize("typed, hint", [
    ("Find the third derivative of 367*j**4 + 299*j**2 + 6.",
     "give the formula alone: '367*j**4 + 299*j**2 + 6' with --order 3"),
    ("differentiate x^2 sin x with respect to x", "'x^2 sin x' with --wrt x"),
    ("What is the derivative of x^2?", "give the formula alone: 'x^2'"),
    ("find the second derivative of F with respect to v", "'F' with --wrt v --order 2"),
    ("the derivative of x^2 at 3", "give the formula alone"),
])
def test_a_sentence_is_refused_saying_tape_reads_formulas(typed, hint):
    with pytest.raises(tape.expr.ReadError, match="tape reads formulas") as info:
        tape.expr.read(typed)
    assert hint in info.value.hint


def test_a_whole_number_glued_to_a_bracket_is_an_index_and_anything_else_groups():
    reads("(x+y)[-1]", "(x + y)[-1]")
    reads("(x+1) [2]", "(x + 1)*2")
    reads("[x+1][x-1]", "(x + 1)*(x - 1)")
