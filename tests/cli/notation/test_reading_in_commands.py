"""What the reader finds, as the commands use it (SPEC section 4, second edition): a constant
is a function of any variable, operators and labels give the order, and ``--wrt x,y`` with
``--order 2`` says one thing twice."""
from __future__ import annotations

import json

import pytest

from cli_helpers import tape_cli


def run_json(*args):
    result = tape_cli(*args, "--format", "json")
    return result, (json.loads(result.stdout) if result.stdout.strip() else None)


@pytest.mark.parametrize("args, wrt", [
    (["diff", "15^2", "--wrt", "t"], ["t"]),
    (["diff", "e^2"], ["x"]),
    (["diff", r"\ln (17)+ e^2 + \sin \pi/2", "--wrt", "t"], ["t"]),
])
def test_the_derivative_of_a_constant_is_zero(args, wrt):
    result, doc = run_json(*args)
    assert result.exit_code == 0, result.stderr
    assert (doc["wrt"], doc["derivative"]) == (wrt, "0")


@pytest.mark.parametrize("expression, answer, wrt, correct", [
    ("e^2", "0", None, True),
    ("e^2", "2e", None, False),
    ("15^2", "0", "t", True),
    ("3^{1/2}", "0", "x", True),
])
def test_check_grades_the_derivative_of_a_constant(expression, answer, wrt, correct):
    result, doc = run_json("check", expression, "--answer", answer,
                           *(["--wrt", wrt] if wrt else []))
    assert result.exit_code == (0 if correct else 1), result.stderr
    assert doc["correct"] is correct and doc["expected"] == "0"
