"""The steps of one ``grad``/``jacobian``/``hessian`` request, each entered once: the points a
command was given (``points.from_options``), the blocks they are cut into
(``points.blocks_of``), the plan decided after the reading (``derive.plan``), and the rest of
the points read with the first block for a whole report (a terminal table, ``--check``)."""
from __future__ import annotations

import io
import json
import math

import numpy as np
import pytest

from cli_helpers import numbers, tape_cli
from tape.cli import points as P
from tape.cli.commands import derive as C
from tape.expr.errors import CLIError
from tape.cli.options import Format


def test_points_all_on_the_command_line_leave_nothing_to_read():
    first, more, where = P.from_options(["x=1,y=2", "x=3,y=-4"], None, ["x", "y"],
                                        io.StringIO("5,6\n"))
    assert more is None and where == "--at"
    np.testing.assert_array_equal(first.arrays["x"], [1.0, 3.0])
    np.testing.assert_array_equal(first.arrays["y"], [2.0, -4.0])


def test_points_from_standard_input_come_after_the_command_lines():
    first, more, where = P.from_options(["0.5", "-"], None, ["x"], io.StringIO("1\n2\n"))
    assert where == "--at"
    np.testing.assert_array_equal(first.arrays["x"], [0.5])
    rest = list(more)
    assert [b.arrays["x"].tolist() for b in rest] == [[1.0, 2.0]]


def test_points_file_names_itself_in_messages(tmp_path):
    path = tmp_path / "pts.csv"
    path.write_text("x\n1\n2\n")
    first, more, where = P.from_options(None, str(path), ["x"], io.StringIO())
    assert where == f"--points {path}"
    np.testing.assert_array_equal(first.arrays["x"], [1.0, 2.0])
    assert list(more) == []


def test_no_points_for_a_target_without_variables_is_one_empty_point():
    first, more, where = P.from_options(None, None, [], io.StringIO())
    assert (first.count, first.names, more, where) == (1, [], None, "")


@pytest.mark.parametrize("at, points_file, names, message", [
    (["1"], "p.csv", ["x"], "give the points with --at or with --points, not both"),
    (None, None, ["x", "y"], r"the target has variables \(x, y\): say where"),
])
def test_points_given_wrongly_are_refused(at, points_file, names, message):
    with pytest.raises(CLIError, match=message) as info:
        P.from_options(at, points_file, names, io.StringIO())
    assert info.value.code == 2


def test_blocks_of_points_in_hand_are_a_list_cut_to_the_block_size():
    points = P.Points(["x"], {"x": np.arange(5.0)}, 5)
    blocks = P.blocks_of(points, None, 2)
    assert isinstance(blocks, list)
    assert [b.arrays["x"].tolist() for b in blocks] == [[0.0, 1.0], [2.0, 3.0], [4.0]]
    assert P.blocks_of(points, None, 5) == [points]


def test_blocks_read_later_are_cut_and_keep_the_vector_lengths():
    first = P.Points(["w"], {"w": np.ones((1, 2))}, 1)
    more = iter([P.Points(["w"], {"w": np.zeros((3, 2))}, 3)])
    assert [b.count for b in P.blocks_of(first, more, 2)] == [1, 2, 1]
    changed = iter([P.Points(["w"], {"w": np.zeros((1, 3))}, 1)])
    with pytest.raises(CLIError, match="'w' has different shapes at different points"):
        list(P.blocks_of(first, changed, 2))


def _request(command="grad", texts=("x^2",), fmt=Format.plain, memory=None, order=1):
    return C.Request(command, list(texts), ["1"], None, None, order, fmt, 6, False,
                     1e-7, 1e-9, 30.0, memory)


def test_plan_decides_format_budget_and_blocks_in_one_step(monkeypatch):
    monkeypatch.delenv("TAPE_MEMORY", raising=False)
    request = _request(texts=["x*y"], memory=256)
    problem, more = C.prepare_blocks(request.texts, ["1,2", "3,4", "5,6"], None, None)
    fmt, progress, budget, blocks = C.plan(request, problem, more)
    assert (fmt, progress, budget.mb) == (Format.plain, False, 256)
    assert [b.arrays["x"].tolist() for b in blocks] == [[1.0, 3.0, 5.0]]


