"""Nothing silently wrong: infinite slopes shown as such, the README's promises at singular
points kept through the CLI, no derivative printed where there is none, and a closed pipe that
ends every command quietly (never exit 1, which means "a check failed")."""
import math
import subprocess
import sys

import numpy as np
import pytest

import tape
from tape.engine.testing import check_grads

from cli_helpers import ROOT, tape_cli


# -- infinite slopes -----------------------------------------------------------------------------
@pytest.mark.parametrize("expression, at", [("cbrt(x)", "0"), ("cbrt(x-1)", "1"),
                                             ("x^(1/3)", "0"), ("sqrt(x)", "0")])
def test_infinite_slopes_are_printed_as_inf_with_a_warning(expression, at):
    result = tape_cli("grad", expression, "--at", at)
    assert result.exit_code == 0
    assert result.stdout.split() == ["inf"]
    assert "warning: non-finite result" in result.stderr


def test_a_second_derivative_through_an_infinite_slope_is_not_zero():
    result = tape_cli("hessian", "x^2*y + cbrt(y)", "--at", "x=1,y=0")
    got = [float(v) for v in result.stdout.split()]
    assert got[:3] == [0.0, 2.0, 2.0]
    assert not math.isfinite(got[3])        # d2/dy2 cbrt(y) at 0 does not exist
    assert "warning: non-finite result" in result.stderr


@pytest.mark.parametrize("x0", [-8.0, -0.3, 0.2, 5.0])
def test_cbrt_matches_its_derivative_everywhere_else(x0):
    x = tape.constant(x0)
    with tape.GradientTape() as t:
        t.watch(x)
        y = tape.cbrt(x)
    assert float(y) == pytest.approx(np.cbrt(x0), rel=1e-15)
    assert float(t.gradient(y, x)) == pytest.approx(1 / (3 * np.cbrt(x0) ** 2), rel=1e-14)
    check_grads(tape.cbrt, (tape.constant(np.array([x0, 2 * x0])),), order=2)
    third = tape.derivative(tape.cbrt, tape.constant(x0), order=3)
    assert float(third) == pytest.approx((10 / 27) * np.cbrt(x0) / x0 ** 3, rel=1e-12)


def test_cbrt_gradient_at_zero_is_infinite_in_the_engine():
    x = tape.constant(0.0)
    with tape.GradientTape() as t:
        t.watch(x)
        y = tape.cbrt(x)
    assert float(t.gradient(y, x)) == math.inf


# -- the README's singular-point table holds on the command line ----------------------------------
def test_norm_at_the_zero_vector_has_gradient_zero():
    result = tape_cli("grad", "norm(x)", "--at", "x=[0,0]")
    assert result.exit_code == 0
    assert result.stdout.split() == ["0.0", "0.0"]


def test_norm_elsewhere():
    result = tape_cli("grad", "norm(x)", "--at", "x=[3,4]", "--check")
    assert result.exit_code == 0, result.stderr
    assert result.stdout.split() == ["0.6", "0.8"]


# -- a target without variables has no derivatives ------------------------------------------------
def test_plain_output_of_a_constant_prints_no_derivative():
    result = tape_cli("grad", "2")
    assert result.exit_code == 0
    assert result.stdout == "\n"            # one (empty) line for its one point
    assert "has no variables" in result.stderr


# -- closed pipes ---------------------------------------------------------------------------------
COMMANDS = [
    ["--help"],
    ["--version"],
    ["grad", "--help"],
    ["plot", "--help"],
    ["tangent", "x^2*sin(x)", "--at", "1"],
    ["taylor", "sin(x)", "--at", "0", "--order", "8"],
    ["plot", "sin(x)", "--format", "json"],
    ["grad", "x^2", "--at", "1", "--format", "json", "--check"],
    ["grad", "sin(x)", "--at", "0.5", "--format", "table"],
    ["grad", "x^2*y", "--at", "x=1,y=2", "--format", "json"],
    ["hessian", "x^2*y", "--at", "x=1,y=2", "--format", "csv"],
    ["jacobian", "[x*y, x+y]", "--at", "1,2"],
    ["diff", "x^2*sin(x)", "--format", "table"],
    ["check", "x^2", "--answer", "2x"],
    ["trace", "x^2*sin(x)", "--at", "1", "--format", "table"],
    ["trace", "x^2*sin(x)", "--at", "1", "--dot", "/dev/stdout"],
    ["plot", "sin(x)", "--format", "csv"],
]


@pytest.mark.parametrize("args", COMMANDS, ids=lambda a: " ".join(a)[:40])
def test_a_closed_pipe_ends_quietly(args):
    proc = subprocess.Popen([sys.executable, "-m", "tape", *args], stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, cwd=ROOT)
    proc.stdout.close()                     # the reader is gone before tape writes anything
    _, err = proc.communicate(timeout=120)
    assert proc.returncode in (0, -13), (proc.returncode, err.decode())    # -13: SIGPIPE
    assert b"Traceback" not in err and b"error:" not in err, err.decode()


@pytest.mark.parametrize("args, stdin", [
    (["grad", "x^2", "--at", "-"], "\n".join(map(str, range(200_000))) + "\n"),
    (["plot", "sin(x)", "--format", "csv", "--points", "100000"], None),
    (["--help"], None),
], ids=lambda v: " ".join(v)[:30] if isinstance(v, list) else None)
def test_a_reader_that_leaves_after_one_line_ends_tape_quietly(args, stdin):
    """``tape ... | head -1``: the reader takes a line, then goes while tape is still writing."""
    proc = subprocess.Popen([sys.executable, "-m", "tape", *args], stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, cwd=ROOT,
                            stdin=subprocess.PIPE if stdin else subprocess.DEVNULL)
    if stdin:
        import threading

        def feed():
            try:
                proc.stdin.write(stdin.encode())
                proc.stdin.close()
            except BrokenPipeError:
                pass

        threading.Thread(target=feed, daemon=True).start()
    assert proc.stdout.readline()
    proc.stdout.close()
    err = proc.stderr.read()
    proc.wait(timeout=120)
    assert proc.returncode in (0, -13), (proc.returncode, err.decode())
    assert b"Traceback" not in err and b"error:" not in err, err.decode()
