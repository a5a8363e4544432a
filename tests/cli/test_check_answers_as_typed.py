"""tape check: how an answer is read. An answer that asks for the derivative (``d/dx x^2``)
is refused: read as the expression after ``d/dx`` it was compared as if it were the
derivative (x^2 against 2x: 'wrong' for the question itself). Labels stay welcome."""
from __future__ import annotations

import pytest

from cli_helpers import tape_cli


@pytest.mark.parametrize("answer", ["d/dx x^2", "d/dx(x^2)", r"\frac{d}{dx} x^2"])
def test_an_answer_that_asks_for_the_derivative_is_refused(answer):
    result = tape_cli("check", "x^2", "--answer", answer)
    assert result.exit_code == 2, (result.stdout, result.stderr)
    assert result.stderr.startswith("error: --answer: ")
    assert "asks for a derivative instead of giving one" in result.stderr
    assert "Traceback" not in result.stderr


def test_on_a_curve_too():
    result = tape_cli("check", "x^2+y^2=1", "--implicit", "--answer", "d/dx y")
    assert result.exit_code == 2
    assert "asks for a derivative" in result.stderr


@pytest.mark.parametrize("answer", ["dy/dx = 2x", "y' = 2x", "f'(x) = 2x", "2x"])
def test_labelled_answers_are_still_answers(answer):
    result = tape_cli("check", "x^2", "--answer", answer)
    assert result.exit_code == 0, (result.stdout, result.stderr)
    assert result.stdout.splitlines()[0] == "correct"


def test_an_expression_with_d_dx_is_not_labelled_twice():
    lines = tape_cli("check", "d/dx x^2", "--answer", "2x").stdout.splitlines()
    assert lines == ["correct", "d/dx x^2 = 2*x"]


@pytest.mark.parametrize("expression, answer", [("sin(θ)", "cos(theta)"),
                                                ("sin(theta)", "cos θ"),
                                                ("φ^2", "2phi")])
def test_a_greek_letter_spelled_either_way_is_one_variable(expression, answer):
    result = tape_cli("check", expression, "--answer", answer)
    assert result.exit_code == 0, (result.stdout, result.stderr)
    assert result.stdout.splitlines()[0] == "correct"
    wrong = tape_cli("check", expression, "--answer", answer.replace("cos", "sin")
                     .replace("2", "3"))
    assert wrong.exit_code == 1


def test_other_names_stay_apart():
    result = tape_cli("check", "x^2", "--answer", "2X")
    assert result.exit_code == 2
    assert "the answer uses 'X', which is not in the expression" in result.stderr


def test_greek_twins():
    from tape.expr.notation import greek_twin

    assert greek_twin("theta") == "θ" and greek_twin("θ") == "theta"
    assert greek_twin("lambda") == "λ" and greek_twin("λ") == "lambda"
    assert greek_twin("x") is None and greek_twin("ab") is None


@pytest.mark.parametrize("expression, answer, typed, right", [
    ("ln(sqrt x)", "1/2x", "1/2x", "1/(2x)"),
    ("e^(2x)", "2e^2x", "e^2x", "2e^(2x)"),
    ("x^(3/2)", "3/2x^1/2", "x^1/2", "(3/2)x^(1/2)"),
])
def test_an_answer_right_under_the_other_reading_is_ambiguous(expression, answer, typed,
                                                               right):
    # SPEC section 10: graded under both readings, the verdicts differ: exit 3, both named
    result = tape_cli("check", expression, "--answer", answer)
    assert result.exit_code == 3, (result.stdout, result.stderr)
    lines = [line.strip() for line in result.stdout.splitlines()]
    assert lines[0].startswith("ambiguous") and repr(typed) in lines[0]
    assert f"correct when written {expression!r} with --answer {right!r}" in lines
    assert any(line.startswith("wrong when written") for line in lines)
    assert tape_cli("check", expression, "--answer", right).exit_code == 0


def test_no_such_warning_when_no_reading_would_be_right():
    result = tape_cli("check", "x^2", "--answer", "1/2x")
    assert result.exit_code == 1
    assert "warning:" not in result.stderr
