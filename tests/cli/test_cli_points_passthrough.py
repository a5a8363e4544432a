"""``--points`` passes the columns that are not variables (a label, an id) through to the
output (SPEC 14): first in CSV and in a table, as ``"columns"`` in JSON and ndjson; plain stays
numbers only (a line of it lines up with its input row)."""
from __future__ import annotations

import csv
import io
import json

import pytest

from cli_helpers import numbers, tape_cli

from tape.cli import points as P


@pytest.fixture
def labelled(tmp_path):
    path = tmp_path / "p.csv"
    path.write_text('id,x,label\n7,1,first\n8,2,"with, comma"\n9,3,"say ""hi"""\n')
    return str(path)


def test_csv_has_the_other_columns_first(labelled):
    result = tape_cli("grad", "x^2", "--points", labelled, "--format", "csv")
    assert result.exit_code == 0, result.stderr
    rows = list(csv.reader(io.StringIO(result.stdout)))
    assert rows[0] == ["id", "label", "x", "value", "df/dx"]
    assert [r[:2] for r in rows[1:]] == [["7", "first"], ["8", "with, comma"],
                                         ["9", 'say "hi"']]
    assert [float(r[4]) for r in rows[1:]] == [2.0, 4.0, 6.0]


def test_json_and_ndjson_have_columns_on_each_point(labelled):
    doc = json.loads(tape_cli("grad", "x^2", "--points", labelled, "--format", "json").stdout)
    assert [p["columns"] for p in doc["points"]] == [
        {"id": "7", "label": "first"}, {"id": "8", "label": "with, comma"},
        {"id": "9", "label": 'say "hi"'}]
    lines = tape_cli("grad", "x^2", "--points", labelled, "--format", "ndjson").stdout
    assert [json.loads(line) for line in lines.splitlines()] == doc["points"]


def test_plain_stays_numbers_only(labelled):
    result = tape_cli("grad", "x^2", "--points", labelled)
    assert numbers(result.stdout) == [[2.0], [4.0], [6.0]]


def test_a_row_that_cannot_be_read_keeps_its_columns(tmp_path):
    path = tmp_path / "p.csv"
    path.write_text("id,x\na,1\nb,oops\nc,3\n")
    result = tape_cli("grad", "x^2", "--points", str(path), "--format", "csv",
                      "--on-error", "nan")
    assert result.stdout.splitlines() == ["id,x,value,df/dx", "a,1.0,1.0,2.0",
                                          "b,nan,nan,nan", "c,3.0,9.0,6.0"]
    skip = tape_cli("grad", "x^2", "--points", str(path), "--format", "csv",
                    "--on-error", "skip")
    assert skip.stdout.splitlines() == ["id,x,value,df/dx", "a,1.0,1.0,2.0", "c,3.0,9.0,6.0"]


@pytest.mark.parametrize("block", [1, 2, 5, 1000])
def test_columns_stay_with_their_rows_across_blocks(tmp_path, monkeypatch, block):
    monkeypatch.setattr(P, "STREAM_BLOCK", block)
    n = 23
    path = tmp_path / "p.csv"
    path.write_text("x,id\n" + "".join(f"{i / 4},row{i}\n" for i in range(n)))
    result = tape_cli("grad", "x^3", "--points", str(path), "--format", "csv")
    rows = list(csv.reader(io.StringIO(result.stdout)))[1:]
    assert [r[0] for r in rows] == [f"row{i}" for i in range(n)]
    assert [float(r[1]) for r in rows] == [i / 4 for i in range(n)]
    assert [float(r[3]) for r in rows] == pytest.approx([3 * (i / 4) ** 2 for i in range(n)])


def test_the_fast_and_the_careful_reader_pass_the_same_columns(tmp_path):
    plain = tmp_path / "plain.csv"
    plain.write_text("x,id,y\n1,10,2\n3,11,4\n")
    quoted = tmp_path / "quoted.csv"
    quoted.write_text('x,id,y\n1,"10",2\n3,11,"4"\n')
    a = tape_cli("grad", "x*y", "--points", str(plain), "--format", "csv").stdout
    b = tape_cli("grad", "x*y", "--points", str(quoted), "--format", "csv").stdout
    assert a == b and a.splitlines()[0] == "id,x,y,value,df/dx,df/dy"
