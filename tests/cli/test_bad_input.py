"""Every row of the bad-input catalogue (docs/bad-input.md) is a test.

The table is the single source: each row's command is run (in-process by default; every row
as a real ``python -m tape`` process under ``-m slow``, one row per section in the default
run) and must give the exit code and first line of standard error the table records. The
rules that hold for all rows are checked independently of what the table says: the exit code
follows from the kind of input (SPEC: 2 bad input, 0 with a warning for non-finite results),
nothing prints a Python traceback, bad input prints nothing on standard output, and every
diagnostic line starts with ``error:`` or ``warning:``.
"""
from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest
from typer.testing import CliRunner

from tape.cli.app import app

sys.path.insert(0, str(Path(__file__).parent / "bad_input"))
import catalogue as C  # noqa: E402

ROWS = C.parse_doc(C.DOC.read_text(encoding="utf-8"))
SECTION = {kind: section for section, kind, _ in C.ROWS}
COMMAND = {kind: command for _, kind, command in C.ROWS}
#: the exit code each section must have (SPEC section 3); symbolic rows vary (1, 2, 3)
EXPECTED_CODE = {"expression": 2, "shape": 2, "points": 2, "wrt": 2, "csv": 2, "script": 2,
                 "options": 2, "limits": 2, "non-finite": 0}


def test_the_table_covers_the_catalogue():
    assert [(k, c) for k, c, _, _ in ROWS] == [(k, c) for _, k, c in C.ROWS], \
        "docs/bad-input.md is stale: run python tests/cli/bad_input/catalogue.py"
    assert len(ROWS) >= 90


def run_in_process(command: str):
    argv, stdin = C.expand(command)
    runner = CliRunner()
    result = runner.invoke(app, argv, input=stdin, catch_exceptions=False)
    return result.exit_code, result.stdout, result.stderr


#: rows whose input has points that can be read before the bad line
RESULTS_BEFORE_THE_BAD_LINE = {"stdin: a bad line", "stdin: a blank line", "ragged rows (a cell missing)",
                               "a cell that is not a finite number", "non-numeric cell",
                               "error with --format json (errors stay plain lines)"}


def check_row(kind, code, first, got_code, stdout, stderr):
    assert "Traceback" not in stderr and "Traceback" not in stdout
    assert got_code == code, stderr
    assert C.first_line(stderr) == first
    # a script's own output goes to standard error; the test scripts mark it "(script)"
    lines = [line for line in stderr.splitlines() if not line.startswith("(script)")]
    assert all(line.startswith(("error:", "warning:")) for line in lines), stderr
    section = SECTION[kind]
    if section in EXPECTED_CODE:
        assert code == EXPECTED_CODE[section]
    if code == 2:
        assert first.startswith("error: ")
        # a bad line or row stops the points there, after the results of those before it
        # (SPEC 14, --on-error stop); any other bad input stops before any result
        assert stdout == "" or kind in RESULTS_BEFORE_THE_BAD_LINE, stdout
        if stdout and "--format json" in COMMAND[kind]:
            assert "error" in json.loads(stdout)    # a whole document, saying where it stopped
    if section == "process" and code == 0:
        assert stdout.strip()   # the result is printed, whatever happened around it
        if "--format json" in COMMAND[kind]:
            json.loads(stdout)  # whatever the script wrote, the document is intact
    if section == "non-finite":
        assert first.startswith("warning: ") and stdout.strip()
        assert any(v in stdout for v in ("inf", "nan")) or "non-finite" in first


@pytest.fixture(autouse=True)
def _repository_root(monkeypatch):
    monkeypatch.chdir(C.ROOT)   # the commands name files relative to the repository root


@pytest.mark.parametrize("kind, command, code, first", ROWS, ids=[r[0] for r in ROWS])
def test_row_in_process(kind, command, code, first):
    if SECTION[kind] == "process":  # standard streams and descriptors: only a process has them
        p = C.run_process(command)
        got_code, stdout, stderr = p.returncode, p.stdout, p.stderr
    else:
        got_code, stdout, stderr = run_in_process(command)
    check_row(kind, code, first, got_code, stdout, stderr)


def _one_per_section():
    seen, rows = set(), []
    for row in ROWS:
        section = SECTION[row[0]]
        if section not in seen:
            seen.add(section)
            rows.append(row)
    return rows


@pytest.mark.parametrize("kind, command, code, first", _one_per_section(),
                         ids=[r[0] for r in _one_per_section()])
def test_row_as_a_real_process(kind, command, code, first):
    p = C.run_process(command)
    check_row(kind, code, first, p.returncode, p.stdout, p.stderr)


@pytest.mark.slow
@pytest.mark.parametrize("kind, command, code, first", ROWS, ids=[r[0] for r in ROWS])
def test_every_row_as_a_real_process(kind, command, code, first):
    p = C.run_process(command)
    check_row(kind, code, first, p.returncode, p.stdout, p.stderr)


def test_script_error_names_the_users_file_and_line_only():
    code, stdout, stderr = run_in_process(f"tape grad {C.D}/raises.py --at 1")
    assert code == 2 and stdout == ""
    assert "ValueError: negative input" in stderr and "raises.py:6" in stderr
    assert "site-packages" not in stderr and "tape/cli" not in stderr


def test_debug_shows_the_traceback_for_a_script_error():
    p = C.run_process(f"tape --debug grad {C.D}/raises.py --at 1")
    assert p.returncode == 2
    assert "Traceback (most recent call last)" in p.stderr and "raises.py" in p.stderr
