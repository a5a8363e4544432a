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


@pytest.mark.parametrize("expression, derivative, order", [
    ("d/dx d/dx x^3", "6*x", 2),
    ("d^2/dx^2 x^3", "6*x", 2),
    ("d²/dx² x^3", "6*x", 2),
    (r"\frac{d^2}{dx^2} x^4", "12*x**2", 2),
    ("d/dt d/dt d/dt t^4", "24*t", 3),
])
def test_an_operator_in_front_sets_the_order_of_diff(expression, derivative, order):
    result, doc = run_json("diff", expression)
    assert result.exit_code == 0, result.stderr
    assert (doc["derivative"], doc["order"]) == (derivative, order)


@pytest.mark.parametrize("expression, answer", [
    ("x^6", "f^{(4)}(x) = 360x^2"),
    ("x^3", "y'' = 6x"),
    ("x^3", r"\frac{d^2y}{dx^2} = 6x"),
    ("d^2/dx^2 x^3", "6x"),
    ("x^2", "f'(x) = 2x"),
])
def test_check_takes_the_order_from_an_operator_or_the_answers_label(expression, answer):
    result, doc = run_json("check", expression, "--answer", answer)
    assert result.exit_code == 0, result.stderr
    assert doc["correct"] is True


@pytest.mark.parametrize("args, message", [
    (["diff", "d^2/dx^2 x^3", "--order", "3"],
     "the text asks for derivative order 2 and --order says 3"),
    (["check", "x^3", "--answer", "y'' = 6x", "--order", "3"],
     "the answer's label says derivative order 2 and --order says 3"),
    (["check", "x^3 y^2", "--wrt", "x,y", "--order", "3", "--answer", "6x^2y"],
     "--wrt x,y names 2 differentiations (the mixed partial of order 2) but --order says 3"),
])
def test_orders_that_disagree_are_refused_naming_both(args, message):
    result = tape_cli(*args)
    assert result.exit_code == 2 and message in result.stderr


def test_wrt_x_y_with_order_2_is_the_mixed_partial():
    result, doc = run_json("check", "x^3 y^2", "--wrt", "x,y", "--order", "2",
                           "--answer", "6x^2y")
    assert result.exit_code == 0 and doc["correct"] is True
