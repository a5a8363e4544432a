"""The one render path: every command's result goes through ``output.render``, and what the
target was read as (``target.read_as``) is shown in one place: JSON ``"read_as"`` right after
``"expression"``, a ``read as`` line above a table, nothing in plain or CSV."""
from __future__ import annotations

import json

import pytest

from cli_helpers import tape_cli
from tape.cli import output
from tape.cli.options import Format
from tape.calculus.targets import Target

COMMANDS = {
    "grad": ["grad", "x^2", "--at", "3"],
    "jacobian": ["jacobian", "x*y", "x+y", "--at", "1,2"],
    "hessian": ["hessian", "x^2*y", "--at", "1,2"],
    "diff": ["diff", "x^2"],
    "check": ["check", "x^2", "--answer", "2x"],
    "trace": ["trace", "x^2", "--at", "3"],
    "plot": ["plot", "x^2", "--points", "3"],
}


@pytest.fixture
def read_as(monkeypatch):
    """Targets that carry a reading, as the expression reader will provide."""
    monkeypatch.setattr(Target, "read_as", "x**2 (read from x^2)", raising=False)
    return "x**2 (read from x^2)"


@pytest.mark.parametrize("name", COMMANDS)
def test_json_has_read_as_right_after_expression(name, read_as):
    result = tape_cli(*COMMANDS[name], "--format", "json")
    assert result.exit_code == 0, result.stderr
    doc = json.loads(result.stdout)
    keys = list(doc)
    # tape check reads two texts: its read_as holds both (SPEC 4)
    expected = {"expression": read_as, "answer": read_as} if name == "check" else read_as
    assert keys[keys.index("expression") + 1] == "read_as" and doc["read_as"] == expected


@pytest.mark.parametrize("name", COMMANDS)
def test_without_read_as_json_is_unchanged(name, monkeypatch):
    # a target with no reading (a script's) adds nothing to the document
    monkeypatch.setattr(Target, "read_as", None)
    doc = json.loads(tape_cli(*COMMANDS[name], "--format", "json").stdout)
    assert "read_as" not in doc and "expression" in doc


@pytest.mark.parametrize("name", ["grad", "diff", "trace"])
def test_table_shows_a_read_as_line_and_plain_does_not(name, read_as):
    table = tape_cli(*COMMANDS[name], "--format", "table").stdout
    assert table.splitlines()[0] == "read as " + read_as
    for fmt in ("plain", "csv"):
        assert "read as" not in tape_cli(*COMMANDS[name], "--format", fmt).stdout


def test_a_list_of_readings_is_shown_joined(monkeypatch):
    monkeypatch.setattr(Target, "read_as", ["x*y", "x + y"], raising=False)
    result = tape_cli(*COMMANDS["jacobian"], "--format", "table")
    assert result.stdout.splitlines()[0] == "read as x*y, x + y"
    doc = json.loads(tape_cli(*COMMANDS["jacobian"], "--format", "json").stdout)
    assert doc["read_as"] == ["x*y", "x + y"]


def test_every_format_has_a_writer():
    assert set(output.WRITERS) == set(Format) - {Format.auto}


class Numbers(output.Result):
    """A minimal result: two numbers with a header, to drive the writers directly."""

    numeric_rows = True

    def document(self):
        return {"expression": "e", "values": [1.5, float("inf")]}

    def header(self):
        return ["a", "b"]

    def rows(self):
        yield [("1.5", "inf")]

    def lines(self):
        yield "1.5 inf\n"

    def draw(self, out, precision):
        out.write(f"drawn with {precision} digits\n")


@pytest.mark.parametrize("fmt, text", [
    (Format.json, '{"expression": "e", "values": [1.5, "inf"]}\n'),
    (Format.ndjson, '{"expression": "e", "values": [1.5, "inf"]}\n'),
    (Format.csv, "a,b\n1.5,inf\n"),
    (Format.plain, "1.5 inf\n"),
    (Format.table, "drawn with 3 digits\n")])
def test_render_sends_each_format_to_its_view(fmt, text, capsys):
    output.render(Numbers(), fmt, precision=3)
    assert capsys.readouterr().out == text


def test_abort_without_a_message_exits_quietly_with_its_code():
    result = tape_cli(*COMMANDS["check"][:-1], "3x")
    assert result.exit_code == 1 and result.stdout.startswith("wrong")
    assert "error:" not in result.stderr
