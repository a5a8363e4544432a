"""Tables and help on a terminal of any width: a table that does not fit is laid out again
(stacked, its points in groups, or as lines), never squeezed until rich cuts a number
("22.…") or leaves a cell empty under a "…" header; help never cuts an option's name."""
from __future__ import annotations

import re

import pytest

from tape.cli import app as A

from cli_helpers import tape_cli

OPTIONS = {"": ["--debug", "--version", "--install-completion", "--show-completion",
                "--help"],
           "grad": ["--at", "--points", "--wrt", "--order", "--check", "--format",
                    "--precision", "--rtol", "--atol", "--timeout", "--implicit",
                    "--dependent", "--memory", "--help"],
           "check": ["--answer", "--wrt", "--order", "--dependent", "--help"],
           "tangent": ["--at", "--precision", "--help"]}


def _table(monkeypatch, columns: int, *args: str) -> str:
    monkeypatch.setenv("COLUMNS", str(columns))
    result = tape_cli(*args, "--format", "table")
    assert result.exit_code == 0, result.stderr
    assert "…" not in result.stdout, result.stdout
    assert max(len(line) for line in result.stdout.splitlines()) <= max(columns, 40)
    return result.stdout


def _cells(text: str) -> list[str]:
    return [c.strip() for line in text.splitlines() for c in re.split("[│┃]", line)
            if c.strip()]


def test_a_gradient_on_twenty_columns_shows_every_number(monkeypatch):
    out = _table(monkeypatch, 20, "grad", "x*y", "--at", "1,2")
    cells = _cells(out)
    for label, value in [("x", "1"), ("y", "2"), ("f", "2"), ("∂f/∂x", "2"), ("∂f/∂y", "1")]:
        assert cells[cells.index(label) + 1] == value


def test_a_five_variable_gradient_on_eighty_columns_keeps_whole_numbers(monkeypatch):
    out = _table(monkeypatch, 80, "grad", "x*y*z*w*v*22.123456", "--at",
                 "1.5,2.5,3.5,4.5,5.5")
    cells = _cells(out)
    for label, value in [("f", "7186.67"), ("∂f/∂v", "4791.11"), ("∂f/∂z", "1306.67")]:
        assert cells[cells.index(label) + 1] == value


def test_several_points_are_grouped_to_fit(monkeypatch):
    points = [f"{i},{i + 1},{i + 2}" for i in range(1, 9)]
    args = ["grad", "x*y*z"] + [a for p in points for a in ("--at", p)]
    out = _table(monkeypatch, 40, *args)
    cells = _cells(out)
    assert "point" in cells and "8" in cells
    assert str(8 * 9 * 10) in cells        # f at the last point


def test_a_wide_table_that_fits_is_unchanged(monkeypatch):
    out = _table(monkeypatch, 120, "grad", "x*y", "--at", "1,2", "--at", "3,4")
    assert out.splitlines()[2].startswith("┏") and "∂f/∂y" in out.splitlines()[3]


def test_numbers_wider_than_the_terminal_are_printed_whole(monkeypatch):
    monkeypatch.setenv("COLUMNS", "12")
    result = tape_cli("grad", "x*y*12345678.123", "--at", "1,2", "--format", "table",
                      "--precision", "12")
    assert result.exit_code == 0 and "…" not in result.stdout
    assert "∂f/∂x = 24691356.246" in result.stdout


def test_a_hessian_grid_is_split_into_column_groups(monkeypatch):
    out = _table(monkeypatch, 40, "hessian", "x*y*z*w*v*22.123456", "--at",
                 "1.5,2.5,3.5,4.5,5.5")
    assert out.count("┏") == 2 and "1916.44" in out and "290.37" in out


@pytest.mark.parametrize("columns", [20, 30, 40, 50, 63])
@pytest.mark.parametrize("command", list(OPTIONS))
def test_help_keeps_every_option_name(monkeypatch, columns, command):
    monkeypatch.setenv("COLUMNS", str(columns))
    result = tape_cli(*([command] if command else []), "--help")
    assert result.exit_code == 0
    assert "…" not in result.stdout
    for option in OPTIONS[command]:
        assert re.search(rf"(^|[\s,]){option}\b", result.stdout), (option, result.stdout)


def test_help_on_a_wide_terminal_keeps_its_panels(monkeypatch):
    monkeypatch.setenv("COLUMNS", str(A.HELP_MIN_WIDTH))
    result = tape_cli("grad", "--help")
    assert "╭─ Options" in result.stdout and "…" not in result.stdout


def test_the_check_table_and_the_trace_become_records_when_they_cannot_fit(monkeypatch):
    monkeypatch.setenv("COLUMNS", "30")
    checked = tape_cli("grad", "x*sin(y)", "--at", "1,2", "--check", "--format", "table")
    assert checked.exit_code == 0 and "…" not in checked.stdout
    assert "symbolic: x*cos(y)" in checked.stdout and "expected: -0.416147" in checked.stdout
    traced = tape_cli("trace", "x*y", "--at", "1,2", "--format", "table")
    assert traced.exit_code == 0 and "…" not in traced.stdout
    assert "node: Mul" in traced.stdout and "inputs: #0, #1" in traced.stdout
    monkeypatch.setenv("COLUMNS", "80")
    wide = tape_cli("trace", "x*y", "--at", "1,2", "--format", "table")
    assert "┃ id ┃ node" in wide.stdout
