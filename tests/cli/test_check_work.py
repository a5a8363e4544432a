"""``tape check-work FILE|-`` (SPEC section 12): views, exit codes and bad input."""
from __future__ import annotations

import json

import pytest

from cli_helpers import SAMPLES, tape_process

WORK = SAMPLES / "work"


def test_right_work_exits_0_and_marks_every_line():
    result = tape_process("check-work", str(WORK / "product.txt"), "--format", "table")
    assert result.returncode == 0, result.stderr
    marks = [line.split()[0] for line in result.stdout.splitlines()[1:4]]
    assert marks == ["✓", "✓", "✓"]
    assert result.stdout.rstrip().endswith("verdict: correct")


def test_the_first_wrong_step_is_pointed_at_with_what_happened():
    result = tape_process("check-work", str(WORK / "product_slip.txt"), "--format", "table")
    assert result.returncode == 1
    lines = result.stdout.splitlines()
    wrong = next(i for i, line in enumerate(lines) if "<- first wrong step" in line)
    assert lines[wrong].startswith("✗") and " 3  " in lines[wrong]
    assert lines[wrong + 1].strip().startswith("chain rule:")
    assert "at x = " in lines[wrong + 2]
    assert lines[wrong + 3].startswith("~") and "follows from a wrong line" in lines[wrong + 3]


def test_piped_output_is_plain_one_line_per_step():
    result = tape_process("check-work", "-", input="d/dx (x^3)\n= 3x^2\n")
    assert result.returncode == 0
    assert result.stdout.splitlines()[0] == "line 2: follows"
    assert "✓" not in result.stdout


def test_json_is_one_document():
    result = tape_process("check-work", str(WORK / "quotient.tex"), "--format", "json")
    assert result.returncode == 1
    doc = json.loads(result.stdout)
    assert doc["status"] == "wrong" and doc["first_wrong"] == 5
    verdicts = [line["verdict"] for line in doc["lines"]]
    assert verdicts == ["follows", "follows", "wrong", "follows from a wrong line"]
    wrong = doc["lines"][2]
    assert wrong["diagnosis"]["kind"] == "sign"
    x = wrong["counterexample"]["at"]["x"]
    # the line as typed, (40x^2 + 30x + 20x^2)/(4x + 3)^2, at the point shown
    assert wrong["counterexample"]["line"] == pytest.approx((60 * x**2 + 30 * x) /
                                                           (4 * x + 3) ** 2)
    assert doc["answers_task"] is False and doc["credit"]["carried"] == 1


def test_logarithmic_differentiation_is_followed():
    result = tape_process("check-work", str(WORK / "log_differentiation.txt"))
    assert result.returncode == 0, result.stdout
    assert result.stdout.splitlines()[:4] == [
        "line 2: follows", "line 3: follows", "line 4: follows", "line 5: follows"]


@pytest.mark.parametrize("args,text,code,says", [
    (["missing-file.txt"], None, 2, "no such file"),
    (["-"], "", 2, "empty"),
    (["-"], "the derivative of x^2\n= 2x\n", 2, "line 1"),
    (["-"], "d/dx (x^3)\n", 2, "no steps"),
    (["-"], "d^2/dx^2 (x^3)\n= 6x\n", 2, "first derivatives"),
    (["-"], "d/dx (x^3)\n= 3x^^2\n", 2, None),
    (["-"], "d/dx (sqrt(-1-x^2))\n= -x/sqrt(-1-x^2)\n", 3, None),
    (["-"], "d/dx (1/2x)\n= 1/2\n", 3, "ambiguous"),
])
def test_exit_codes_and_clear_errors(args, text, code, says):
    result = tape_process("check-work", *args, input=text)
    assert result.returncode == code, (result.stdout, result.stderr)
    assert "Traceback" not in result.stderr
    if says:
        assert says in result.stderr + result.stdout


def test_bytes_that_are_not_text_are_refused(tmp_path):
    path = tmp_path / "work.txt"
    path.write_bytes(b"\xff\xfe\x00d/dx")
    result = tape_process("check-work", str(path))
    assert result.returncode == 2 and "not UTF-8" in result.stderr
    assert "Traceback" not in result.stderr
