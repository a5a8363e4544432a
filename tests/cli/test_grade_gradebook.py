"""``tape grade`` as a gradebook (SPEC section 11): files as LMSs and spreadsheets export them,
every input column passed through, wide exports, points and partial credit, each output format
read back by what opens it (the csv module, openpyxl, json against Gradescope's documented
``results.json`` fields), spreadsheet and terminal safety, atomic ``--out``, errors in the key
before grading, and standard input graded as it arrives."""
from __future__ import annotations

import csv
import io
import json
import os
import select
import subprocess
import sys
import time

import pytest

from cli_helpers import ROOT, SAMPLES, tape_cli, tape_process

RESULTS = ["read_as", "verdict", "score", "max_score", "diagnosis", "counterexample", "notes"]
KEY = "problem,expression\n1,x^2 sin x\n2,sin(3x)\n"


def _rows(text: str, delimiter: str = ",") -> list[dict]:
    return list(csv.DictReader(io.StringIO(text), delimiter=delimiter))


def _grade(tmp_path, data: bytes | str, *args, name="answers.csv", key=KEY):
    path = tmp_path / name
    if isinstance(data, str):
        data = data.encode()
    path.write_bytes(data)
    extra = []
    if key is not None:
        (tmp_path / "key.csv").write_text(key)
        extra = ["--key", str(tmp_path / "key.csv")]
    return tape_cli("grade", str(path), *extra, "--workers", "1", *args)


# --------------------------------------------------------------------------- input dialects

DIALECTS = {
    "semicolon, BOM, CRLF": "\ufeffStudent;Problem;Answer\r\nada;1;2x sin x + x^2 cos x\r\n"
                            "ben;2;cos(3x)\r\n".encode("utf-8"),
    "tab": b"student\tproblem\tanswer\nada\t1\t2x sin x + x^2 cos x\nben\t2\tcos(3x)\n",
    "UTF-16 with BOM": "student,problem,answer\r\nada,1,2x sin x + x^2 cos x\r\nben,2,cos(3x)\r\n"
                       .encode("utf-16"),
    "empty trailing columns": b"student,problem,answer,,\nada,1,2x sin x + x^2 cos x,,\n"
                              b"ben,2,cos(3x),,\n",
    "quoted newline": b'student,problem,answer\nada,1,"2x sin x\n + x^2 cos x"\nben,2,cos(3x)\n',
    "names in any case": b"STUDENT,Problem,ANSWER\nada,1,2x sin x + x^2 cos x\nben,2,cos(3x)\n",
}


@pytest.mark.parametrize("name", list(DIALECTS))
def test_every_dialect_a_spreadsheet_writes_is_graded(tmp_path, name):
    result = _grade(tmp_path, DIALECTS[name], "--format", "csv")
    assert result.exit_code == 0, result.stderr
    delimiter = ";" if "semicolon" in name else "\t" if name == "tab" else ","
    rows = _rows(result.stdout, delimiter)
    assert [r["verdict"] for r in rows] == ["correct", "wrong"]
    header = result.stdout.splitlines()[0].split(delimiter)
    assert header[3:] == RESULTS and header[0].lower() == "student"


def test_a_field_as_long_as_tapes_expression_limit_is_read(tmp_path):
    long = "x" * 140_000
    result = _grade(tmp_path, f"student,problem,answer,comment\nada,1,2x cos x,{long}\n",
                    "--format", "csv")
    assert result.exit_code == 0, result.stderr
    assert _rows(result.stdout)[0]["comment"] == long


def test_json_lines_with_a_lone_surrogate_loses_no_row(tmp_path):
    data = ('{"student": "ada\\ud800", "problem": 1, "answer": "2x cos x"}\n'
            '{"student": "ben", "problem": 2, "answer": "3cos(3x)"}\n')
    out = tmp_path / "graded.jsonl"
    result = _grade(tmp_path, data, "--out", str(out), name="a.jsonl")
    assert result.exit_code == 0, result.stderr
    rows = [json.loads(line) for line in out.read_text(encoding="utf-8").splitlines()]
    assert [r["verdict"] for r in rows] == ["wrong", "correct"]
    assert rows[0]["student"] == "ada\ufffd"


