"""``tape grade`` with ``kind = work`` (SPEC sections 11 and 12): a derivation in a multi-line
answer cell checked line by line by ``check_work``, scored by the lines that follow (``partial``
``carried:fraction`` for a line that follows from a wrong one), in every input (CSV quoted
newlines, JSON Lines, XLSX, a wide export) and output (csv, json, gradebook) and the summary.

The scores are worked out by hand from the lines' verdicts: ben's work has 3 steps, one that
follows, one wrong (line 2: sin's derivative with the wrong sign), one that follows from it:
(1 + 0.5 * 1) / 3 of 4 points = 2."""
from __future__ import annotations

import csv
import io
import json
from concurrent.futures import ThreadPoolExecutor

import pytest

from cli_helpers import SAMPLES, tape_cli
from tape.grading import batch

ANSWERS, KEY = str(SAMPLES / "work_answers.csv"), str(SAMPLES / "work_key.csv")
RIGHT = "= d/dx[x^2] sin x + x^2 d/dx[sin x]\n= 2x sin x + x^2 cos x\n= x(2 sin x + x cos x)"
SLIP = "= d/dx[x^2] sin x + x^2 d/dx[sin x]\n= 2x sin x - x^2 cos x\n= x(2 sin x - x cos x)"
#: student -> (verdict, score of 4 points) for problem 1 of the sample
EXPECTED = {"ada": ("correct", 4.0), "ben": ("wrong", 2.0), "cy": ("wrong", 0.0),
            "dan": ("unreadable", 0.0)}


def _csv(text: str) -> list[dict]:
    return list(csv.DictReader(io.StringIO(text)))


def test_the_sample_class_is_graded_line_by_line_with_carried_credit():
    result = tape_cli("grade", ANSWERS, "--key", KEY, "--workers", "1", "--format", "csv")
    assert result.exit_code == 0, result.stderr
    rows = [r for r in _csv(result.stdout) if r["problem"] == "1"]
    assert {r["student"]: (r["verdict"], float(r["score"])) for r in rows} == EXPECTED
    ada, ben, cy, dan = rows
    # the cell comes back whole (one CSV field of three lines), read line by line
    assert ada["answer"].lstrip("'") == RIGHT
    assert ada["read_as"].splitlines()[1:] == ["2*x*sin(x) + x**2*cos(x)",
                                               "x*(2*sin(x) + x*cos(x))"]
    assert ben["diagnosis"].startswith("line 2: sign: ")
    assert ben["counterexample"].startswith("at x = 0.5: line 2 gives ")
    assert "1 follows from a wrong line" in ben["notes"]
    assert cy["diagnosis"].startswith("line 1: product rule: ")
    assert dan["notes"].startswith("line 1: cannot parse the expression")
    assert all(float(r["max_score"]) == 4.0 for r in rows)


def test_json_and_the_summary_count_the_derivations():
    result = tape_cli("grade", ANSWERS, "--key", KEY, "--workers", "1", "--format", "json")
    assert result.exit_code == 0, result.stderr
    doc = json.loads(result.stdout)
    work = [r for r in doc["rows"] if r["problem"] == "1"]
    assert [(r["verdict"], r["score"]) for r in work] == list(EXPECTED.values())
    assert work[1]["diagnosis"]["kind"] == "sign" and work[1]["diagnosis"]["line"] == 2
    assert work[1]["counterexample"]["line_number"] == 2
    assert [line["verdict"] for line in work[1]["lines"]] == \
        ["follows", "wrong", "follows from a wrong line"]
    assert "lines" not in doc["rows"][-1]      # a derivative's row has no lines
    summary = {s["problem"]: s for s in doc["summary"]}["1"]
    assert (summary["answers"], summary["correct"], summary["wrong"], summary["other"]) == \
        (4, 1, 2, 1)
    assert summary["mean_score"] == pytest.approx((4 + 2 + 0 + 0) / 4)
    assert summary["max_score"] == 4.0
    assert sorted((m["kind"], m["count"]) for m in summary["mistakes"]) == \
        [("product rule", 1), ("sign", 1)]


