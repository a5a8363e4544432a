"""``tape.expr.read`` as a Python user calls it (SPEC section 8)."""
from __future__ import annotations

import subprocess
import sys

import pytest

import tape.expr
from tape.expr.tree import Binary, Call, Number, Variable


def test_read_gives_the_tree_its_spelling_and_its_names_in_order_of_appearance():
    reading = tape.expr.read("y sin x + 3x^2")
    assert reading.read_as == "y*sin(x) + 3*x**2"
    assert reading.variables == ["y", "x"]
    assert reading.notes == []
    assert reading.tree == Binary("+", Binary("*", Variable("y"), Call("sin", (Variable("x"),))),
                                  Binary("*", Number(3.0), Binary("**", Variable("x"),
                                                                  Number(2.0))))


def test_reading_the_spelling_again_gives_the_same_tree():
    for text in ["x^2 sin x", "sin^2 x", "|x| + √y", "\\frac{1}{x^2+1}", "e^(-x) ln x"]:
        reading = tape.expr.read(text)
        assert tape.expr.read(reading.read_as).tree == reading.tree, text


def test_a_reading_with_another_plausible_meaning_carries_a_note_and_prints_nothing(capfd):
    reading = tape.expr.read("1/2x")
    assert reading.read_as == "1/2*x"
    assert reading.notes and all(isinstance(n, str) and "1/2x" in n for n in reading.notes)
    out, err = capfd.readouterr()
    assert out == "" and err == ""


def test_names_are_never_split_into_letters():
    assert tape.expr.read("rate*time", names=["rate", "time"]).variables == ["rate", "time"]
    assert tape.expr.read("rate*time").variables == ["r", "a", "t", "i", "m"]


def test_an_equation_is_an_error_unless_a_relation_is_asked_for():
    with pytest.raises(tape.expr.ReadError):
        tape.expr.read("x^2 + y^2 = 1")
    reading = tape.expr.read("x^2 + y^2 = 1", relation=True)
    assert type(reading.tree).__name__ == "Relation"
    assert sorted(reading.variables) == ["x", "y"]


def test_a_text_that_cannot_be_read_raises_a_value_error_with_its_column():
    with pytest.raises(ValueError) as caught:
        tape.expr.read("x + * 2")
    err = caught.value
    assert isinstance(err, tape.expr.ReadError)
    assert err.column == 5
    text = str(err)
    assert "column 5" in text and "x + * 2" in text and "^" in text


def test_importing_the_package_loads_neither_sympy_nor_mpmath():
    code = ("import sys, tape.expr; r = tape.expr.read('x^2'); "
            "print(sorted(m for m in ('sympy', 'mpmath') if m in sys.modules))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True).stdout.strip()
    assert out == "[]"


@pytest.mark.parametrize("text, part", [("\\frac{}{x}", "numerator"), ("\\dfrac{x}{ }", "denominator")])
def test_an_empty_part_of_a_fraction_is_named(text, part):
    with pytest.raises(tape.expr.ReadError) as caught:
        tape.expr.read(text)
    assert f"has an empty {part}" in str(caught.value) and caught.value.column == 1
