"""tape check on functions defined on a narrow or far-away interval: the points where both
sides are defined are searched for densely when the usual sample finds few, so a wrong answer
is found wrong there (it was undecided: no sample point fell in [4000, 6000]); and when the
answer is real nowhere the derivative is, the undecided verdict says so."""
from __future__ import annotations

import json

import numpy as np
import pytest
import sympy as sp

from cli_helpers import tape_cli

from tape.grading import homework

#: (expression, right answer, wrong answer, the domain's ends)
NARROW = [
    ("asin(x/1000 - 5)", "1/(1000 sqrt(1-(x/1000-5)^2))", "1/sqrt(1-(x/1000-5)^2)",
     (4000, 6000)),
    ("acosh(x/1e6 - 3)", "1/(1e6 sqrt((x/1e6-3)^2-1))", "1/sqrt((x/1e6-3)^2-1)",
     (4e6, np.inf)),
    ("sqrt(x-7) + sqrt(7.5-x)", "1/(2sqrt(x-7)) - 1/(2sqrt(7.5-x))",
     "1/(2sqrt(x-7)) + 1/(2sqrt(7.5-x))", (7, 7.5)),
]


@pytest.mark.parametrize("expression, right, wrong, ends", NARROW)
def test_a_wrong_answer_on_a_narrow_domain_is_wrong(expression, right, wrong, ends):
    result = tape_cli("check", expression, "--answer", wrong, "--format", "json")
    assert result.exit_code == 1, (result.stdout, result.stderr)
    doc = json.loads(result.stdout)
    x = doc["counterexample"]["at"]["x"]
    assert ends[0] < x < ends[1]
    t = sp.Symbol("x")
    f = sp.sympify(doc["read_as"]["expression"], locals={"x": t})
    a = sp.sympify(doc["read_as"]["answer"], locals={"x": t})
    assert abs(complex(sp.diff(f, t).subs(t, x)) - complex(a.subs(t, x))) > 1e-6


@pytest.mark.parametrize("expression, right, wrong, ends", NARROW)
def test_a_right_answer_on_a_narrow_domain_is_correct(expression, right, wrong, ends):
    result = tape_cli("check", expression, "--answer", right)
    assert result.exit_code == 0, (result.stdout, result.stderr)


def test_the_dense_search_reaches_every_magnitude():
    line = homework.dense_points(1)[:, 0]
    for lo, hi in [(4000, 6000), (7, 7.5), (-1e-4, 1e-4), (4e6, 5e6), (-6000, -4000)]:
        assert np.count_nonzero((line > lo) & (line < hi)) >= 4, (lo, hi)


@pytest.mark.parametrize("expression, answer", [("sqrt(x)", "sqrt(-x)"), ("ln x", "ln(-x)")])
def test_an_answer_real_nowhere_the_derivative_is_says_so(expression, answer):
    result = tape_cli("check", expression, "--answer", answer)
    assert result.exit_code == 3, (result.stdout, result.stderr)
    assert "the answer is not a real number where the derivative is, e.g. at x = " \
        in result.stderr