def test_xlsx_input_its_first_sheet(tmp_path):
    openpyxl = pytest.importorskip("openpyxl")
    book = openpyxl.Workbook()
    sheet = book.active
    sheet.append(["Student", "Problem", "Answer", None])
    sheet.append(["ada", 1, "2x sin x + x^2 cos x", None])
    sheet.append(["ben", 2, "3cos(3x)", None])
    book.create_sheet("other").append(["not", "this"])
    path = tmp_path / "answers.xlsx"
    book.save(path)
    (tmp_path / "key.csv").write_text(KEY)
    result = tape_cli("grade", str(path), "--key", str(tmp_path / "key.csv"), "-j", "1",
                      "--format", "csv")
    assert result.exit_code == 0, result.stderr
    rows = _rows(result.stdout)
    assert [(r["Problem"], r["verdict"]) for r in rows] == [("1", "correct"), ("2", "correct")]


# --------------------------------------------------------------------------- pass-through

def test_every_input_column_is_passed_through_in_order(tmp_path):
    data = ("SIS id,Email,student,section,problem,answer,expression\n"
            "9001,ada@example.edu,ada,A,1,2x cos x,\n"
            "9002,ben@example.edu,ben,B,x,3x^2,x^3\n")
    result = _grade(tmp_path, data, "--format", "csv")
    assert result.exit_code == 0, result.stderr
    header = result.stdout.splitlines()[0].split(",")
    assert header == ["SIS id", "Email", "student", "section", "problem", "answer",
                      "expression", *RESULTS]
    rows = _rows(result.stdout)
    assert [(r["SIS id"], r["Email"], r["verdict"]) for r in rows] == \
        [("9001", "ada@example.edu", "wrong"), ("9002", "ben@example.edu", "correct")]
    assert rows[1]["expression"] == "x^3"     # a row's own expression wins over the key


# --------------------------------------------------------------------------- wide exports

def test_moodles_responses_report_is_graded_wide():
    result = tape_cli("grade", str(SAMPLES / "moodle_responses.csv"), "--wide",
                      "Response {problem}", "--key", str(SAMPLES / "moodle_key.csv"),
                      "-j", "1", "--format", "csv")
    assert result.exit_code == 0, result.stderr
    header = result.stdout.splitlines()[0].split(",")
    assert header[:3] == ["Surname", "First name", "Email address"]
    assert header[8:10] == ["problem", "answer"]
    rows = _rows(result.stdout)
    assert len(rows) == 8
    assert [(r["Surname"], r["problem"], r["verdict"]) for r in rows[2:4]] == \
        [("Babbage", "1", "wrong"), ("Babbage", "2", "wrong")]
    assert rows[7]["answer"] == "-" and rows[7]["notes"] == "no answer"


def test_canvas_student_analysis_is_graded_wide_into_a_gradebook():
    result = tape_cli("grade", str(SAMPLES / "canvas_student_analysis.csv"), "--wide",
                      "{problem}: *", "--student", "name", "--key",
                      str(SAMPLES / "canvas_key.csv"), "-j", "1", "--format", "gradebook")
    assert result.exit_code == 0, result.stderr
    rows = list(csv.reader(io.StringIO(result.stdout)))
    assert rows[0][:2] == ["name", "id"] and rows[0][-4:] == ["4711", "4712", "total",
                                                               "max_total"]
    assert rows[0].count("1.0") == 2            # Canvas's points columns, as exported
    totals = {r[0]: (float(r[-2]), float(r[-1])) for r in rows[1:]}
    assert totals == {"Hopper, Grace": (2.0, 2.0), "Johnson, Katherine": (0.0, 2.0),
                      "Lamarr, Hedy": (2.0, 2.0)}