def test_plan_refuses_a_vector_target_before_reading_the_memory_budget(monkeypatch):
    """The request's own faults come before the environment's (a bad TAPE_MEMORY)."""
    monkeypatch.setenv("TAPE_MEMORY", "lots")
    request = _request(texts=["[x, x^2]"])
    problem, more = C.prepare_blocks(["x*w"], ["x=1,w=[1,2]"], None, None)
    with pytest.raises(CLIError, match="grad needs a scalar target"):
        C.plan(request, problem, more)
    problem, more = C.prepare_blocks(["x"], ["1"], None, None)
    with pytest.raises(CLIError, match="TAPE_MEMORY='lots' is not a whole number"):
        C.plan(request, problem, more)


def test_a_whole_report_reads_every_block_before_the_work(monkeypatch):
    """A terminal table (or --check) needs every point: the blocks after the first join it
    while the points are read, and each point gets its own derivative."""
    monkeypatch.setattr(P, "STREAM_BLOCK", 2)
    xs = [0.5, -1.0, 2.0, 3.5, -0.25]
    result = tape_cli("grad", "sin(x)*x", "--at", "-", "--format", "table",
                      input="".join(f"{x}\n" for x in xs))
    assert result.exit_code == 0, result.stderr
    rows = [line.split("│")[1:4] for line in result.stdout.splitlines() if "│" in line]
    assert [float(r[0]) for r in rows] == xs
    for (x, value, slope) in ([float(c) for c in r] for r in rows):
        assert value == pytest.approx(math.sin(x) * x, rel=1e-5, abs=1e-6)   # 6 digits shown
        assert slope == pytest.approx(math.sin(x) + x * math.cos(x), rel=1e-5, abs=1e-6)


@pytest.mark.parametrize("fmt", ["table", "plain"])
def test_the_target_is_checked_on_the_points_before_a_bad_line(monkeypatch, fmt):
    """A bad line stops the points there (--on-error stop), whole report or streamed: the
    target's shapes are checked on the points before it, and that fault comes first."""
    monkeypatch.setattr(P, "STREAM_BLOCK", 2)
    lines = "x=1,w=[1,2]\n" * 3 + "x=foo,w=[1,2]\n"
    result = tape_cli("grad", "x*w", "--at", "-", "--format", fmt, input=lines)
    assert result.exit_code == 2
    assert result.stderr.startswith("error: grad needs a scalar target; 'x*w' has 2 "
                                    "components")


@pytest.mark.parametrize("fmt", ["table", "plain"])
def test_a_bad_line_stops_after_the_results_before_it(monkeypatch, fmt):
    monkeypatch.setattr(P, "STREAM_BLOCK", 2)
    result = tape_cli("grad", "x^2", "--at", "-", "--format", fmt,
                      input="1\n2\n3\nfoo\n5\n")
    assert result.exit_code == 2
    assert result.stderr.startswith("error: standard input line 4 x: 'foo' is not a number")
    if fmt == "plain":
        assert numbers(result.stdout) == [[2.0], [4.0], [6.0]]
    else:
        assert "│ 3 │" in result.stdout.replace(" 3 │ 9 │", " 3 │")


def test_streamed_blocks_are_answered_in_order(monkeypatch):
    monkeypatch.setattr(P, "STREAM_BLOCK", 2)
    xs = [0.5, -1.0, 2.0, 3.5, -0.25]
    result = tape_cli("grad", "x^3", "--at", "1.5", "--at", "-", "--format", "plain",
                      input="".join(f"{x}\n" for x in xs))
    assert result.exit_code == 0, result.stderr
    assert numbers(result.stdout) == [[3 * x * x] for x in [1.5, *xs]]
    doc = json.loads(tape_cli("grad", "x^3", "--at", "1.5", "--at", "-", "--format", "json",
                              input="".join(f"{x}\n" for x in xs)).stdout)
    assert [p["at"]["x"] for p in doc["points"]] == [1.5, *xs]
    assert [p["gradient"]["x"] for p in doc["points"]] == [3 * x * x for x in [1.5, *xs]]
