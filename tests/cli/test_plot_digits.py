"""tape plot's derivatives are right to the digits printed, or warned of (``"digits"``): each
checked against mpmath at 40 digits."""
from __future__ import annotations

import json
import math

import mpmath
import pytest

from cli_helpers import tape_cli

mp = mpmath.mp.clone()
mp.dps = 40


def _plot(expression: str, lo: float, hi: float, order: int, points: int):
    result = tape_cli("plot", expression, "--range", f"{lo}:{hi}", "--order", str(order),
                      "--points", str(points), "--format", "json")
    assert result.exit_code == 0, result.stderr
    return json.loads(result.stdout), result.stderr


def _true(f, x: float, k: int) -> float:
    return float(mp.diff(f, mp.mpf(x), k))


@pytest.mark.parametrize("expression, f, lo, hi, order", [
    # Taylor mode alone loses every digit of these from order 12 or so; Cauchy's integral
    # recomputes them
    ("sin(x)/x", lambda x: mp.sin(x) / x, 0.5, 3.0, 20),
    ("exp(20*x)/exp(19*x)", lambda x: mp.exp(20 * x) / mp.exp(19 * x), 0.0, 1.0, 20),
    ("x/(exp(x)-1)", lambda x: x / (mp.exp(x) - 1), 0.5, 2.0, 15),
])
def test_cancelling_forms_come_out_right(expression, f, lo, hi, order):
    doc, stderr = _plot(expression, lo, hi, order, 5)
    assert "digits" not in doc and "may be accurate" not in stderr
    for i, x in enumerate(doc["x"]):
        for k in (1, order // 2, order):
            got = doc["series"][f"f^({k})" if k > 3 else "f" + "'" * k][i]
            assert got == pytest.approx(_true(f, x, k), rel=1e-8, abs=1e-12)


def test_what_cannot_be_recomputed_is_flagged_and_the_rest_is_right():
    # sqrt(exp(x)) = exp(x/2): Cauchy's circle meets sqrt's branch cut, so the high orders
    # keep Taylor mode's rounding
    order = 30
    doc, stderr = _plot("sqrt(exp(x))", 0.01, 1.0, order, 3)
    assert "may be accurate" in stderr and "--format json gives each one's \"digits\"" in stderr
    flagged = 0
    for k in range(1, order + 1):
        label = f"f^({k})" if k > 3 else "f" + "'" * k
        digits = doc.get("digits", {}).get(label, [None] * 3)
        for i, x in enumerate(doc["x"]):
            true = math.exp(x / 2) / 2 ** k
            error = abs(doc["series"][label][i] - true) / true
            if digits[i] is None:
                assert error <= 1e-8, (k, x)
            else:
                flagged += 1    # the digits claimed hold, to within one (0: none claimed)
                assert digits[i] == 0 or error <= 10.0 ** (1 - digits[i]), (k, x, digits[i])
    assert flagged > 0


def test_a_true_zero_is_judged_against_the_terms_beside_it():
    # f''' of 1/(1+x^2) is 0 at x = -1 and 1 (grid points of -5:5 with 41 points); what
    # Taylor mode gives there is rounding of the size of its neighbours' last digit
    doc, stderr = _plot("1/(1+x^2)", -5, 5, 5, 41)
    assert "digits" not in doc and stderr == ""
    f = lambda x: 1 / (1 + x**2)     # noqa: E731
    for i in (16, 20, 24):          # x = -1, 0, 1
        x = doc["x"][i]
        assert doc["series"]["f'''"][i] == pytest.approx(_true(f, x, 3), abs=1e-14)