def test_a_wide_pattern_that_matches_nothing_names_the_columns(tmp_path):
    result = _grade(tmp_path, "name,Q1,Q2\nada,2x,3x\n", "--wide", "Response {problem}")
    assert result.exit_code == 2
    assert "no column matches --wide 'Response {problem}'" in result.stderr
    assert "name, Q1, Q2" in result.stderr


def test_a_european_export_is_graded_as_saved():
    result = tape_cli("grade", str(SAMPLES / "european.csv"), "--key",
                      str(SAMPLES / "key.csv"), "-j", "1", "--format", "csv")
    assert result.exit_code == 0, result.stderr
    rows = _rows(result.stdout, ";")
    assert [r["verdict"] for r in rows] == ["correct", "wrong", "correct", "correct"]
    assert rows[0]["Matrikelnummer"] == "4711001" and rows[3]["Student"] == "García"


# --------------------------------------------------------------------------- points

def test_points_and_partial_credit_by_diagnosis_kind(tmp_path):
    key = ("problem,expression,points,partial\n1,x^2 sin x,4,product rule:0.5\n"
           "2,sin(3x),2,\n")
    data = ("student,problem,answer\nada,1,2x cos x\nada,2,-3cos(3x)\nben,1,2x sin x + x^2 cos x\n"
            "ben,2,3cos(3x)\n")
    partial = tmp_path / "partial.txt"
    partial.write_text("# every problem without its own policy\nsign: 0.25\n")
    result = _grade(tmp_path, data, "--format", "csv", "--partial", str(partial), key=key)
    assert result.exit_code == 0, result.stderr
    rows = _rows(result.stdout)
    assert [(r["verdict"], float(r["score"]), float(r["max_score"])) for r in rows] == \
        [("wrong", 2.0, 4.0), ("wrong", 0.5, 2.0), ("correct", 4.0, 4.0),
         ("correct", 2.0, 2.0)]
    assert rows[1]["answer"] == "'-3cos(3x)"       # a leading - would be a formula


@pytest.mark.parametrize("key, message", [
    ("problem,expression,points\n1,x^2,many\n", "line 2: problem '1': points: 'many'"),
    ("problem,expression,partial\n1,x^2,sine:0.5\n", "line 2: problem '1': partial: 'sine' is "
                                                      "not a diagnosis kind"),
    ("problem,expression,partial\n1,x^2,sign:2\n", "the fraction is a number from 0 to 1"),
    ("problem,expression\n1,x^2\n2,sin(x\n", "key.csv line 3: problem '2': the expression "
                                             "cannot be read"),
    ("problem,expression,kind\n1,x^2,integral\n", "key.csv line 2: problem '1': kind: "
                                                  "'integral' is not one of"),
])
def test_a_bad_key_exits_2_naming_its_line_before_grading(tmp_path, key, message):
    result = _grade(tmp_path, "student,problem,answer\nada,1,2x\n", "--format", "csv",
                    key=key)
    assert result.exit_code == 2
    assert message in result.stderr, result.stderr
    assert result.stdout == ""


# --------------------------------------------------------------------------- outputs

def test_format_and_out_must_agree(tmp_path):
    out = tmp_path / "graded.xlsx"
    result = _grade(tmp_path, "student,problem,answer\nada,1,2x\n", "--format", "csv",
                    "--out", str(out))
    assert result.exit_code == 2 and "disagree" in result.stderr
    assert not out.exists()
    result = _grade(tmp_path, "student,problem,answer\nada,1,2x\n", "--out",
                    str(tmp_path / "graded.txt"))
    assert result.exit_code == 2 and "does not say a format" in result.stderr


def test_json_is_one_document_with_rows_and_summary(tmp_path):
    out = tmp_path / "graded.json"
    data = "student,problem,answer\nada,1,2x cos x\nben,1,2x cos x\ncleo,2,3cos(3x)\n"
    result = _grade(tmp_path, data, "--out", str(out))
    assert result.exit_code == 0, result.stderr
    doc = json.loads(out.read_text())
    assert [r["verdict"] for r in doc["rows"]] == ["wrong", "wrong", "correct"]
    assert doc["summary"][0] == {"problem": "1", "answers": 2, "correct": 0, "wrong": 2,
                                 "other": 0, "mean_score": 0.0, "max_score": 1.0,
                                 "mistakes": [{"kind": "product rule", "count": 2}]}


