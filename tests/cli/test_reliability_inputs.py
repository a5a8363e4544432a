"""Inputs users meet daily, and scripts that misbehave: each gets exit 2 and an `error:` line
naming what was wrong, never a traceback, never exit 70, never a silently wrong number."""
import pytest

from cli_helpers import tape_cli


def _err(result):
    assert "Traceback" not in result.stderr
    return result.stderr


# -- CSV files ------------------------------------------------------------------------------------
def test_a_byte_order_mark_is_accepted(tmp_path):
    path = tmp_path / "excel.csv"
    path.write_bytes(b"\xef\xbb\xbfx,y\n1,2\n3,4\n")
    result = tape_cli("grad", "x*y", "--points", str(path))
    assert result.exit_code == 0, result.stderr
    assert result.stdout.split("\n")[:2] == ["2.0 1.0", "4.0 3.0"]


def test_a_byte_order_mark_on_standard_input_is_accepted():
    result = tape_cli("grad", "x*y", "--points", "-", input="\ufeffx,y\n1,2\n")
    assert result.exit_code == 0, result.stderr
    assert result.stdout.split() == ["2.0", "1.0"]


@pytest.mark.parametrize("text", ["x,x\n1,2\n", "x,y,x\n1,2,3\n", "y,y,x\n1,2,3\n"])
def test_duplicate_column_names_are_refused(tmp_path, text):
    path = tmp_path / "dup.csv"
    path.write_text(text)
    result = tape_cli("grad", "x^2", "--points", str(path))
    assert result.exit_code == 2
    assert "more than once" in _err(result) and "'" in result.stderr


@pytest.mark.parametrize("line", ["1,,2", "1,2,", ",1,2"])
def test_empty_fields_on_standard_input_are_errors(line):
    result = tape_cli("grad", "x+y+z", "--at", "-", input=line + "\n")
    assert result.exit_code == 2
    assert "missing" in _err(result)


# -- numbers in options ---------------------------------------------------------------------------
@pytest.mark.parametrize("option, value", [("--timeout", "nan"), ("--timeout", "inf"),
                                           ("--timeout", "1e308"), ("--rtol", "nan"),
                                           ("--atol", "nan"), ("--rtol", "inf")])
def test_non_finite_or_huge_option_values_are_refused(option, value):
    result = tape_cli("grad", "x^2", "--at", "1", "--check", option, value)
    assert result.exit_code == 2
    assert option in _err(result)


# -- one point means one point --------------------------------------------------------------------
def test_trace_refuses_several_points():
    result = tape_cli("trace", "x^2", "--at", "1", "--at", "2")
    assert result.exit_code == 2
    assert "one point" in _err(result)


# -- scripts that misbehave -----------------------------------------------------------------------
@pytest.mark.parametrize("body, shown", [
    ("import sys\ndef f(x):\n    sys.exit(3)\n", "SystemExit: 3"),
    ("import sys\nsys.exit(0)\ndef f(x):\n    return x\n", "SystemExit: 0"),
    ("def f(x):\n    raise GeneratorExit('bye')\n", "GeneratorExit: bye"),
    ("class Stop(BaseException):\n    pass\ndef f(x):\n    raise Stop('now')\n", "Stop: now"),
])
def test_a_script_cannot_end_tape(tmp_path, body, shown):
    script = tmp_path / "odd.py"
    script.write_text(body)
    result = tape_cli("grad", str(script), "--at", "1")
    assert result.exit_code == 2
    assert shown in _err(result) and "odd.py:" in result.stderr


@pytest.mark.parametrize("command", [["grad"], ["hessian"], ["trace"], ["grad", "--check"]])
def test_complex_results_are_refused_not_dropped(tmp_path, command):
    script = tmp_path / "cplx.py"
    script.write_text("def f(x):\n    return x * (1 + 2j)\n")
    result = tape_cli(command[0], str(script), "--at", "1", *command[1:])
    assert result.exit_code == 2, result.stdout
    assert result.stdout == ""
    assert "complex" in _err(result)


# -- leaving the tape through NumPy conversion ----------------------------------------------------
@pytest.mark.parametrize("expression, named", [
    ("np.median([x, y])", "NotDifferentiableError: numpy.median given a tracked tensor"),
    ("float(np.asarray(x))**2 + y", "NotDifferentiableError: numpy.array"),
    ("np.i0(x) * y", "NotDifferentiableError: numpy.i0"),
    ("float(x) * y", "gives a constant"), ("int(x) + y", "gives a constant")])
def test_a_script_that_would_drop_part_of_the_gradient_is_refused(tmp_path, expression, named):
    script = tmp_path / "leak.py"
    script.write_text(f"import numpy as np\ndef f(x, y):\n    return np.exp(x) + {expression}\n")
    result = tape_cli("grad", str(script), "--at", "1,2")
    assert result.exit_code == 2, result.stdout
    assert result.stdout == ""
    assert named in _err(result) and "leak.py:3" in result.stderr


def test_an_array_of_tracked_values_is_recorded(tmp_path):
    script = tmp_path / "arr.py"
    script.write_text("import numpy as np\ndef f(x, y):\n    return np.sum(np.array([x, y])**2)\n")
    result = tape_cli("grad", str(script), "--at", "1,2")
    assert result.exit_code == 0, result.stderr
    assert [float(v) for v in result.stdout.split()] == pytest.approx([2.0, 4.0], rel=1e-12)


def test_a_constant_taken_on_purpose_is_accepted(tmp_path):
    script = tmp_path / "const.py"
    script.write_text("import numpy as np\ndef f(x, y):\n    return np.exp(x) + x.numpy() * y\n")
    result = tape_cli("grad", str(script), "--at", "1,2")
    assert result.exit_code == 0, result.stderr
    import math
    assert [float(v) for v in result.stdout.split()] == pytest.approx([math.e, 1.0], rel=1e-12)


def test_the_recorded_alternative_is_accepted(tmp_path):
    script = tmp_path / "stay.py"
    script.write_text("import numpy as np\ndef f(x, y):\n"
                      "    return np.exp(x) * np.cos(y) + np.sum(np.stack([x, y]) ** 2)\n")
    result = tape_cli("grad", str(script), "--at", "1,2", "--check")
    assert result.exit_code == 0, result.stderr
    got = [float(v) for v in result.stdout.split()]
    import math
    assert got == pytest.approx([math.e * math.cos(2) + 2, -math.e * math.sin(2) + 4], rel=1e-12)


# -- ranges and file names ------------------------------------------------------------------------
@pytest.mark.parametrize("span", ["-1e308:1e308", "-1.7e308:1e308"])
def test_a_plot_range_whose_width_overflows_is_refused(span):
    result = tape_cli("plot", "sin(x)", "--range", span, "--points", "5", "--format", "csv")
    assert result.exit_code == 2 and result.stdout == ""
    assert "--range" in _err(result) and "overflows" in result.stderr


def test_a_file_name_that_is_not_utf8_stays_valid_json(tmp_path):
    import json
    import os
    import subprocess
    import sys
    name = os.fsdecode(b"b\xffad.py")
    (tmp_path / name).write_text("def f(x):\n    return x * x\n")
    proc = subprocess.run([sys.executable, "-m", "tape", "grad", name, "--at", "1", "--format",
                           "json"], capture_output=True, cwd=tmp_path, timeout=120)
    assert proc.returncode == 0, proc.stderr
    doc = json.loads(proc.stdout.decode("utf-8"))          # strict: valid UTF-8
    assert doc["expression"] == "b\\xffad.py" and doc["points"][0]["gradient"] == {"x": 2.0}
