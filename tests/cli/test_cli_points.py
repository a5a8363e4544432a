"""Parsing points: --at forms, standard input, CSV files."""
from __future__ import annotations

import io
import math

import numpy as np
import pytest

from tape.cli import points as P
from tape.expr.errors import CLIError


def test_split_top_level_respects_brackets():
    assert P.split_top_level("w=[1,2],y=2") == ["w=[1,2]", "y=2"]


@pytest.mark.parametrize("text, names, expected", [
    ("0.5", ["x"], {"x": 0.5}),
    ("x=1,y=2", ["x", "y"], {"x": 1.0, "y": 2.0}),
    ("y=2, x=1", ["x", "y"], {"x": 1.0, "y": 2.0}),
    ("1,2", ["y", "x"], {"y": 1.0, "x": 2.0}),        # positional follows variable order
    ("x=[1,2,3]", ["x"], {"x": [1.0, 2.0, 3.0]}),
    ("w=[1, 2],y=2", ["w", "y"], {"w": [1.0, 2.0], "y": 2.0}),
    ("pi/2", ["x"], {"x": math.pi / 2}),
    ("x=-1e-3", ["x"], {"x": -0.001}),
])
def test_parse_point(text, names, expected):
    got = P.parse_point(text, names)
    assert list(got) == [n for n in names if n in got] and set(got) == set(expected)
    for name, value in expected.items():
        assert np.allclose(got[name], value)


@pytest.mark.parametrize("text, names, fragment", [
    ("0.5", ["x", "y"], "gives 1 value but the target has 2"),
    ("z=1", ["x"], "'z' is not a variable"),
    ("x=1", ["x", "y"], "no value for 'y'"),
    ("x=1,2", ["x", "y"], "mixes named and positional"),
    ("x=abc", ["x"], "not a number"),
    ("x=[1,2", ["x"], "unclosed"),
    ("x=1,x=2", ["x"], "given twice"),
    ("x=__import__('os')", ["x"], "not a number"),
])
def test_parse_point_errors(text, names, fragment):
    with pytest.raises(CLIError) as info:
        P.parse_point(text, names)
    assert fragment in info.value.message


def test_lines_fast_and_slow_paths_agree():
    fast = P.from_text("0\n0.5\n1\n", ["x"], "stdin")
    slow = P.from_text("# comment\n0\nx=0.5\npi-pi+1\n", ["x"], "stdin")
    assert fast.count == slow.count == 3
    np.testing.assert_allclose(fast.arrays["x"], [0, 0.5, 1])
    np.testing.assert_allclose(slow.arrays["x"], [0, 0.5, 1])


def test_lines_with_several_variables():
    pts = P.from_text("1,2\n3 4\n", ["x", "y"], "stdin")
    np.testing.assert_allclose(pts.arrays["x"], [1, 3])
    np.testing.assert_allclose(pts.arrays["y"], [2, 4])


def test_lines_report_the_line_number():
    with pytest.raises(CLIError) as info:
        P.from_text("1\n2\nnope\n", ["x"], "standard input")
    assert "line 3" in info.value.message


def test_vector_points_must_agree_in_length():
    with pytest.raises(CLIError):
        P.from_at(["x=[1,2]", "x=[1,2,3]"], ["x"], io.StringIO())


def test_csv_header_names_the_variables_and_extra_columns_are_ignored(tmp_path):
    path = tmp_path / "p.csv"
    path.write_text("note,y,x\nfirst,2,1\nsecond,4,3\n")
    pts = P.from_csv(str(path), ["x", "y"], io.StringIO())
    assert pts.count == 2
    np.testing.assert_allclose(pts.arrays["x"], [1, 3])
    np.testing.assert_allclose(pts.arrays["y"], [2, 4])


def test_csv_missing_column(tmp_path):
    path = tmp_path / "p.csv"
    path.write_text("x\n1\n")
    with pytest.raises(CLIError) as info:
        P.from_csv(str(path), ["x", "y"], io.StringIO())
    assert "no column for 'y'" in info.value.message


def test_csv_missing_file():
    with pytest.raises(CLIError) as info:
        P.from_csv("/nonexistent/points.csv", ["x"], io.StringIO())
    assert "cannot read" in info.value.message


def test_a_blank_line_is_a_line_of_its_own():
    with pytest.raises(CLIError) as info:
        P.from_text("0\n0.5\n\n1\n", ["x"], "stdin")
    assert info.value.message == "stdin line 3: a blank line (one point per line)"
