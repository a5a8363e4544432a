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


NO_DERIVATIVE = "has no derivative where x"


@pytest.mark.parametrize("text, at", [("x^x", "0"), ("x^(x+1)", "0"), ("x^y", "0,0.5"),
                                      ("(x^2)^x", "0")])
def test_a_zero_base_of_a_varying_power_is_named(text, at):
    # x^x falls like 1 + x ln x: its slope at 0 is -inf from the right, and the engine's 0
    # (TensorFlow's convention for 0 * log 0) is not a derivative
    done = tape_process("grad", text, "--at", at)
    assert done.returncode == 0
    assert NO_DERIVATIVE in done.stderr, done.stderr
    refused = tape_process("tangent", text, "--at", at)
    assert refused.returncode == 2 and "not differentiable" in refused.stderr


@pytest.mark.parametrize("text, at", [("x^x", "0.5"), ("x^y", "0,3"), ("x^y", "0.5,0.5"),
                                      ("2^x", "0"), ("x^2", "0")])
def test_a_power_that_is_differentiable_there_is_not(text, at):
    import mpmath

    done = tape_process("grad", text, "--at", at, "--format", "json")
    assert done.returncode == 0 and "warning" not in done.stderr, done.stderr
    doc = json.loads(done.stdout)
    point = [mpmath.mpf(v) for v in at.split(",")]
    names = ["x", "y"][:len(point)]
    f = {"x^x": lambda x: x ** x, "x^y": lambda x, y: x ** y, "2^x": lambda x: 2 ** x,
         "x^2": lambda x: x ** 2}[text]
    gradient = doc["points"][0]["gradient"]
    for i, name in enumerate(names):
        if point[0] == 0 and name == "y":
            true = 0.0                      # 0^y = 0 for y > 0: flat along y
        else:
            orders = [1 if j == i else 0 for j in range(len(point))]
            true = float(mpmath.diff(f, tuple(point) if len(point) > 1 else point[0],
                                     tuple(orders) if len(point) > 1 else 1))
        assert gradient[name] == pytest.approx(true, rel=1e-9, abs=1e-12), (name, true)
