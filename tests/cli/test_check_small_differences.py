"""tape check: an answer off by less than 1e-12 of itself is still wrong (40 digits cannot
tell it from rounding alone, so the gap is asked again at 80), while right answers whose
high-precision value carries rounding stay correct."""
from __future__ import annotations

import json

import mpmath
import pytest

from cli_helpers import tape_cli

from tape.expr import highprec as H

#: (expression, an answer off by a tiny amount): every one was called correct before
TINY_MISSES = [
    ("x^2", "2x + x*1e-14"),                   # relative 5e-15
    ("x^2", "2.00000000000001x"),
    ("sin x", "cos(x) + 1e-15"),               # absolute 1e-15
    ("x^2", "2x + 1e-30"),                     # off by 1e-30 where the derivative is 0
    ("2^x", "0.6931471805599453*2^x"),         # ln 2 to float precision is not ln 2
    ("pi x", "3.14159265358979 x"),
]

#: right answers whose values are computed with cancellation or rounding in 40 digits
EXACT_BUT_ROUNDED = [
    ("ln(x + sqrt(x^2+1))", "1/sqrt(x^2+1)"),              # cancellation at x = -9e6
    ("sqrt(x^2+1) - x", "x/sqrt(x^2+1) - 1"),
    ("x^100", "100x^99"),
    ("exp(1000x)", "1000exp(1000x)"),
    ("2^x", "ln(2)*2^x"),
    ("0.1x^2", "0.2x"),
    ("atan(x) + atan(1/x)", "0"),
]


@pytest.mark.parametrize("expression, answer", TINY_MISSES)
def test_a_tiny_difference_is_wrong(expression, answer):
    result = tape_cli("check", expression, "--answer", answer, "--format", "json")
    assert result.exit_code == 1, (result.stdout, result.stderr)
    doc = json.loads(result.stdout)
    assert doc["correct"] is False and doc["counterexample"] is not None


@pytest.mark.parametrize("expression, answer", EXACT_BUT_ROUNDED)
def test_rounding_in_high_precision_is_not_a_difference(expression, answer):
    result = tape_cli("check", expression, "--answer", answer)
    assert result.exit_code == 0, (result.stdout, result.stderr)
    assert result.stdout.splitlines()[0] == "correct"


def test_higher_orders_with_cancellation_stay_correct():
    result = tape_cli("check", "ln(x + sqrt(x^2+1))", "--order", "3",
                      "--answer", "(2x^2 - 1)/(x^2+1)^(5/2)")
    assert result.exit_code == 0, (result.stdout, result.stderr)


def test_plain_text_says_how_far_apart_when_the_floats_print_alike():
    result = tape_cli("check", "2^x", "--answer", "0.6931471805599453*2^x")
    assert result.exit_code == 1
    line = next(s for s in result.stdout.splitlines() if s.startswith("at x = "))
    gives, is_ = line.split("the answer gives ")[1].split(", the derivative is ")
    assert gives == is_.split(" ")[0]            # the same float on both sides ...
    assert "(apart by 1.33e-17, beyond the digits shown)" in line   # ... so the gap is said
    wide = tape_cli("check", "x^2", "--answer", "2x+1").stdout
    assert "apart by" not in wide


def test_agree_is_stricter_than_not_differ():
    with mpmath.workdps(H.DIGITS):
        one = mpmath.mpf(1)
        tiny = one + mpmath.mpf(10) ** -15
        assert not H.differ(one, tiny) and not H.agree(one, tiny)
        assert H.agree(one, one + mpmath.mpf(10) ** -30)


def test_a_small_gap_is_real_only_when_it_stays_at_more_digits():
    f = H.compile_tree(_tree("x^2"), ["x"])
    off = H.compile_tree(_tree("2x + x*1e-14"), ["x"])
    right = H.compile_tree(_tree("2x"), ["x"])
    point = H.at([0.5])
    with mpmath.workdps(H.DIGITS):
        gap = mpmath.mpf("-0.5e-14")
    assert H.difference_persists(f, off, point, [1], gap) is True
    # a 'gap' that was rounding: at 80 digits the two agree
    assert H.difference_persists(f, right, point, [1], gap) is False


def _tree(text):
    from tape.expr import parse as E

    return E.read(text).tree


@pytest.mark.parametrize("answer", ["-x/y*1.00000000000001", "-x/y + 1e-15"])
def test_a_tiny_difference_on_a_curve_is_wrong(answer):
    result = tape_cli("check", "x^2+y^2=1", "--implicit", "--answer", answer)
    assert result.exit_code == 1, (result.stdout, result.stderr)
    assert result.stdout.splitlines()[0] == "wrong"


def test_agreement_on_a_curve_claims_only_the_digits_it_checked():
    # right on the curve only (SymPy cannot simplify the difference to 0): accepted by the
    # numbers, and any agreement stated is of the digits compared, not all of them
    result = tape_cli("check", "x*y = 1", "--implicit", "--answer", "-1/x^2",
                      "--format", "json")
    assert result.exit_code == 0
    doc = json.loads(result.stdout)
    assert doc["correct"] is True and doc["method"] == "numeric"
    for warning in doc.get("warnings", []):
        assert f"agree to {H.AGREED_DIGITS} digits" in warning
    assert H.AGREED_DIGITS < H.DIGITS


def test_a_gap_that_is_noise_at_40_digits_is_no_counterexample():
    """At x = -707 (next to where floats overflow, found by the domain search) the argument of
    cos(3 sin(x) sinh(x)) is about 1e306: 40 digits of it leave its cosine to chance, and the
    right answer was called wrong there."""
    expression = "cos(3*sin(x)*sinh(x)) + sinh(x)/2"
    answer = "-(3*sin(x)*cosh(x) + 3*cos(x)*sinh(x))*sin(3*sin(x)*sinh(x)) + cosh(x)/2"
    result = tape_cli("check", expression, "--answer", answer)
    assert result.exit_code == 0, (result.stdout, result.stderr)
    wrong = tape_cli("check", expression, "--answer", answer.replace("cosh(x)/2", "cosh(x)"))
    assert wrong.exit_code == 1
