"""tape taylor prints each coefficient right to 1e-8 or says it is not: Taylor mode's error
estimate with Cauchy's integral where its recurrences cancel, and a warning naming the
coefficient and JSON "digits" where digits stay lost (mpmath's mp.taylor at 50 digits)."""
from __future__ import annotations

import json
import math

import mpmath
import pytest

from cli_helpers import tape_cli
from tape.calculus.taylor import RTOL

CASES = [
    ("sin(x)/x", lambda x: mpmath.sin(x) / x, "1", 20),
    ("exp(20*x)/exp(19*x)", lambda x: mpmath.exp(20 * x) / mpmath.exp(19 * x), "0.5", 20),
    ("sqrt(exp(x))", lambda x: mpmath.sqrt(mpmath.exp(x)), "0.01", 30),
    ("x/(exp(x)-1)", lambda x: x / (mpmath.exp(x) - 1), "0.5", 15),
    ("exp(x)*sin(3x)", lambda x: mpmath.exp(x) * mpmath.sin(3 * x), "-0.3", 25),
    ("log(1+x^2)", lambda x: mpmath.log(1 + x ** 2), "0.7", 18),
]


def _reference(f, a: str, n: int) -> list[float]:
    with mpmath.workdps(50):
        return [float(c) for c in mpmath.taylor(f, mpmath.mpf(a), n)]


def _right(k: int, got: list[float], true: list[float]) -> bool:
    """Within 1e-8 of itself, or of its neighbours' scale as --check judges (RTOL)."""
    error = abs(got[k] - true[k])
    near = sum(abs(t) for t in true[max(k - 1, 0):k + 2])
    return error <= 1e-8 * abs(true[k]) or error <= RTOL * near


@pytest.mark.parametrize("text, f, a, n", CASES)
def test_every_coefficient_is_right_or_warned_of(text, f, a, n):
    result = tape_cli("taylor", text, "--at", a, "--order", str(n), "--format", "json")
    assert result.exit_code == 0, result.stderr
    doc = json.loads(result.stdout)
    got, true = doc["coefficients"], _reference(f, a, n)
    digits = {entry["k"]: entry["digits"] for entry in doc.get("digits", [])}
    wrong = [k for k in range(n + 1) if not _right(k, got, true)]
    assert set(wrong) <= set(digits), (wrong, digits, got, true)
    for k, d in digits.items():
        assert d in range(8)
        # never more digits claimed than the number has (0: none claimed)
        assert not d or abs(got[k] - true[k]) <= 10.0 ** (1 - d) * abs(true[k]), (k, d)
    if digits:
        worst = min(digits, key=digits.get)
        assert doc["warnings"][-1].startswith(f"c{worst} (the coefficient of (x - ")
        assert "warning: c" in result.stderr
    else:
        assert "digits" not in doc and "warning" not in result.stderr


def test_cancelling_quotients_are_recomputed_not_only_warned_of():
    # Taylor mode's quotient recurrence alone loses every digit of these by order 20
    for text, f, a, n in CASES[:2] + CASES[3:4]:
        doc = json.loads(tape_cli("taylor", text, "--at", a, "--order", str(n),
                                  "--format", "json").stdout)
        true = _reference(f, a, n)
        assert "digits" not in doc
        assert all(c == pytest.approx(t, rel=1e-8) for c, t in zip(doc["coefficients"], true))


def test_a_root_of_an_exponential_comes_out_right_from_mpmath():
    # Cauchy's circle meets the root's branch cut; mpmath's differentiation has every digit
    result = tape_cli("taylor", "sqrt(exp(x))", "--at", "0.01", "--order", "30",
                      "--format", "json")
    doc = json.loads(result.stdout)
    assert "digits" not in doc and "warning" not in result.stderr
    for k, c in enumerate(doc["coefficients"]):
        true = math.exp(0.005) / 2**k / math.factorial(k)
        assert c == pytest.approx(true, rel=1e-13), k


def test_what_mpmath_does_not_confirm_is_warned_of_in_every_format(monkeypatch):
    from tape.calculus import taylor

    monkeypatch.setattr(taylor, "in_high_precision", lambda *args: None)
    args = ("taylor", "sqrt(exp(x))", "--at", "0.01", "--order", "30")
    doc = json.loads(tape_cli(*args, "--format", "json").stdout)
    assert list(doc) == ["expression", "read_as", "at", "order", "coefficients", "digits",
                         "polynomial", "warnings"]
    assert [e["k"] for e in doc["digits"]] == sorted(e["k"] for e in doc["digits"])
    for fmt in ("plain", "csv", "table"):
        result = tape_cli(*args, "--format", fmt)
        assert result.exit_code == 0
        assert result.stderr.count("warning: c") == 1, result.stderr
        assert "may be accurate to no digit at all" in result.stderr


def test_a_zero_coefficient_is_judged_against_the_terms_around_it():
    # e^x cos x = Re e^((1+i)x): c_2 and c_6 are 0, computed as 0 or 1e-18 within rounding
    result = tape_cli("taylor", "exp(x)*cos(x)", "--at", "0", "--order", "6", "--format", "json")
    doc = json.loads(result.stdout)
    true = _reference(lambda x: mpmath.exp(x) * mpmath.cos(x), "0", 6)
    assert all(abs(c - t) <= 1e-15 for c, t in zip(doc["coefficients"], true))
    assert "digits" not in doc and "warning" not in result.stderr


def test_the_scale_of_a_geometric_sequence_is_each_term_itself():
    import numpy as np

    from tape.calculus.taylor import scale

    c = 1000.0 ** np.arange(8) * (-1.0) ** np.arange(8)       # 1/(1+1000x) about 0
    assert np.allclose(scale(c), np.abs(c), rtol=1e-12)
    zero_between = np.array([1.0, 1.0, 0.0, -1 / 3, -1 / 6])
    assert scale(zero_between)[2] == pytest.approx(np.sqrt(1 / 3))
