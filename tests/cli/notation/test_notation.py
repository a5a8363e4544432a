"""The notation corpus (``notation_corpus.py``): every text reads as its meaning, ``read_as``
round-trips, ambiguous readings print their note, errors say what to write, and ``tape check``
gives the right verdict on answers typed the same way."""
from __future__ import annotations

import json

import pytest

from cli_helpers import tape_cli
from notation_corpus import (DECLARED, ERRORS, NOTED, READINGS, UNNOTED, VERDICTS)
from tape.expr import parse as E
from tape.expr.errors import ExprError


@pytest.mark.parametrize("typed, meaning", [c for c in READINGS if c[1] is not None])
def test_reads_as_meant(typed, meaning):
    reading = E.read(typed)
    assert reading.tree == E.parse(meaning)
    assert E.parse(reading.read_as) == reading.tree     # read_as reads back the same


@pytest.mark.parametrize("typed", [c[0] for c in READINGS if c[1] is None])
def test_unreadable_on_purpose(typed):
    with pytest.raises(ExprError):
        E.read(typed)


def test_the_corpus_is_large():
    assert len(READINGS) + len(NOTED) + len(ERRORS) + len(DECLARED) >= 300


@pytest.mark.parametrize("typed, meaning, note", NOTED)
def test_ambiguous_readings_say_so(typed, meaning, note):
    reading = E.read(typed)
    assert reading.tree == E.parse(meaning)
    assert sum(note in n for n in reading.notes) == 1, reading.notes


@pytest.mark.parametrize("typed", UNNOTED)
def test_plain_readings_have_no_note(typed):
    assert E.read(typed).notes == []


@pytest.mark.parametrize("typed, fragment", ERRORS)
def test_errors_say_what_to_write(typed, fragment):
    with pytest.raises(ExprError) as info:
        E.read(typed)
    assert fragment in "\n".join(info.value.lines())


@pytest.mark.parametrize("typed, declared, meaning", DECLARED)
def test_declared_names_are_never_split(typed, declared, meaning):
    tree = E.read(typed, names=declared).tree
    assert tree == E.parse(meaning, declared=declared)
    assert E.read(E.read_as(tree), names=declared).tree == tree


@pytest.mark.parametrize("expression, right, wrong", VERDICTS)
def test_check_verdicts_on_typed_answers(expression, right, wrong):
    good = tape_cli("check", expression, "--answer", right, "--format", "json")
    assert good.exit_code == 0, good.stderr
    assert json.loads(good.stdout)["correct"] is True
    bad = tape_cli("check", expression, "--answer", wrong, "--format", "json")
    assert bad.exit_code == 1, bad.stderr
    assert json.loads(bad.stdout)["correct"] is False


def test_declared_at_names_reach_the_reader():
    result = tape_cli("grad", "rate*time", "--at", "rate=2,time=3", "--format", "json")
    assert result.exit_code == 0, result.stderr
    assert json.loads(result.stdout)["variables"] == ["rate", "time"]


def test_notes_go_to_standard_error_once_each():
    result = tape_cli("grad", "1/2x", "--at", "2", "--format", "plain")
    assert result.exit_code == 0
    assert result.stdout.strip() == "0.5"
    notes = [line for line in result.stderr.splitlines() if line.startswith("note: ")]
    assert notes == ["note: read 1/2x as (1/2)*x (write 1/(2x) to divide by 2x)"]


def test_d_dx_sets_wrt():
    result = tape_cli("diff", "d/dy (x y^2)", "--format", "plain")
    assert result.exit_code == 0, result.stderr
    assert result.stdout.strip() == "2*x*y"


def test_an_equation_is_a_relation_for_who_asks():
    reading = E.read("x^2 + y^2 = 1", relation=True)
    assert reading.tree == E.Relation(E.parse("x^2 + y^2"), E.Number(1.0))
    assert reading.read_as == "x**2 + y**2 = 1"
    assert E.read(reading.read_as, relation=True).tree == reading.tree
    result = tape_cli("grad", "x^2 + y^2 = 1", "--at", "1,2")
    assert result.exit_code == 2 and "--implicit" in result.stderr


def test_answer_errors_carry_their_label_and_the_original_column():
    with pytest.raises(ExprError) as info:
        E.read("2x  sin^-2 x", label="--answer")
    lines = info.value.lines()
    assert lines[0].startswith("--answer: sin^-2 is ambiguous; write 1/sin(x)^2")
    assert "(column 5)" in lines[0]
    assert lines[1] == "  2x  sin^-2 x"
    assert lines[2] == "      ^^^^^^"


def test_carets_point_into_the_latex_as_typed():
    with pytest.raises(ExprError) as info:
        E.read(r"\frac{1}{x} + \foo")
    err = info.value
    assert err.text[err.start:err.end] == r"\foo"


def test_long_text_shows_a_window_around_the_fault():
    text = "x+" * 5000 + "$" + "+x" * 5000
    with pytest.raises(ExprError) as info:
        E.read(text)
    shown = info.value.lines()[1]
    assert "$" in shown and len(shown) <= 200 + 10


def test_point_values_read_the_same_way():
    result = tape_cli("grad", "x", "--at", "2pi", "--at", "sqrt(2)", "--at", "2e0",
                      "--format", "plain")
    assert result.exit_code == 0, result.stderr
    for bad in ("1e", "2e+"):
        result = tape_cli("grad", "x", "--at", bad)
        assert result.exit_code == 2
        assert "1e0" in result.stderr or "2e0" in result.stderr
        assert "*e" in result.stderr
