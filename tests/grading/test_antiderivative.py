"""``check(..., antiderivative=True)`` (SPEC section 10) on a textbook's integration exercises
(antiderivative_corpus.py), and what is said besides the verdict."""
from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import mpmath
import pytest

import tape.grading
from tape.expr.errors import CLIError

from .antiderivative_corpus import RIGHT, WRONG

ROOT = Path(__file__).resolve().parents[2]


def _label(row) -> str:
    return f"{row[0]} | {row[1]} | {row[2]}"


@pytest.mark.parametrize("integrand, answer, options", RIGHT, ids=map(_label, RIGHT))
def test_right_antiderivatives_are_correct(integrand, answer, options):
    verdict = tape.grading.check(integrand, answer, antiderivative=True, **options)
    assert verdict.correct is True, verdict
    assert verdict.counterexample is None and verdict.diagnosis is None
    assert verdict.extra["kind"] == "antiderivative"


@pytest.mark.parametrize("integrand, answer, options, kind", WRONG, ids=map(_label, WRONG))
def test_wrong_antiderivatives_are_wrong_and_diagnosed(integrand, answer, options, kind):
    verdict = tape.grading.check(integrand, answer, antiderivative=True, **options)
    assert verdict.correct is False, verdict
    if kind is None:
        assert verdict.diagnosis is None, verdict.diagnosis
    else:
        assert verdict.diagnosis and verdict.diagnosis["kind"] == kind, verdict.diagnosis
    c = verdict.counterexample
    if c is not None:       # the power rule at n = -1 has no number to show
        assert c["answer"] != pytest.approx(c["expected"], rel=1e-9)


def test_the_counterexample_compares_the_answers_derivative_with_the_integrand():
    verdict = tape.grading.check("cos(2x)", "sin(2x) + C", antiderivative=True)
    c = verdict.counterexample
    x = mpmath.mpf(c["at"]["x"])
    assert c["expected"] == pytest.approx(float(mpmath.cos(2 * x)))
    assert c["answer"] == pytest.approx(float(2 * mpmath.cos(2 * x)))
    assert verdict.extra["derivative"] == "2*cos(2*x)"       # tape diff of the answer
    assert "1/2" in verdict.diagnosis["detail"]


def test_a_missing_constant_is_correct_with_a_note():
    with_c = tape.grading.check("x cos x", "x sin x + cos x + C", antiderivative=True)
    without = tape.grading.check("x cos x", "x sin x + cos x", antiderivative=True)
    assert with_c.correct is True and with_c.extra["notes"] == []
    assert with_c.extra["constant"] == "C"
    assert without.correct is True and without.extra["constant"] is None
    assert without.extra["notes"] == ["no constant of integration: the antiderivatives are "
                                      "x*sin(x) + cos(x) + C"]


def test_ln_x_for_one_over_x_is_correct_with_the_abs_note():
    verdict = tape.grading.check("1/x", "ln x + C", antiderivative=True)
    assert verdict.correct is True
    (note,) = verdict.extra["notes"]
    assert note.startswith("ln|u| holds on both sides of 0: with ln|x|")
    assert tape.grading.check("1/x", "ln|x| + C", antiderivative=True).extra["notes"] == []


def test_an_answer_off_by_a_function_is_wrong_and_off_by_a_constant_is_not():
    assert tape.grading.check("2x", "x^2 + 7", antiderivative=True).correct is True
    assert tape.grading.check("2x", "x^2 + x", antiderivative=True).correct is False


def test_another_constant_letter_needs_constant():
    with pytest.raises(CLIError, match="--constant K"):
        tape.grading.check("x^2", "x^3/3 + K", antiderivative=True)
    assert tape.grading.check("x^2", "x^3/3 + K", antiderivative=True,
                              constant="K").correct is True
    with pytest.raises(CLIError, match="stand alone"):
        tape.grading.check("x^2", "x^3/3 + C x", antiderivative=True)
    with pytest.raises(CLIError, match="add --antiderivative"):
        tape.grading.check("x^2", "x^3/3", constant="K")


def _cli(*args):
    return subprocess.run([sys.executable, "-m", "tape", "check", *args], capture_output=True,
                          text=True, cwd=ROOT, timeout=120)


def test_the_command_shows_the_answers_derivative_as_evidence():
    done = _cli("sin x", "--answer", "cos x + C", "--antiderivative")
    assert done.returncode == 1, done.stderr
    lines = done.stdout.splitlines()
    assert lines[0] == "wrong"
    assert lines[1].startswith("the sign is wrong: the integral of sin is -cos")
    assert "the answer's derivative is" in lines[2] and "the integrand is" in lines[2]
    assert lines[3] == "d/dx (cos x + C) = -sin(x)"
    done = _cli("x cos x", "--answer", "x sin x + cos x", "--antiderivative", "--format",
                "json")
    assert done.returncode == 0, done.stderr
    doc = json.loads(done.stdout)
    assert doc == tape.grading.check("x cos x", "x sin x + cos x",
                                     antiderivative=True).to_dict()
    assert doc["correct"] is True and doc["kind"] == "antiderivative"
    assert doc["derivative"] == "x*cos(x)" and len(doc["notes"]) == 1


