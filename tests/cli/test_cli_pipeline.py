"""The real executable in shell pipelines (subprocess: stdout is a pipe, not a terminal)."""
from __future__ import annotations

import json
import math
import subprocess
import sys

import pytest

from cli_helpers import ROOT, numbers, tape_process


def test_sin_on_three_points_from_stdin():
    result = tape_process("grad", "sin(x)", "--at", "-", input="0\n0.5\n1\n")
    assert result.returncode == 0, result.stderr
    lines = result.stdout.splitlines()
    assert len(lines) == 3
    assert [float(v) for v in lines] == pytest.approx([math.cos(0), math.cos(0.5),
                                                       math.cos(1)], rel=1e-15)


def test_piped_plain_polynomial():
    result = tape_process("grad", "2*x**3+4*x**2+5*x+6", "--at", "0.5")
    assert result.stdout == "10.5\n" and result.stderr == "" and result.returncode == 0


def test_json_is_one_document():
    result = tape_process("grad", "x^2", "--at", "-", "-f", "json", input="1\n2\n")
    doc = json.loads(result.stdout)
    assert [p["gradient"]["x"] for p in doc["points"]] == [2.0, 4.0]


def test_errors_have_no_traceback_and_exit_2():
    result = tape_process("grad", "x.__class__", "--at", "1")
    assert result.returncode == 2
    assert result.stderr.startswith("error: ") and "Traceback" not in result.stderr


def test_usage_errors_are_plain_lines():
    result = tape_process("grad", "x", "--nope")
    assert result.returncode == 2
    assert all(line.startswith("error:") for line in result.stderr.splitlines())


def test_grad_does_not_import_sympy_or_plotting():
    code = ("import sys; sys.argv = ['tape', 'grad', '2*x**3+4*x**2', '--at', '0.5']\n"
            "from tape.cli.app import main\n"
            "try:\n    main()\nexcept SystemExit:\n    pass\n"
            "heavy = [m for m in ('sympy', 'matplotlib', 'plotext', 'rich.table', "
            "'rich.progress') if m in sys.modules]\n"
            "print('HEAVY', heavy)\n")
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                            cwd=ROOT, timeout=120)
    # what is printed once tape's result is out goes to standard error (as a script's atexit)
    assert result.stdout.splitlines() == ["5.5"], result.stderr
    assert result.stderr.splitlines() == ["HEAVY []"]


def test_a_hundred_thousand_points_in_one_pass(tmp_path):
    path = tmp_path / "points.txt"
    path.write_text("\n".join(repr(i / 1000) for i in range(100_000)))
    with open(path) as stdin:
        result = subprocess.run([sys.executable, "-m", "tape", "grad", "x^2", "--at", "-"],
                                stdin=stdin, capture_output=True, text=True, cwd=ROOT,
                                timeout=120)
    rows = numbers(result.stdout)
    assert len(rows) == 100_000
    assert rows[12345][0] == pytest.approx(2 * 12.345)


def test_a_reader_that_stops_early_is_not_an_error(tmp_path):
    # like `tape grad ... --at - -f csv | head -c 30`
    path = tmp_path / "points.txt"
    path.write_text("\n".join(repr(i / 7) for i in range(100_000)))
    with open(path) as stdin:
        proc = subprocess.Popen([sys.executable, "-m", "tape", "grad", "x^2", "--at", "-",
                                 "-f", "csv"], stdin=stdin, stdout=subprocess.PIPE,
                                stderr=subprocess.PIPE, cwd=ROOT)
        head = proc.stdout.read(30)
        proc.stdout.close()
        stderr = proc.stderr.read()
        proc.wait(timeout=120)
    assert head.startswith(b"x,value,df/dx")
    assert proc.returncode == 0 and b"error" not in stderr and b"Traceback" not in stderr
