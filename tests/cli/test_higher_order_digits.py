"""grad --order N says when Taylor mode's estimated rounding error makes digits unreliable, and
stays silent where the numbers are right (issue 32, with mpmath as the reference)."""
from __future__ import annotations

import mpmath
import pytest

from cli_helpers import tape_process


def _nth(f, a, n):
    mpmath.mp.dps = 60
    return mpmath.diff(f, mpmath.mpf(a), n)


@pytest.mark.parametrize("text, f, a, n", [
    ("sin(x)/x", lambda x: mpmath.sin(x) / x, "1", 20),
    ("exp(20*x)/exp(19*x)", lambda x: mpmath.exp(20 * x) / mpmath.exp(19 * x), "0.5", 20),
    ("x/(exp(x)-1)", lambda x: x / (mpmath.exp(x) - 1), "0.5", 15),
])
def test_a_number_printed_without_a_warning_is_right(text, f, a, n):
    p = tape_process("grad", text, "--at", a, "--order", str(n))
    assert p.returncode == 0
    got, true = float(p.stdout), float(_nth(f, a, n))
    if "warning:" not in p.stderr:
        assert got == pytest.approx(true, rel=1e-8), (got, true)


def test_a_number_that_is_not_right_is_warned_of():
    p = tape_process("grad", "sqrt(exp(x))", "--at", "0.01", "--order", "30")
    true = float(_nth(lambda x: mpmath.sqrt(mpmath.exp(x)), "0.01", 30))
    if float(p.stdout) != pytest.approx(true, rel=1e-8):
        assert "warning: order 30: a derivative may be accurate" in p.stderr, p.stderr


def test_partials_of_differently_scaled_variables_are_right():
    p = tape_process("grad", "exp(30*x+y)", "--at", "0,0", "--order", "10", "--format", "json")
    import json

    doc = json.loads(p.stdout)
    for entry in doc["points"][0]["partials"]:
        k = entry["wrt"].count("x")
        assert entry["value"] == pytest.approx(30.0 ** k, rel=1e-8), entry
    assert "warnings" not in doc
