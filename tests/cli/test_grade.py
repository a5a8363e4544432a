"""``tape grade`` (SPEC section 9) as a teacher runs it: the samples, every input and output
format, files that cannot be graded (exit 2 naming the line, nothing written), the same
verdicts as ``tape check``, and Ctrl-C."""
from __future__ import annotations

import csv
import io
import json
import os
import signal
import subprocess
import sys
import time

import pytest

from cli_helpers import ROOT, SAMPLES, tape_cli, tape_process

HEADER = ["student", "problem", "answer", "read_as", "verdict", "score", "max_score", "diagnosis",
          "counterexample", "notes"]
#: the verdict on each row of samples/answers.csv, in order
SAMPLE_VERDICTS = (["correct"] * 7
                   + ["wrong", "wrong", "wrong", "wrong", "wrong", "correct", "wrong"]
                   + ["correct", "correct", "correct", "wrong", "correct", "wrong", "wrong"]
                   + ["correct", "unreadable", "unreadable", "correct", "wrong", "wrong",
                      "correct"])


def _rows(text: str) -> list[dict]:
    return list(csv.DictReader(io.StringIO(text)))


def test_the_samples_graded_as_csv_when_piped():
    done = tape_process("grade", str(SAMPLES / "answers.csv"), "--key",
                        str(SAMPLES / "key.csv"), "--workers", "2")
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines()[0].split(",") == HEADER
    rows = _rows(done.stdout)
    assert [r["verdict"] for r in rows] == SAMPLE_VERDICTS
    assert [(r["student"], r["problem"]) for r in rows] == \
        [(s, str(p)) for s in ("ada", "ben", "cleo", "dan") for p in range(1, 8)]
    by = {(r["student"], r["problem"]): r for r in rows}
    assert by["ben", "2"]["diagnosis"].startswith("chain rule: ")
    assert by["ben", "2"]["counterexample"].startswith("at x = ")
    assert by["ben", "5"]["diagnosis"].startswith("product rule: the integral of a product")
    assert by["ben", "6"]["notes"].startswith("ln|u| holds on both sides of 0")
    assert by["cleo", "5"]["notes"].startswith("no constant of integration")
    assert by["cleo", "6"]["diagnosis"].startswith("power rule: ")
    assert by["cleo", "7"]["diagnosis"].startswith("sign: ")
    assert by["dan", "3"]["notes"] == "no answer"
    assert "column 5" in by["dan", "2"]["notes"]
    assert by["cleo", "2"]["read_as"] == "3*cos(3*x)"
    assert done.stderr == ""        # piped: no bar, no summary


def test_json_lines_in_and_out_and_standard_input():
    text = (SAMPLES / "answers.jsonl").read_text()
    done = tape_process("grade", "-", "--format", "jsonl", input=text)
    assert done.returncode == 0, done.stderr
    rows = [json.loads(line) for line in done.stdout.splitlines()]
    assert [r["id"] for r in rows] == ["q1", "q2", "q3", "q4", "q5"]
    assert [r["verdict"] for r in rows] == ["correct", "wrong", "correct", "correct", "correct"]
    assert rows[1]["diagnosis"]["kind"] == "power rule"
    assert rows[1]["counterexample"]["at"] == {"x": 0.5}
    assert list(rows[0]) == ["id", "expression", "answer", "read_as", "verdict", "score",
                             "max_score", "diagnosis", "counterexample", "notes", "reason"]
    assert rows[4]["kind"] == "antiderivative" and rows[4]["constant"] == "K"


def test_out_writes_the_file_in_the_format_its_name_says(tmp_path):
    for name in ("graded.csv", "graded.jsonl"):
        out = tmp_path / name
        result = tape_cli("grade", str(SAMPLES / "answers.jsonl"), "--out", str(out))
        assert result.exit_code == 0, result.stderr
        assert result.stdout == ""
        text = out.read_text()
        if name.endswith(".csv"):
            assert [r["verdict"] for r in _rows(text)][:2] == ["correct", "wrong"]
        else:
            assert json.loads(text.splitlines()[1])["verdict"] == "wrong"


def test_rows_without_id_are_numbered(tmp_path):
    path = tmp_path / "a.csv"
    path.write_text('expression,answer\nx^2,2x\nx^3,"3x^2"\n')
    result = tape_cli("grade", str(path), "--format", "csv")
    assert result.exit_code == 0, result.stderr
    assert [(r["id"], r["verdict"]) for r in _rows(result.stdout)] == \
        [("1", "correct"), ("2", "correct")]


@pytest.mark.parametrize("answers, key, message", [
    ("student,answer\nada,2x\n", None, "line 1: no 'expression' column"),
    ("student,expression\nada,x^2\n", None, "line 1: no 'answer' column"),
    ("expression,answer\nx^2,2x\nlog(x, 2),1/(x ln 2)\n", None,
     "line 3: 3 fields where the header (line 1) has 2"),
    ("student,problem,answer\nada,1,2x\nben,9,2x\n", "problem,expression\n1,x^2\n",
     "line 3: problem '9' is not in the key"),
    ("student,problem,answer\nada,1,2x\n", "problem,expression\n1,x^2\n1,x^3\n",
     "line 3: problem '1' again (first on line 2)"),
    ("student,problem,answer\nada,1,2x\n", "problem,formula\n1,x^2\n",
     "line 1: no 'expression' column in the key"),
    ("expression,answer,order\nx^2,2x,2\nx^2,2,zero\n", None,
     "line 3: order: 'zero' is not a whole number"),
    ('{"expression": "x^2", "answer": "2x"}\n{"expression": \n', None,
     "line 2: not JSON"),
    ('{"expression": "x^2", "answer": "2x"}\n[1, 2]\n', None,
     "line 2: a JSON Lines row is an object"),
    ("", None, "is empty; it needs a header row"),
])
def test_a_file_that_cannot_be_graded_exits_2_naming_the_line(tmp_path, answers, key, message):
    path = tmp_path / ("a.jsonl" if answers.startswith("{") else "a.csv")
    path.write_text(answers)
    args = ["grade", str(path), "--format", "csv"]
    if key is not None:
        (tmp_path / "key.csv").write_text(key)
        args += ["--key", str(tmp_path / "key.csv")]
    result = tape_cli(*args)
    assert result.exit_code == 2
    assert result.stdout == ""          # nothing graded before the file is known good
    assert result.stderr.startswith("error: ") and message in result.stderr, result.stderr
    assert "Traceback" not in result.stderr


