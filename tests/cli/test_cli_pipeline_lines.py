"""One output line per input line (SPEC 14): a blank or bad line of ``--at -`` or row of
``--points`` is handled by ``--on-error stop|nan|skip``, and nothing before it is lost."""
from __future__ import annotations

import json
import math
import subprocess
import sys

import pytest
from hypothesis import HealthCheck, given, settings, strategies as st

from cli_helpers import ROOT, tape_cli, tape_process

from tape.cli import points as P


def test_stop_writes_every_result_before_the_bad_line():
    result = tape_process("grad", "x^2", "--at", "-", input="1\nfoo\n3\n")
    assert result.returncode == 2
    assert result.stdout == "2.0\n"
    assert result.stderr.startswith("error: standard input line 2")
    assert "'foo' is not a number" in result.stderr


def test_stop_after_a_hundred_thousand_results_keeps_them_all():
    # the reproducer: (seq 1 100000; echo foo; seq 1 10) | tape grad "x^2" --at -
    result = subprocess.run(
        ["bash", "-c", f"(seq 1 100000; echo foo; seq 1 10) | {sys.executable} -m tape grad "
                       f"'x^2' --at -"], capture_output=True, text=True, cwd=ROOT, timeout=120)
    assert result.returncode == 2
    lines = result.stdout.splitlines()
    assert len(lines) == 100_000
    assert float(lines[-1]) == 200_000.0 and float(lines[0]) == 2.0
    assert "standard input line 100001" in result.stderr


def test_a_blank_line_is_an_error_line_of_its_own():
    result = tape_cli("grad", "x^2", "--at", "-", input="1\n\n3\n")
    assert result.exit_code == 2 and result.stdout == "2.0\n"
    assert result.stderr == "error: standard input line 2: a blank line (one point per line)\n"


def test_nan_keeps_the_lines_lined_up_in_plain():
    result = tape_cli("grad", "x^2", "--at", "-", "--on-error", "nan",
                      input="1\nfoo\n\n3\n")
    assert result.exit_code == 0
    assert result.stdout.splitlines() == ["2.0", "nan", "nan", "6.0"]
    assert result.stderr.startswith("warning: standard input: 2 lines could not be read and "
                                    "were written as nan (the first: standard input line 2")


def test_nan_in_plain_has_one_nan_per_number_of_the_line():
    result = tape_cli("grad", "x*y", "--at", "-", "--on-error", "nan",
                      input="1,2\n3\n2,5\n")
    assert result.stdout.splitlines() == ["2.0 1.0", "nan nan", "5.0 2.0"]


def test_nan_in_csv_is_a_row_of_nan():
    result = tape_cli("grad", "x^2", "--at", "-", "--on-error", "nan", "--format", "csv",
                      input="1\nfoo\n3\n")
    assert result.stdout.splitlines() == ["x,value,df/dx", "1.0,1.0,2.0", "nan,nan,nan",
                                          "3.0,9.0,6.0"]


def test_nan_in_json_names_the_error_on_its_point():
    result = tape_cli("grad", "x^2", "--at", "-", "--on-error", "nan", "--format", "json",
                      input="1\nfoo\n3\n")
    doc = json.loads(result.stdout)
    first, bad, last = doc["points"]
    assert "error" not in first and "error" not in last
    assert bad["error"].startswith("standard input line 2")
    assert bad["gradient"]["x"] == bad["value"] == bad["at"]["x"] == "nan"
    assert last["gradient"]["x"] == 6.0


def test_nan_for_lines_before_any_point_waits_for_one():
    result = tape_cli("grad", "x^2", "--at", "-", "--on-error", "nan", input="foo\n\n2\n")
    assert result.stdout.splitlines() == ["nan", "nan", "4.0"]


def test_nan_when_no_line_can_be_read():
    result = tape_cli("grad", "x^2", "--at", "-", "--on-error", "nan", input="foo\nbar\n")
    assert result.exit_code == 0
    assert result.stdout.splitlines() == ["nan", "nan"]


def test_skip_goes_on_and_counts():
    result = tape_cli("grad", "x^2", "--at", "-", "--on-error", "skip",
                      input="1\nfoo\n\n3\n")
    assert result.exit_code == 0
    assert result.stdout.splitlines() == ["2.0", "6.0"]
    assert "2 lines could not be read and were skipped" in result.stderr