def test_summary_file_as_csv_and_json(tmp_path):
    data = "student,problem,answer\nada,1,2x cos x\nben,1,2x sin x + x^2 cos x\n"
    for name in ("summary.csv", "summary.json"):
        target = tmp_path / name
        result = _grade(tmp_path, data, "--format", "csv", "--summary", str(target))
        assert result.exit_code == 0, result.stderr
        if name.endswith(".json"):
            rows = json.loads(target.read_text())
            assert rows[0]["answers"] == 2 and rows[0]["mean_score"] == 0.5
        else:
            rows = _rows(target.read_text())
            assert rows[0]["correct"] == "1" and rows[0]["wrong"] == "1"
            assert rows[0]["most_frequent_mistakes"] == "product rule (1)"


HOSTILE = ['=HYPERLINK("http://evil","click")', "+cmd|' /C calc'!A0", "@SUM(1)", "-2+3",
           "\t=1+1", "\r=1+1"]


def test_no_csv_cell_is_a_formula(tmp_path):
    lines = ["student,problem,answer"] + \
        [f'"{h.replace(chr(34), chr(34) * 2)}",1,"{h.replace(chr(34), chr(34) * 2)}"'
         for h in HOSTILE] + ["-1.5,1,2x"]
    result = _grade(tmp_path, "\n".join(lines) + "\n", "--format", "csv")
    assert result.exit_code == 0, result.stderr
    rows = _rows(result.stdout)
    for hostile, row in zip(HOSTILE, rows):
        assert row["student"] == "'" + hostile and row["answer"] == "'" + hostile
    assert rows[-1]["student"] == "-1.5"          # a number stays a number
    for row in rows:
        for value in row.values():
            assert not value.startswith(("=", "+", "@", "\t", "\r")), value


def test_xlsx_output_read_back_has_no_formula(tmp_path):
    openpyxl = pytest.importorskip("openpyxl")
    lines = ["student,problem,answer"] + \
        [f'"{h.replace(chr(34), chr(34) * 2)}",1,2x cos x' for h in HOSTILE[:4]] + \
        ["dan\x1b]52;c;aGk=\x07,2,3cos(3x)"]
    out = tmp_path / "graded.xlsx"
    result = _grade(tmp_path, "\n".join(lines) + "\n", "--out", str(out))
    assert result.exit_code == 0, result.stderr
    sheet = openpyxl.load_workbook(out).worksheets[0]
    rows = list(sheet.iter_rows())
    header = [c.value for c in rows[0]]
    assert header == ["student", "problem", "answer", *RESULTS]
    for hostile, row in zip(HOSTILE, rows[1:5]):
        assert row[0].value == hostile and row[0].data_type == "s"
        assert row[header.index("verdict")].value == "wrong"
        assert row[header.index("score")].value == 0 and \
            row[header.index("score")].data_type == "n"
    assert rows[5][header.index("verdict")].value == "correct"
    assert "\x1b" not in rows[5][0].value
    assert all(c.data_type != "f" for row in rows for c in row)


def test_gradebook_one_row_per_student_csv_and_xlsx(tmp_path):
    data = ("student,problem,answer\nada,1,2x cos x\nben,1,2x sin x + x^2 cos x\n"
            "ada,2,3cos(3x)\nben,2,sin(3x)\n")
    key = "problem,expression,points\n1,x^2 sin x,2\n2,sin(3x),3\n"
    result = _grade(tmp_path, data, "--format", "gradebook", key=key)
    assert result.exit_code == 0, result.stderr
    rows = _rows(result.stdout)
    assert [(r["student"], r["1"], r["2"], r["total"], r["max_total"]) for r in rows] == \
        [("ada", "0.0", "3.0", "3.0", "5.0"), ("ben", "2.0", "0.0", "2.0", "5.0")]
    openpyxl = pytest.importorskip("openpyxl")
    out = tmp_path / "book.xlsx"
    result = _grade(tmp_path, data, "--format", "gradebook", "--out", str(out), key=key)
    assert result.exit_code == 0, result.stderr
    values = [[c.value for c in row] for row in openpyxl.load_workbook(out).active.iter_rows()]
    assert values == [["student", "1", "2", "total", "max_total"], ["ada", 0, 3, 3, 5],
                      ["ben", 2, 0, 2, 5]]