@pytest.mark.parametrize("integrand, answer, near", [
    ("x", "x^2/2 + floor(x)", 0.0),
    ("x", "x^2/2 + sign(x)", 0.0),
    ("x", "x^2/2 + ceil(x - 0.5)", 0.5),
    ("1/x", "ln|x| + floor(x)", 1.0),       # 0 is outside the domain; +-1 are not
    ("tan x", "-ln|cos x| + floor(x/pi)", 0.0),
    ("x", "x^2/2 + |x-1|/(x-1)", 1.0),       # a step written as a quotient
    ("sign(x)", "|x| + ceil(x)", 0.0),       # the integrand steps, its antiderivative not
])
def test_an_answer_that_jumps_inside_the_domain_is_wrong(integrand, answer, near):
    """F' = f wherever F is differentiable, yet F steps where f is defined: the difference
    from a true antiderivative is a step, not a constant (SPEC section 10)."""
    verdict = tape.grading.check(integrand, answer, antiderivative=True)
    assert verdict.correct is False, verdict
    jump = verdict.diagnosis
    # the step nearest 0 is the one shown (x - 0.5 steps at -0.5 and 0.5 alike)
    assert jump["kind"] == "jump"
    assert abs(jump["at"]["x"]) == pytest.approx(abs(near), abs=1e-9)
    # the step is real: the answer's values either side, by mpmath at 50 digits
    x = mpmath.mpf(jump["at"]["x"])
    h = mpmath.mpf("1e-12")
    with mpmath.workdps(50):
        F = {"x": lambda t: t * t / 2, "1/x": lambda t: mpmath.log(abs(t)),
             "tan x": lambda t: -mpmath.log(abs(mpmath.cos(t))),
             "sign(x)": lambda t: abs(t)}[integrand]
        true_step = (F(x + h) - F(x - h))
    assert abs(jump["right"] - jump["left"]) > 0.5
    assert abs(true_step) < 1e-6          # the true antiderivative does not step there
    assert "jumps at x =" in jump["detail"]


@pytest.mark.parametrize("integrand, answer", [
    ("sec(x)^2", "tan x + floor(x/pi + 1/2)"),      # steps only where sec^2 is undefined
    ("1/x", "ln|x| + sign(x)"),                     # steps at 0, outside the domain
    ("1/(x^2-1)", "ln(abs((x-1)/(x+1)))/2 + sign(x-1) + sign(x+1)"),
    ("floor(x)", "x*floor(x) - floor(x)*(floor(x)+1)/2"),   # continuous though floor steps
    ("x y", "x^2 y/2 + floor(y)"),                  # a constant along x
])
def test_a_step_outside_the_domain_or_along_another_variable_is_still_correct(integrand,
                                                                             answer):
    options = {"wrt": "x"} if "y" in integrand else {}
    verdict = tape.grading.check(integrand, answer, antiderivative=True, **options)
    assert verdict.correct is True, verdict.to_dict()


def test_a_jump_is_shown_by_the_command():
    done = _cli("x", "--answer", "x^2/2 + floor(x)", "--antiderivative")
    assert done.returncode == 1, done.stderr
    lines = done.stdout.splitlines()
    assert lines[0] == "wrong"
    assert lines[1].startswith("the answer jumps at x = 0 (from -1 to 0)")


@pytest.mark.parametrize("answer", ["x^3/3+c", "x^3/3 - c", "c + x^3/3", "x^3/3 + C"])
def test_a_lowercase_or_capital_constant_is_taken_off(answer):
    """SPEC section 10: ``+ c`` and ``+ C`` alike, without --constant."""
    verdict = tape.grading.check("x^2", answer, antiderivative=True)
    assert verdict.correct is True, verdict
    assert verdict.extra["constant"] == answer.strip("x^3/+ -")[0]
    assert verdict.extra["notes"] == []
    with pytest.raises(CLIError, match="must stand alone"):
        tape.grading.check("x^2", "x^3/3 + c x", antiderivative=True)


def test_a_parameter_named_like_the_constant_is_no_constant():
    """C in the integrand is a parameter: the constant is c, and a note never says
    ``+ C + C``; with C and c both parameters it is another letter."""
    plain = tape.grading.check("C x", "C x^2/2", antiderivative=True, wrt="x")
    assert plain.correct is True and plain.extra["constant"] is None
    assert plain.extra["notes"] == ["no constant of integration: the antiderivatives are "
                                    "C*x**2/2 + c"]
    with_c = tape.grading.check("C x", "C x^2/2 + c", antiderivative=True, wrt="x")
    assert with_c.correct is True and with_c.extra["constant"] == "c"
    both = tape.grading.check("C x + c", "C x^2/2 + c x", antiderivative=True, wrt="x")
    assert both.correct is True
    assert both.extra["notes"][0].endswith("C*x**2/2 + c*x + K")
    assert tape.grading.check("C x", "C x^2/2 + x", antiderivative=True,
                              wrt="x").correct is False
