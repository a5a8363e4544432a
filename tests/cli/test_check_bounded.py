"""Every step of a check - the verdict, the diagnosis, the printing - stays bounded in time and
memory on answers with astronomically large numbers (issue 38): ``x^10^10`` is 0 at x = 0.5
where the derivative of x^2 is 1. Each run is a subprocess with its address space capped and a
wall-clock bound far above the second it takes and far below the half minute and gigabytes
the unbounded paths took (a regression fails, rather than hanging the suite)."""
from __future__ import annotations

import os
import subprocess
import sys

import pytest

from cli_helpers import ROOT, tape_capped

#: generous: the checks take about a second; the unbounded paths took 30 s to many minutes
WALL = 25
MEMORY_MB = 1500


def _library(expression: str, answer: str, **options) -> str:
    """``tape.grading.check`` in a capped subprocess: the verdict's fields as one line."""
    import resource

    code = ("import tape.grading as g, json, sys\n"
            f"v = g.check({expression!r}, {answer!r}, **{options!r})\n"
            "print(json.dumps([v.correct, v.counterexample, v.diagnosis]))")

    def cap() -> None:
        limit = MEMORY_MB << 20
        resource.setrlimit(resource.RLIMIT_AS, (limit, limit))

    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          cwd=ROOT, env=dict(os.environ), timeout=WALL, preexec_fn=cap)
    assert done.returncode == 0, done.stderr
    return done.stdout


@pytest.mark.parametrize("answer", ["x^10^10", "x^(10^10)", "x^10^10^10", "(2x)^(10^10)",
                                    "(2x)^10000000000", "x^(10^10) + 2x"])
def test_an_astronomical_power_is_wrong_quickly_in_the_library(answer):
    import json

    correct, counterexample, diagnosis = json.loads(_library("x^2", answer, timeout=5))
    assert correct is False
    at = counterexample["at"]["x"]
    # the counterexample is true: x^2's derivative is 2x, the answer is 0 or 1 there
    assert abs(counterexample["expected"] - 2 * at) < 1e-12
    assert counterexample["answer"] != pytest.approx(2 * at)
    # x^(10^10) meets x and x^2 at 0 and 1 only: no mistake is named on so little
    assert diagnosis is None or diagnosis["kind"] != "power rule", diagnosis


@pytest.mark.parametrize("answer", ["x^10^10", "x^(10^10)", "x^10^10^10"])
def test_an_astronomical_power_is_wrong_quickly_on_the_command_line(answer):
    done = tape_capped("check", "x^2", "--answer", answer, "--timeout", "5",
                       memory_mb=MEMORY_MB, timeout=WALL)
    assert done.returncode == 1, done.stderr
    assert done.stdout.startswith("wrong")
    assert "Traceback" not in done.stderr


def test_an_astronomical_power_in_the_expression_is_bounded():
    """The derivative shown of (2x)^10000000000 keeps the power (2^10000000000 is not written
    out), and a high-precision value beyond 2^4096 as an exponent is out of range."""
    done = tape_capped("check", "(2x)^10000000000", "--answer", "1", "--timeout", "5",
                       memory_mb=MEMORY_MB, timeout=WALL)
    assert done.returncode == 1, done.stderr
    assert "(2*x)**9999999999" in done.stdout


def test_an_astronomical_antiderivative_is_bounded():
    done = tape_capped("check", "x", "--answer", "x^10^10", "--antiderivative", "--timeout",
                       "5", memory_mb=MEMORY_MB, timeout=WALL)
    assert done.returncode == 1, done.stderr


def test_a_factor_the_diagnosis_names_is_small():
    """``diagnosis._exact`` names a ratio only when it can be a small fraction: a ratio of
    2^-(10^10) is not written out in decimals."""
    import mpmath

    from tape.grading.diagnosis import _exact

    with mpmath.workdps(40):
        assert _exact(mpmath, mpmath.mpf(2) ** -(10 ** 10)) is None
        assert _exact(mpmath, mpmath.mpf(10) ** 30) is None
        assert str(_exact(mpmath, mpmath.mpf(-2) / 3)) == "-2/3"
        assert str(_exact(mpmath, mpmath.mpf(5) / 2)) == "2.5"


def test_high_precision_values_out_of_range_are_undefined():
    """An exponent or a periodic function's argument beyond 2^4096 is out of range (``None``),
    except where the base makes the power exact; values below it are still computed."""
    from tape.expr import highprec as H
    from tape.expr.parse import parse

    def at(text, x):
        tree = parse(text)
        return H.value_at(H.compile_tree(tree, ["x"]), H.at([x]))

    assert at("x^10^10^10", 0.5) is None
    assert at("x^10^10^10", 1.0) == 1
    assert at("x^10^10^10", 0.0) == 0
    assert at("sin(10^10^10 x)", 0.5) is None
    assert at("exp(10^10^10 x)", 0.5) is None
    import mpmath

    with mpmath.workdps(40):
        assert abs(at("x^(10^10)", 0.5) / mpmath.mpf(2) ** -(10 ** 10) - 1) < 1e-30
        assert abs(at("sin(10^300 x)", 1.0) - mpmath.sin(mpmath.mpf(10) ** 300)) < 1e-30