def test_gradebook_needs_the_students(tmp_path):
    result = _grade(tmp_path, "problem,answer\n1,2x\n", "--format", "gradebook")
    assert result.exit_code == 2 and "--student COLUMN" in result.stderr


#: the fields of Gradescope's documented results.json (autograder specifications), by type
GRADESCOPE_TOP = {"score": (int, float), "execution_time": (int, float), "output": str,
                  "visibility": str, "stdout_visibility": str, "extra_data": dict,
                  "tests": list, "leaderboard": list, "output_format": str}
GRADESCOPE_TEST = {"score": (int, float), "max_score": (int, float), "status": str,
                   "name": str, "name_format": str, "number": str, "output": str,
                   "output_format": str, "tags": list, "visibility": str, "extra_data": dict}


def test_gradescope_results_json_follows_the_documented_schema(tmp_path):
    data = "student,problem,answer\nada,1,2x cos x\nada,2,3cos(3x)\n"
    key = "problem,expression,points,partial\n1,x^2 sin x,2,product rule:0.5\n2,sin(3x),3,\n"
    out = tmp_path / "results.json"
    result = _grade(tmp_path, data, "--format", "gradescope", "--out", str(out), key=key)
    assert result.exit_code == 0, result.stderr
    doc = json.loads(out.read_text())
    for name, value in doc.items():
        assert name in GRADESCOPE_TOP and isinstance(value, GRADESCOPE_TOP[name]), name
    for test in doc["tests"]:
        for name, value in test.items():
            assert name in GRADESCOPE_TEST and isinstance(value, GRADESCOPE_TEST[name]), name
        assert test["status"] in ("passed", "failed")
    assert doc["score"] == 4.0 and doc["extra_data"]["max_score"] == 5.0
    assert [(t["name"], t["score"], t["max_score"]) for t in doc["tests"]] == \
        [("problem 1", 1.0, 2.0), ("problem 2", 3.0, 3.0)]
    assert "product rule" in doc["tests"][0]["output"]
    result = _grade(tmp_path, data + "ben,1,2x cos x\n", "--format", "gradescope", "--out",
                    str(out), key=key)
    assert result.exit_code == 2 and "one submission" in result.stderr
    assert json.loads(out.read_text())["score"] == 4.0      # the file before is kept


# --------------------------------------------------------------------------- --out

def test_out_never_names_an_input(tmp_path):
    data = "student,problem,answer\nada,1,2x\n"
    path = tmp_path / "answers.csv"
    for target in (path, tmp_path / "key.csv"):
        result = _grade(tmp_path, data, "--out", str(target))
        assert result.exit_code == 2 and "is one of the inputs" in result.stderr
        assert path.read_text() == data and (tmp_path / "key.csv").read_text() == KEY


def test_out_is_replaced_whole_and_leaves_no_temporary_file(tmp_path):
    out = tmp_path / "graded.csv"
    out.write_text("old\n")
    result = _grade(tmp_path, "student,problem,answer\nada,1,2x cos x\n", "--out", str(out))
    assert result.exit_code == 0, result.stderr
    assert _rows(out.read_text())[0]["verdict"] == "wrong"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["answers.csv", "graded.csv",
                                                          "key.csv"]


