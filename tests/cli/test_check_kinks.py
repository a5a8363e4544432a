"""``--check`` at points where the expression may not be differentiable.

There tape's one-sided derivative and SymPy's convention (``Heaviside(0) = 1/2``) can differ
without either being a bug: such a point is reported with a ``note:`` (exit 0, JSON
``"kinks"``), found by the kink detection of ``kinks.py``, not by a list of expressions. A
disagreement anywhere else still exits 1: the tests below make one by shifting SymPy's values at
a chosen point.
"""
from __future__ import annotations

import json

import numpy as np
import pytest

from cli_helpers import tape_cli

from tape.grading import crosscheck
from tape.expr.parse import read
from tape.expr.kinks import kink_at, kink_mask

# (expression, --at values, the call named as not smooth): tape and SymPy differ at each
DIFFERING = [
    ("relu(x)", ["0"], "relu(x)"),
    ("relu(x - 1)", ["1"], "relu(x - 1)"),
    ("max(x, 0)", ["0"], "max(x, 0)"),
    ("min(x, 0)", ["0"], "min(x, 0)"),
    ("max(x, y)", ["1,1"], "max(x, y)"),
    ("sqrt(x^2)", ["0"], "sqrt(x**2)"),
    ("(x^2)^(1/2)", ["0"], "(x**2)**(1/2)"),
    ("3*relu(2*x) + sin(x)", ["0"], "relu(2*x)"),
]
# kinks where both happen to give the same number: nothing to excuse, no note
AGREEING = [
    ("abs(x)", ["0"]),
    ("|x|^1", ["0"]),
    ("sign(x)", ["0"]),
    ("floor(x)", ["2"]),
    ("ceil(x) + x", ["-3"]),
]


def grad_json(expression: str, at: list[str], *more: str):
    args = [a for value in at for a in ("--at", value)]
    result = tape_cli("grad", expression, *args, "--check", "--format", "json", *more)
    return result, json.loads(result.stdout)


@pytest.mark.parametrize("expression, at, call", DIFFERING)
def test_a_difference_at_a_kink_is_a_note_not_a_failure(expression, at, call):
    result, doc = grad_json(expression, at)
    assert result.exit_code == 0, result.stderr
    assert "check failed" not in result.stderr
    (note,) = [line for line in result.stderr.splitlines() if line.startswith("note:")]
    assert "may not be differentiable" in note and f"where {call} is not smooth" in note
    assert "not counted as a disagreement" in note
    assert doc["kinks"] == [{"point": 0, "kink": call}]
    # the numbers still say what each side gave: they do differ
    assert doc["points"][0]["check"]["agree"] is False


@pytest.mark.parametrize("expression, at", AGREEING)
def test_a_kink_where_both_agree_needs_no_note(expression, at):
    result, doc = grad_json(expression, at)
    assert result.exit_code == 0, result.stderr
    assert "note: f may not" not in result.stderr and "kinks" not in doc
    assert doc["points"][0]["check"]["agree"] is True


def test_only_the_points_on_a_kink_are_excused():
    result, doc = grad_json("relu(x) + relu(x - 2)", ["0", "1", "2", "3"])
    assert result.exit_code == 0, result.stderr
    assert [k["point"] for k in doc["kinks"]] == [0, 2]
    assert [k["kink"] for k in doc["kinks"]] == ["relu(x)", "relu(x - 2)"]
    assert "(and 1 more point on a kink)" in result.stderr
    assert [p["check"]["agree"] for p in doc["points"]] == [False, True, False, True]


def test_jacobian_and_hessian_use_the_same_rule():
    r = tape_cli("jacobian", "[relu(x), max(x, y)]", "--at", "0,0", "--check", "--format",
                 "json")
    assert r.exit_code == 0, r.stderr
    assert json.loads(r.stdout)["kinks"] == [{"point": 0, "kink": "relu(x)"}]
    r = tape_cli("hessian", "relu(x)*y^2", "--at", "0,1", "--check", "--format", "json")
    assert r.exit_code == 0, r.stderr
    assert json.loads(r.stdout)["kinks"][0]["kink"] == "relu(x)"


def test_the_terminal_table_says_kink():
    r = tape_cli("grad", "relu(x)", "--at", "0", "--check", "--format", "table")
    assert r.exit_code == 0
    row = next(line for line in r.stdout.splitlines() if "Heaviside" in line)
    assert "kink" in row and "✗" not in row


# ------------------------------------------------------------------ real disagreements

@pytest.fixture
def sympy_off_at(monkeypatch):
    """Make SymPy's expected values wrong (shifted by 1) at the given point indices."""
    rows: list[int] = []
    original = crosscheck.run_limited

    def shifted(fn, *args, **kwargs):
        strings, expected = original(fn, *args, **kwargs)
        expected = np.array(expected, dtype=float)
        expected[rows] += 1.0
        return strings, expected.tolist()

    monkeypatch.setattr(crosscheck, "run_limited", shifted)
    return rows


def test_a_disagreement_away_from_the_kink_still_fails(sympy_off_at):
    sympy_off_at.append(1)
    result = tape_cli("grad", "relu(x)", "--at", "0", "--at", "2", "--check", "--format",
                      "plain")
    assert result.exit_code == 1
    assert "disagree at 1 of 2 points" in result.stderr and "first at x=2.0" in result.stderr
    assert "note: f may not be differentiable at x=0.0" in result.stderr


@pytest.mark.parametrize("expression, at", [("x^2", "0"), ("x*abs(y)", "0,1"),
                                            ("sqrt(x^2 + 1)", "0"), ("x^(3/2)", "0")])
def test_a_disagreement_at_a_smooth_point_fails(sympy_off_at, expression, at):
    sympy_off_at.append(0)
    result = tape_cli("grad", expression, "--at", at, "--check", "--format", "plain")
    assert result.exit_code == 1, result.stderr
    assert "check failed" in result.stderr and "note: f may not" not in result.stderr


# ------------------------------------------------------------------ the detection itself

@pytest.mark.parametrize("expression, point, expected", [
    ("abs(x)", {"x": 0.0}, "abs(x)"),
    ("abs(x)", {"x": 1e-300}, None),
    ("x*abs(x - 1)", {"x": 1.0}, "abs(x - 1)"),
    ("floor(x)", {"x": -2.0}, "floor(x)"),
    ("floor(x)", {"x": -2.5}, None),
    ("min(x, y)", {"x": 3.0, "y": 3.0}, "min(x, y)"),
    ("sqrt(x)", {"x": 0.0}, None),          # a vertical tangent: not a kink for tangent lines
    ("sin(x)^2", {"x": 0.0}, None),
])
def test_kink_at_finds_kinks_and_jumps(expression, point, expected):
    assert kink_at(read(expression).tree, point) == expected


def test_kink_mask_covers_vectors_and_vertical_tangents():
    tree = read("abs(x[1]) + norm(y) + sqrt(z) + (z^2)^(1/3)").tree
    x = np.array([[1.0, 0.0], [1.0, 2.0], [1.0, 2.0], [1.0, 2.0]])
    y = np.array([[1.0, 1.0], [0.0, 0.0], [1.0, 0.0], [1.0, 1.0]])
    z = np.array([1.0, 1.0, 1.0, 0.0])
    mask, which = kink_mask(tree, ["x", "y", "z"], [x, y, z])
    assert mask.tolist() == [True, True, False, True]
    assert which == ["abs(x[1])", "norm(y)", None, "sqrt(z)"]
    mask, _ = kink_mask(tree, ["x", "y", "z"], [x, y, z], vertical=False)
    assert mask.tolist() == [True, True, False, False]
