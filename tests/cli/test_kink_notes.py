"""grad, jacobian and hessian at a kink or jump of a call (abs at 0, floor at an integer, max at a
tie): the one-sided value the engine gives is printed, with a warning naming the call."""
import json

import pytest

from tests.cli.cli_helpers import tape_cli, tape_process

KINK = "has a kink or jump at some of the points asked for"


@pytest.mark.parametrize("text,at,expected,call", [
    ("abs(x)", "0", 0.0, "abs(x)"), ("relu(x)", "0", 0.0, "relu(x)"),
    ("max(x,0)", "0", 1.0, "max(x, 0)"), ("floor(x)", "2", 0.0, "floor(x)"),
    ("abs(x-1)", "1", 0.0, "abs(x - 1)"), ("x*abs(x)", "0", 0.0, "abs(x)"),
])
def test_a_kink_at_the_point_is_named_with_the_value_shown(text, at, expected, call):
    done = tape_process("grad", text, "--at", at, "--format", "json")
    assert done.returncode == 0, done.stderr
    report = json.loads(done.stdout)
    (gradient,) = report["points"][0]["gradient"].values()
    assert gradient == expected
    (warning,) = [w for w in report["warnings"] if KINK in w]
    assert warning.startswith(f"{call} {KINK}")


@pytest.mark.parametrize("text,at", [("abs(x)", "0.5"), ("floor(x)", "2.5"), ("max(x,0)", "1"),
                                     ("x^2", "0")])
def test_no_warning_away_from_a_kink(text, at):
    done = tape_process("grad", text, "--at", at)
    assert done.returncode == 0 and KINK not in done.stderr, done.stderr


def test_a_stream_of_points_on_jumps_warns_once():
    done = tape_process("grad", "floor(x)", "--at", "-", "--format", "plain",
                        input="".join(f"{i}\n" for i in range(5000)))
    assert done.returncode == 0
    assert done.stdout.split() == ["0.0"] * 5000
    assert done.stderr.count(KINK) == 1, done.stderr[:500]


def test_check_warns_too_where_tape_and_sympy_agree_at_the_kink():
    done = tape_process("grad", "abs(x)", "--at", "0", "--check")   # sign(0) = 0 on both sides
    assert done.returncode == 0 and done.stdout.split() == ["0.0"]
    assert done.stderr.count(KINK) == 1, done.stderr


def test_jacobian_and_hessian_warn_too():
    jac = tape_process("jacobian", "[abs(x), x*y]", "--at", "x=0,y=2")
    hes = tape_process("hessian", "abs(x)*y", "--at", "x=0,y=2")
    assert jac.returncode == hes.returncode == 0
    assert "abs(x) " + KINK in jac.stderr and "abs(x) " + KINK in hes.stderr