@pytest.mark.skipif(not os.path.exists("/dev/full"), reason="no /dev/full here")
def test_a_full_disk_is_a_clear_error_not_a_bug(tmp_path):
    (tmp_path / "a.csv").write_text("expression,answer\nx^2,2x\n")
    for args in (["--out", "/dev/full", "--format", "csv"],
                 ["--summary", "/dev/full", "--format", "csv"]):
        done = tape_process("grade", str(tmp_path / "a.csv"), "-j", "1", *args)
        assert done.returncode == 2, done.stderr
        assert "cannot write /dev/full: No space left on device" in done.stderr
        assert "internal error" not in done.stderr and "Traceback" not in done.stderr


# --------------------------------------------------------------------------- terminal

def test_control_characters_reach_the_terminal_escaped():
    from tape.cli.commands.grade import _TableView, printable
    from tape.grading.reports import Outcome

    assert printable("x\x1b[2Jy\x07\u202e") == "x\\x1b[2Jy\\x07\\u202e"
    screen = io.StringIO()
    view = _TableView(screen, True)
    view.show(Outcome({"student": "eve\x1b]52;c;aGk=\x07"}, "2x\x1b[2J", "2*x", "wrong", 0.0,
                      1.0, None, None, [], "uses \x9b31m", "1", identity={"student": "eve"}))
    text = screen.getvalue()
    assert "\x1b" not in text and "\x9b" not in text and "\x07" not in text
    assert "\\x1b[2J" in text


def test_help_tells_the_true_exit_codes():
    result = tape_cli("grade", "--help")
    assert result.exit_code == 0
    text = " ".join(result.stdout.split())
    assert "then exit 3" not in text
    assert "0 every row was graded" in text and "130 interrupted" in text


# --------------------------------------------------------------------------- standard input

def test_standard_input_is_graded_as_it_arrives():
    child = subprocess.Popen([sys.executable, "-m", "tape", "grade", "-", "-j", "1",
                              "--format", "csv"], cwd=ROOT, stdin=subprocess.PIPE,
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE, bufsize=0)
    try:
        child.stdin.write(b"expression,answer\nx^2,2x\n")
        child.stdin.flush()
        seen = b""
        deadline = time.monotonic() + 90
        while seen.count(b"\n") < 2 and time.monotonic() < deadline:
            ready, _, _ = select.select([child.stdout], [], [], 1.0)
            if ready:
                seen += os.read(child.stdout.fileno(), 65536)
        lines = seen.splitlines()
        # the first row's verdict is out while standard input is still open
        assert len(lines) == 2 and b",correct," in lines[1], lines
        child.stdin.write(b"x^3,3x^3\n")
        child.stdin.close()
        rest = child.stdout.read()
        assert child.wait(60) == 0
        assert b",wrong," in rest
    finally:
        child.kill()
        child.wait()


def test_the_table_escapes_a_students_control_characters(tmp_path):
    data = ('student,problem,answer\n"eve\x1b[2J\x1b]52;c;aGk=\x07",1,"2x\x1b[31m cos x"\n'
            "ada,1,2x cos x\n")
    result = _grade(tmp_path, data, "--format", "table")
    assert result.exit_code == 0, result.stderr
    assert "\x1b" not in result.stdout and "\x07" not in result.stdout
    assert "eve\\x1b[2J" in result.stdout and "wrong" in result.stdout


def test_json_lines_from_a_pipe_keeps_columns_in_step(tmp_path):
    data = ('{"id": "a", "expression": "x^2", "answer": "2x"}\n'
            '{"id": "b", "expression": "x^2", "answer": "2x", "section": "B"}\n')
    done = tape_process("grade", "-", "-j", "1", "--format", "csv", input=data)
    assert done.returncode == 0, done.stderr
    rows = list(csv.reader(io.StringIO(done.stdout)))
    assert all(len(r) == len(rows[0]) for r in rows)
    assert [r[rows[0].index("verdict")] for r in rows[1:]] == ["correct", "correct"]