def test_not_a_text_file_and_a_missing_file(tmp_path):
    path = tmp_path / "answers.xlsx"
    path.write_bytes(b"PK\x03\x04\x00\x00\xff\xfe binary")
    result = tape_cli("grade", str(path))
    assert result.exit_code == 2 and "not an .xlsx workbook" in result.stderr
    path = tmp_path / "answers.csv"
    path.write_bytes(b"expression,answer\nx^2,\xff\xfe\n")
    result = tape_cli("grade", str(path))
    assert result.exit_code == 2 and "line 2: not UTF-8 text" in result.stderr
    result = tape_cli("grade", str(tmp_path / "nothing.csv"))
    assert result.exit_code == 2 and "cannot read" in result.stderr


#: (expression, answer, check's options): right, wrong, unreadable, bad names, implicit,
#: antiderivatives
AGAINST_CHECK = [
    ("x^2 sin x", "2x cos x", []),
    ("sin(x)^2", "sin(2x)", []),
    ("x^2", "2x +", []),
    ("x^2", "2y", []),
    ("x^2 + y^2 = 1", "-x/y", ["--implicit"]),
    ("x^3 y^2", "6x y", ["--wrt", "x,y"]),
    ("cos(2x)", "sin(2x) + C", ["--antiderivative"]),
    ("1/x", "ln x", ["--antiderivative"]),
]
CODES = {0: "correct", 1: "wrong", 2: "unreadable", 3: "undecided"}


def test_grade_gives_the_verdict_tape_check_gives(tmp_path):
    path = tmp_path / "a.jsonl"
    with open(path, "w") as handle:
        for expression, answer, options in AGAINST_CHECK:
            row = {"expression": expression, "answer": answer}
            for flag, value in zip(options, options[1:] + [None]):
                if flag == "--implicit":
                    row["implicit"] = True
                elif flag == "--antiderivative":
                    row["kind"] = "antiderivative"
                elif flag == "--wrt":
                    row["wrt"] = value
            handle.write(json.dumps(row) + "\n")
    done = tape_process("grade", str(path), "--format", "jsonl")
    assert done.returncode == 0, done.stderr
    graded = [json.loads(line) for line in done.stdout.splitlines()]
    for (expression, answer, options), row in zip(AGAINST_CHECK, graded):
        if answer == "2y":      # a function of another letter: wrong in a gradebook
            assert row["verdict"] == "wrong"
            assert row["reason"] == "uses y, which is not in the expression"
            continue
        alone = tape_process("check", expression, "--answer", answer, *options,
                             "--format", "json")
        assert row["verdict"] == CODES[alone.returncode], (expression, answer, alone.stderr)
        if alone.returncode in (0, 1):
            doc = json.loads(alone.stdout)
            assert row["counterexample"] == doc["counterexample"]
            assert row["diagnosis"] == doc["diagnosis"]
            assert row["read_as"] == doc["read_as"]["answer"]
        else:
            assert row["reason"] and row["reason"].split(" (column")[0] in alone.stderr


CTRL_C = """
import os, sys, time
from tape.grading import batch
real = batch.graded
log_path = sys.argv[1]
def graded(task, timeout):
    with open(log_path, "a") as log:
        log.write(f"{os.getpid()}\\n")
    if task.answer == "slow":
        time.sleep(120)
    return real(task, timeout)
batch.graded = graded
sys.argv = ["tape", "grade", sys.argv[2], "--workers", "2"]
from tape.cli.app import main
main()
"""


def test_ctrl_c_writes_the_graded_rows_and_leaves_no_worker(tmp_path):
    answers = tmp_path / "a.csv"
    answers.write_text("expression,answer\n" + "x^2,2x\n" * 3 + "x^2,slow\n" + "x^3,3x^2\n")
    pids = tmp_path / "pids.txt"
    child = subprocess.Popen([sys.executable, "-c", CTRL_C, str(pids), str(answers)],
                             cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                             text=True)
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        if pids.exists() and len(pids.read_text().split()) >= 3:
            break
        time.sleep(0.2)
    time.sleep(1.0)
    child.send_signal(signal.SIGINT)
    out, err = child.communicate(timeout=60)
    assert child.returncode == 130, err
    rows = _rows(out)
    assert [r["verdict"] for r in rows[:3]] == ["correct"] * 3
    assert all(r["verdict"] != "" for r in rows) and len(rows) <= 4
    assert "slow" not in [r["answer"] for r in rows]
    assert err.startswith("error: interrupted: ") and "Traceback" not in err
    for pid in set(map(int, pids.read_text().split())):
        with pytest.raises(ProcessLookupError):
            os.kill(pid, 0)
