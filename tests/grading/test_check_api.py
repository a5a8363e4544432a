"""``tape.grading.check`` as a Python user calls it (SPEC section 8)."""
from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import mpmath
import pytest

import tape.expr
import tape.grading
from tape.expr.errors import CLIError

ROOT = Path(__file__).resolve().parents[2]


def _cli_json(*args: str) -> dict:
    done = subprocess.run([sys.executable, "-m", "tape", "check", *args, "--format", "json"],
                          capture_output=True, text=True, cwd=ROOT, timeout=120)
    return json.loads(done.stdout)


@pytest.mark.parametrize("args, options", [
    (("x^2 sin x", "2x cos x"), {}),
    (("sin(x)^2", "sin(2x)"), {}),
    (("x^3 y^2", "6x y"), {"wrt": "x,y"}),
    (("x^2 + y^2 = 1", "-x/y"), {"implicit": True}),
    (("e^(3x)", "9e^(3x)"), {"order": 2}),
])
def test_to_dict_is_the_document_tape_check_prints(args, options):
    verdict = tape.grading.check(*args, **options)
    flags = [item for key, value in options.items()
             for item in ((f"--{key}",) if value is True else (f"--{key}", str(value)))]
    assert verdict.to_dict() == _cli_json(args[0], "--answer", args[1], *flags)


def test_a_wrong_answer_has_a_counterexample_that_is_true():
    verdict = tape.grading.check("x^2 sin x", "2x cos x")
    assert verdict.correct is False and verdict.ambiguous is False
    at = verdict.counterexample["at"]["x"]
    x = mpmath.mpf(at)
    assert float(2 * x * mpmath.cos(x)) == pytest.approx(verdict.counterexample["answer"])
    right = 2 * x * mpmath.sin(x) + x ** 2 * mpmath.cos(x)
    assert float(right) == pytest.approx(verdict.counterexample["expected"])
    assert verdict.diagnosis["kind"] == "product rule"


def test_a_right_answer_and_its_reading():
    verdict = tape.grading.check("sin(x)^2", "2 sin x cos x")
    assert verdict.correct is True and verdict.counterexample is None
    assert verdict.read_as == {"expression": "sin(x)**2", "answer": "2*sin(x)*cos(x)"}
    assert verdict.method in ("numeric", "symbolic")
    assert verdict.wrt == "x" and verdict.variables == ["x"]


def test_notes_are_returned_and_nothing_is_printed(capfd, monkeypatch):
    # as in a fresh program: a command run in-process earlier may have set the CLI's listener
    monkeypatch.setattr(tape.expr.notes, "listener", None)
    verdict = tape.grading.check("x^2/2", "1/2x")
    assert verdict.notes == ["--answer: read 1/2x as (1/2)*x (write 1/(2x) to divide by 2x)"]
    out, err = capfd.readouterr()
    assert out == "" and err == ""


def test_undecided_is_none_with_the_reason():
    verdict = tape.grading.check("x^x^x^x^x^x", "x^x^x^x^x^x * 0 + 1/0 * 0", timeout=0.2)
    if verdict.correct is None:
        assert verdict.reason and verdict.to_dict()["correct"] is None
    else:   # a counterexample is a decision too; never a false correct
        assert verdict.correct is False


def test_a_text_that_cannot_be_read_raises_read_error():
    with pytest.raises(tape.expr.ReadError) as caught:
        tape.grading.check("x^2", "2x +")
    assert "--answer" in str(caught.value)


def test_importing_grading_loads_no_sympy():
    code = "import sys, tape.grading; print('sympy' in sys.modules, 'mpmath' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True).stdout.split()
    assert out == ["False", "False"]


def test_a_command_run_in_process_leaves_the_library_silent(capfd):
    from typer.testing import CliRunner

    from tape.cli.app import app

    result = CliRunner().invoke(app, ["check", "x^2/2", "--answer", "1/2x"])
    assert "note: --answer: read 1/2x" in result.stderr
    capfd.readouterr()
    tape.grading.check("x^2/2", "1/2x")
    out, err = capfd.readouterr()
    assert out == "" and err == ""


@pytest.mark.parametrize("order", [0, -1, 11, 1.5, True])
def test_an_order_outside_one_to_ten_is_named(order):
    with pytest.raises(CLIError, match=r"--order: .* from 1 to 10, got"):
        tape.grading.check("x^2", "2x", order=order)
    assert tape.grading.check("x^3", "6", order=3).correct is True


@pytest.mark.parametrize("expression, answer, options, extra, variables", [
    ("x^3", "3X^2", {}, ["X"], ["x"]),
    ("x^2", "2y", {}, ["y"], ["x"]),
    ("x^2", "X^3/3 + C", {"antiderivative": True}, ["X"], ["x"]),
    ("x^2 + y^2 = 1", "-x/z", {"implicit": True}, ["z"], ["x", "y"]),
])
def test_an_answer_with_a_name_the_expression_lacks_raises_answer_name_error(
        expression, answer, options, extra, variables):
    """A distinct error for a gradebook to grade ``wrong`` (with the message as the reason),
    still bad input (exit 2) for ``tape check``."""
    with pytest.raises(tape.grading.AnswerNameError) as caught:
        tape.grading.check(expression, answer, **options)
    err = caught.value
    assert isinstance(err, CLIError) and err.code == 2
    assert err.names == extra and err.variables == variables
    assert f"the answer uses {extra[0]!r}" in err.message
    done = subprocess.run([sys.executable, "-m", "tape", "check", expression, "--answer",
                           answer, *[f"--{k}" for k in options]], capture_output=True,
                          text=True, cwd=ROOT, timeout=120)
    assert done.returncode == 2 and "the answer uses" in done.stderr


@pytest.mark.parametrize("typed, table", [
    ("cosech(x)", "csch(x)"), ("acosech(x)", "acsch(x)"), ("arcosech(x)", "acsch(x)"),
    ("arccosech(x)", "acsch(x)"), ("arccosec(x)", "acsc(x)"), ("acosec(x)", "acsc(x)"),
])
def test_the_cosech_family_reads_as_the_table_names(typed, table):
    """STACK, Maxima and British textbooks write cosech; tape's table says csch."""
    assert tape.expr.read(typed).read_as == table
    verdict = tape.grading.check("coth x", "-cosech(x)^2")
    assert verdict.correct is True