@pytest.mark.skipif(not os.path.exists("/dev/full"), reason="no /dev/full here")
def test_standard_output_on_a_full_disk_is_a_clear_error(tmp_path):
    (tmp_path / "a.csv").write_text("expression,answer\nx^2,2x\n")
    with open("/dev/full", "w") as full:
        done = subprocess.run([sys.executable, "-m", "tape", "grade", str(tmp_path / "a.csv"),
                               "-j", "1"], cwd=ROOT, stdout=full, stderr=subprocess.PIPE,
                              text=True, timeout=120)
    assert done.returncode == 2
    assert "No space left on device" in done.stderr and "internal error" not in done.stderr


def test_an_error_quoting_a_students_text_is_escaped(tmp_path):
    result = _grade(tmp_path, "student,problem,answer\nada,\x1b[2J9,2x\n")
    assert result.exit_code == 2
    assert "problem '\\x1b[2J9' is not in the key" in result.stderr
    assert "\x1b" not in result.stderr


def test_xlsx_without_openpyxl_says_which_extra(tmp_path, monkeypatch):
    monkeypatch.setitem(sys.modules, "openpyxl", None)
    path = tmp_path / "answers.xlsx"
    path.write_bytes(b"PK\x03\x04 not really")
    result = tape_cli("grade", str(path))
    assert result.exit_code == 2 and "pip install 'tape[xlsx]'" in result.stderr
    result = _grade(tmp_path, "student,problem,answer\nada,1,2x\n", "--out",
                    str(tmp_path / "graded.xlsx"))
    assert result.exit_code == 2 and "pip install 'tape[xlsx]'" in result.stderr
    assert not (tmp_path / "graded.xlsx").exists()
    assert not [p for p in tmp_path.iterdir() if p.name.endswith(".part")]


def _peak_rss_mb(rows: int) -> float:
    """Peak RSS of ``tape grade -`` (its own process) reading ``rows`` rows from a pipe."""
    data = "expression,answer\n" + "x^2,2x\nx^2,2*x\n" * (rows // 2)
    with open(os.devnull, "w") as null:
        child = subprocess.Popen([sys.executable, "-m", "tape", "grade", "-", "-j", "1",
                                  "--format", "csv"], cwd=ROOT, stdin=subprocess.PIPE,
                                 stdout=null, stderr=subprocess.PIPE)
        child.stdin.write(data.encode())
        child.stdin.close()
        _, status, usage = os.wait4(child.pid, 0)
        child.returncode = os.waitstatus_to_exitcode(status)
    assert child.returncode == 0, child.stderr.read()
    return usage.ru_maxrss / 1024


def test_memory_is_flat_in_the_number_of_rows_read_from_a_pipe():
    small, large = _peak_rss_mb(5_000), _peak_rss_mb(100_000)
    assert large <= 1.25 * small + 10, (small, large)


@pytest.mark.parametrize("args, message", [
    (["--student", "learner"], "--student: no column 'learner'"),
    (["--wide", "Response"], "needs {problem} once"),
    (["--format", "xlsx"], "give --out FILE.xlsx"),
    (["--format", "table", "--out", "x.csv"], "--format table is for the terminal"),
])
def test_options_that_cannot_be_used_exit_2(tmp_path, args, message):
    result = _grade(tmp_path, "student,problem,answer\nada,1,2x\n", *args)
    assert result.exit_code == 2
    assert message in result.stderr, result.stderr
    assert result.stdout == ""


def test_a_bad_partial_file_and_a_summary_naming_an_input(tmp_path):
    partial = tmp_path / "partial.txt"
    partial.write_text("sign=0.5\n")
    result = _grade(tmp_path, "student,problem,answer\nada,1,2x\n", "--partial", str(partial))
    assert result.exit_code == 2 and "'sign=0.5' is not kind:fraction" in result.stderr
    result = _grade(tmp_path, "student,problem,answer\nada,1,2x\n", "--summary",
                    str(tmp_path / "answers.csv"))
    assert result.exit_code == 2 and "is one of the inputs" in result.stderr
    assert (tmp_path / "answers.csv").read_text() == "student,problem,answer\nada,1,2x\n"