def test_the_gradebook_adds_the_derivations_score():
    result = tape_cli("grade", ANSWERS, "--key", KEY, "--workers", "1", "--format",
                      "gradebook")
    assert result.exit_code == 0, result.stderr
    book = {r["student"]: r for r in _csv(result.stdout)}
    assert float(book["ben"]["1"]) == 2.0 and float(book["ben"]["total"]) == 2.0
    assert float(book["ada"]["total"]) == 5.0 and float(book["ada"]["max_total"]) == 5.0


@pytest.mark.parametrize("name", ["answers.jsonl", "answers.xlsx", "wide.csv"])
def test_json_lines_xlsx_and_wide_exports_deliver_the_lines(tmp_path, name):
    path = tmp_path / name
    if name.endswith(".jsonl"):
        path.write_text("".join(json.dumps({"student": s, "problem": 1, "answer": a}) + "\n"
                                for s, a in (("ada", RIGHT), ("ben", SLIP))))
    elif name.endswith(".xlsx"):
        openpyxl = pytest.importorskip("openpyxl")
        book = openpyxl.Workbook()
        sheet = book.active
        for r, row in enumerate((("student", "problem", "answer"), ("ada", 1, RIGHT),
                                 ("ben", 1, SLIP)), 1):
            for c, value in enumerate(row, 1):
                sheet.cell(r, c, value).data_type = "n" if isinstance(value, int) else "s"
        # (a text cell: typed in Excel, "= ..." would be a formula; an LMS writes text)
        book.save(path)
    else:
        # an LMS's CRLF export, a quoted cell per problem
        path.write_bytes(("student,Response 1\r\n" + "".join(
            f'{s},"{a}"\r\n'.replace("\n", "\r\n").replace("\r\r", "\r")
            for s, a in (("ada", RIGHT), ("ben", SLIP)))).encode())
    wide = ["--wide", "Response {problem}"] if name == "wide.csv" else []
    result = tape_cli("grade", str(path), "--key", KEY, *wide, "--workers", "1", "--format",
                      "jsonl")
    assert result.exit_code == 0, result.stderr
    rows = [json.loads(line) for line in result.stdout.splitlines()]
    assert [(r["verdict"], r["score"]) for r in rows] == [("correct", 4.0), ("wrong", 2.0)]
    assert rows[1]["diagnosis"]["line"] == 2


@pytest.mark.parametrize("key, message", [
    ("problem,expression,kind,partial\n1,x^2,derivative,carried:0.5\n",
     "'carried' is for kind work"),
    ("problem,expression,kind,partial\n1,x^2,work,sign:0.5\n",
     "kind work is scored by the lines that follow"),
    ("problem,expression,kind,order\n1,x^2,work,2\n", "no order above 1"),
    ("problem,expression,kind,partial\n1,x^2,work,carried:2\n", "from 0 to 1"),
])
def test_a_key_row_whose_work_policy_cannot_apply_is_exit_2_naming_its_line(tmp_path, key,
                                                                            message):
    (tmp_path / "key.csv").write_text(key)
    (tmp_path / "a.csv").write_text("student,problem,answer\nada,1,= 2x\n")
    result = tape_cli("grade", str(tmp_path / "a.csv"), "--key", str(tmp_path / "key.csv"),
                      "--workers", "1")
    assert result.exit_code == 2
    assert "key.csv line 2" in result.stderr and message in result.stderr
    assert "Traceback" not in result.stderr


