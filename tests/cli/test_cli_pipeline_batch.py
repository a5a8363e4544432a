"""``tape diff -`` and ``tape check --answers -`` (SPEC 14): one expression (or
``expression,answer``) per line, each answered on its own line, in one process, with the same
answers as one call per line; bad lines follow ``--on-error``."""
from __future__ import annotations

import json

import pytest

from cli_helpers import tape_cli

import tape.grading

FORMULAS = ["x^2*sin(x)", "exp(x)*cos(x)", "log(x^2+1)", "x*y^2", "sqrt(x)/x", "atan(x)"]


def test_diff_answers_each_line_as_diff_answers_it():
    result = tape_cli("diff", "-", input="\n".join(FORMULAS) + "\n")
    assert result.exit_code == 0, result.stderr
    lines = result.stdout.splitlines()
    assert len(lines) == len(FORMULAS)
    for formula, line in zip(FORMULAS, lines):
        one = tape_cli("diff", formula).stdout.splitlines()
        assert line == "; ".join(one)       # several variables: "x: ...; y: ..." on one line


def test_diff_json_lines_are_the_documents_of_single_calls():
    result = tape_cli("diff", "-", "--format", "ndjson", input="\n".join(FORMULAS) + "\n")
    docs = [json.loads(line) for line in result.stdout.splitlines()]
    assert docs == [json.loads(tape_cli("diff", f, "--format", "json").stdout)
                    for f in FORMULAS]
    same = tape_cli("diff", "-", "--format", "json", input="\n".join(FORMULAS) + "\n")
    assert same.stdout == result.stdout


def test_diff_csv_and_options_apply_to_every_line():
    result = tape_cli("diff", "-", "--format", "csv", "--order", "2", "--wrt", "x",
                      input="x^3*y\nsin(x)\n")
    assert result.stdout.splitlines() == ["expression,derivative", "x^3*y,6*x*y",
                                          "sin(x),-sin(x)"]


def test_diff_stops_at_a_bad_line_after_the_answers_before_it():
    result = tape_cli("diff", "-", input="x^2\nsin(\nx^3\n")
    assert result.exit_code == 2
    assert result.stdout == "2*x\n"
    assert result.stderr.startswith("error: standard input line 2: ")


@pytest.mark.parametrize("policy, lines", [("nan", ["2*x", "nan", "nan", "3*x**2"]),
                                           ("skip", ["2*x", "3*x**2"])])
def test_diff_nan_and_skip(policy, lines):
    result = tape_cli("diff", "-", "--on-error", policy, input="x^2\nsin(\n\nx^3\n")
    assert result.exit_code == 0
    assert result.stdout.splitlines() == lines
    assert "2 lines could not be answered" in result.stderr


def test_diff_nan_in_json_names_the_error():
    result = tape_cli("diff", "-", "--on-error", "nan", "--format", "ndjson",
                      input="x^2\nsin(\n")
    docs = [json.loads(line) for line in result.stdout.splitlines()]
    assert docs[1]["expression"] == "sin(" and docs[1]["error"].startswith(
        "standard input line 2: ")


def test_diff_of_nothing_and_with_steps_are_errors():
    empty = tape_cli("diff", "-", input="")
    assert empty.exit_code == 2 and "no expressions given" in empty.stderr
    steps = tape_cli("diff", "-", "--steps", input="x^2\n")
    assert steps.exit_code == 2 and "--steps shows one derivation" in steps.stderr


def test_diff_implicit_lines():
    result = tape_cli("diff", "-", "--implicit", input="x^2 + y^2 = 1\nx*y = 1\n")
    assert result.stdout.splitlines() == [
        tape_cli("diff", "x^2 + y^2 = 1", "--implicit").stdout.strip(),
        tape_cli("diff", "x*y = 1", "--implicit").stdout.strip()]


ANSWERS = [("x^2", "2x"), ("sin(x)", "-cos(x)"), ("x^3", "3x^2"), ("atan2(y, x)", "-y/(x^2+y^2)")]


def answers_text(header: bool = True) -> str:
    rows = [f'"{e}",{a}' if "," in e else f"{e},{a}" for e, a in ANSWERS]
    return ("expression,answer\n" if header else "") + "\n".join(rows) + "\n"


def test_check_answers_gives_the_library_verdict_on_each_line():
    result = tape_cli("check", "--answers", "-", "--wrt", "x", input=answers_text())
    want = [tape.grading.check(e, a, wrt="x") for e, a in ANSWERS]
    assert result.stdout.splitlines() == ["correct" if v.correct else "wrong" for v in want]
    assert result.stdout.splitlines() == ["correct", "wrong", "correct", "correct"]
    assert result.exit_code == 1        # one answer is wrong


def test_check_answers_json_lines_are_the_verdicts_documents(tmp_path):
    path = tmp_path / "answers.csv"
    path.write_text(answers_text(header=False))
    result = tape_cli("check", "--answers", str(path), "--wrt", "x", "--format", "ndjson")
    docs = [json.loads(line) for line in result.stdout.splitlines()]
    assert [d["expression"] for d in docs] == [e for e, _ in ANSWERS]
    assert [d["correct"] for d in docs] == [True, False, True, True]
    single = json.loads(tape_cli("check", "sin(x)", "--answer", "-cos(x)", "--format",
                                 "json").stdout)
    assert docs[1]["correct"] == single["correct"] and docs[1]["expected"] == \
        single["expected"]


def test_check_answers_all_correct_exits_0_and_csv_has_a_header():
    result = tape_cli("check", "--answers", "-", "--format", "csv",
                      input="x^2,2x\nx^3,3x^2\n")
    assert result.exit_code == 0
    assert result.stdout.splitlines() == ["expression,answer,verdict,expected",
                                          "x^2,2x,correct,2*x", "x^3,3x^2,correct,3*x**2"]


def test_check_answers_bad_lines():
    text = "x^2,2x\nx^3\nsin(,1\nx^4,4x^3\n"
    stop = tape_cli("check", "--answers", "-", input=text)
    assert stop.exit_code == 2 and stop.stdout == "correct\n"
    assert "standard input line 2: 1 field where 'expression,answer' is expected" \
        in stop.stderr
    nan = tape_cli("check", "--answers", "-", "--on-error", "nan", input=text)
    assert nan.exit_code == 0
    assert nan.stdout.splitlines() == ["correct", "nan", "nan", "correct"]
    skip = tape_cli("check", "--answers", "-", "--on-error", "skip", input=text)
    assert skip.stdout.splitlines() == ["correct", "correct"]


def test_check_answers_and_a_single_answer_do_not_mix():
    both = tape_cli("check", "x^2", "--answers", "-", input="x^2,2x\n")
    assert both.exit_code == 2 and "not both" in both.stderr
    neither = tape_cli("check", "x^2")
    assert neither.exit_code == 2 and "Missing option '--answer'" in neither.stderr