def test_skip_of_every_line_is_an_error():
    result = tape_cli("grad", "x^2", "--at", "-", "--on-error", "skip", input="foo\n")
    assert result.exit_code == 2
    assert "no points given; 1 line could not be read and was skipped" in result.stderr


def test_stop_in_json_closes_the_document_with_the_error():
    result = tape_cli("grad", "x^2", "--at", "-", "--format", "json", input="1\nfoo\n")
    assert result.exit_code == 2
    doc = json.loads(result.stdout)
    assert [p["gradient"]["x"] for p in doc["points"]] == [2.0]
    assert doc["error"].startswith("standard input line 2")


def test_points_rows_follow_the_same_policy(tmp_path):
    path = tmp_path / "p.csv"
    path.write_text("x,y\n1,2\n3,oops\n\n5,6\n")
    stop = tape_cli("grad", "x*y", "--points", str(path))
    assert stop.exit_code == 2 and stop.stdout == "2.0 1.0\n"
    assert "row 3 column y" in stop.stderr
    nan = tape_cli("grad", "x*y", "--points", str(path), "--on-error", "nan")
    assert nan.stdout.splitlines() == ["2.0 1.0", "nan nan", "nan nan", "6.0 5.0"]
    skip = tape_cli("grad", "x*y", "--points", str(path), "--on-error", "skip")
    assert skip.stdout.splitlines() == ["2.0 1.0", "6.0 5.0"]


def test_an_unread_line_is_not_counted_as_a_non_finite_result():
    result = tape_cli("grad", "1/x", "--at", "-", "--on-error", "nan", input="0\nfoo\n")
    assert result.stdout.splitlines() == ["-inf", "nan"]
    warnings = [line for line in result.stderr.splitlines() if "non-finite" in line
                or "inf" in line.split(":")[1]]
    assert any("x=0.0" in line for line in warnings), result.stderr
    assert "1 line could not be read" in result.stderr


LINE = st.one_of(
    st.floats(-50, 50, allow_nan=False).map(repr),
    st.integers(-9, 9).map(str),
    st.sampled_from(["", "  ", "foo", "1,,2", "nan", "1e999", "[1", "x=", "2 3"]))


@settings(max_examples=40, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(lines=st.lists(LINE, min_size=1, max_size=30), block=st.integers(1, 7))
def test_nan_gives_one_line_out_per_line_in(lines, block, monkeypatch):
    """Whatever the lines, and however they are cut into blocks, line i of the output answers
    line i of the input: the derivative of x^3 where it is a number, nan elsewhere."""
    monkeypatch.setattr(P, "STREAM_BLOCK", block)
    result = tape_cli("grad", "x^3", "--at", "-", "--on-error", "nan",
                      input="\n".join(lines) + "\n")
    assert result.exit_code == 0, result.stderr
    out = result.stdout.splitlines()
    assert len(out) == len(lines)
    for given_line, answer in zip(lines, out):
        try:
            x = float(given_line)
        except ValueError:
            x = None
        if x is None or not math.isfinite(x):
            assert answer == "nan"
        else:
            assert float(answer) == pytest.approx(3 * x * x, rel=1e-12, abs=1e-300)


def test_a_vector_of_another_length_is_a_bad_line_of_its_own():
    text = "x=[1,2]\nx=[3,4,5]\nx=[1,1]\n"
    nan = tape_cli("grad", "sum(x^2)", "--at", "-", "--on-error", "nan", input=text)
    assert nan.exit_code == 0
    assert nan.stdout.splitlines() == ["2.0 4.0", "nan nan", "2.0 2.0"]
    stop = tape_cli("grad", "sum(x^2)", "--at", "-", input=text)
    assert stop.exit_code == 2 and stop.stdout == "2.0 4.0\n"
    assert "line 2: 'x' is a vector of 3 here and a vector of 2 at the points before" \
        in stop.stderr
    given = tape_cli("grad", "sum(x^2)", "--at", "x=[1,2]", "--at", "-", "--on-error",
                     "skip", input="x=[1,2,3]\nx=[0,1]\n")
    assert given.stdout.splitlines() == ["2.0 4.0", "0.0 2.0"]