def test_a_global_partial_file_gives_carried_to_work_and_kinds_to_the_rest(tmp_path):
    (tmp_path / "key.csv").write_text("problem,expression,kind\n1,x^2 sin x,work\n"
                                      "2,x/(x+1),derivative\n")
    (tmp_path / "partial.txt").write_text("carried: 0.5\nquotient rule: 0.25\n")
    (tmp_path / "a.csv").write_text(f'student,problem,answer\nben,1,"{SLIP}"\nben,2,1/(x+1)\n')
    result = tape_cli("grade", str(tmp_path / "a.csv"), "--key", str(tmp_path / "key.csv"),
                      "--partial", str(tmp_path / "partial.txt"), "--workers", "1",
                      "--format", "csv")
    assert result.exit_code == 0, result.stderr
    assert [float(r["score"]) for r in _csv(result.stdout)] == \
        [pytest.approx(1.5 / 3), 0.25]


def test_identical_derivations_are_checked_once_and_the_kind_is_part_of_the_key(monkeypatch):
    checked = []
    real = batch.graded

    def counting(task, timeout):
        checked.append((task.work, task.answer))
        return real(task, timeout)

    monkeypatch.setattr(batch, "graded", counting)
    work = {"expression": "x^2 sin x", "kind": "work"}
    rows = [{**work, "answer": SLIP}, {**work, "answer": SLIP},
            {**work, "answer": "= 2x cos x"},
            {"expression": "x^2 sin x", "answer": "= 2x cos x"},
            {**work, "answer": ""}, {**work, "answer": "# only a comment"}]
    with ThreadPoolExecutor(1) as pool:      # in this process, so the count is seen here
        graded = list(batch.grade(rows, executor=pool))
    assert [g.status for g in graded][:3] == ["wrong", "wrong", "wrong"]
    # the same text as a one-line derivative answer is another check (not the work's verdict)
    assert graded[3].work is None and graded[2].work is not None
    assert graded[2].diagnosis["kind"] == "product rule" and graded[2].diagnosis["line"] == 1
    assert sorted(checked, key=str) == sorted(
        [(True, SLIP), (True, "= 2x cos x"), (False, "= 2x cos x"), (True, ""),
         (True, "# only a comment")], key=str)
    assert graded[4].status == "unreadable" and graded[4].reason == "no answer"
    assert graded[5].status == "unreadable" and "no steps" in graded[5].reason
    # a derivation's score is its lines': ben's slip, one step carried at half credit
    assert graded[0].work.score(carried=0.5) == pytest.approx(1.5 / 3)


def test_unfinished_work_earns_part_of_the_points_and_says_why():
    from tape.grading.reports import outcome_of

    row = {"expression": "x^2 sin x", "kind": "work",
           "answer": "= d/dx[x^2] sin x + x^2 d/dx[sin x]"}
    graded = batch.graded(batch.task_of(row))
    assert graded.status == "wrong" and "not finished" in graded.reason
    assert outcome_of(graded, row, []).score == pytest.approx(0.5)   # (a plain row: of 1 point)


def test_gradescope_and_xlsx_outputs_keep_the_lines_and_the_score(tmp_path):
    (tmp_path / "ben.csv").write_text(f'student,problem,answer\nben,1,"{SLIP}"\n')
    result = tape_cli("grade", str(tmp_path / "ben.csv"), "--key", KEY, "--workers", "1",
                      "--format", "gradescope")
    assert result.exit_code == 0, result.stderr
    test = json.loads(result.stdout)["tests"][0]
    assert (test["score"], test["max_score"], test["status"]) == (2.0, 4.0, "failed")
    assert SLIP in test["output"] and "line 2: sign: " in test["output"]
    openpyxl = pytest.importorskip("openpyxl")
    out = tmp_path / "graded.xlsx"
    result = tape_cli("grade", str(tmp_path / "ben.csv"), "--key", KEY, "--workers", "1",
                      "--out", str(out))
    assert result.exit_code == 0, result.stderr
    header, row = list(openpyxl.load_workbook(out).active.values)
    cells = dict(zip(header, row))
    assert cells["answer"] == SLIP and cells["score"] == 2.0 and cells["verdict"] == "wrong"
    assert len(cells["read_as"].splitlines()) == 3
