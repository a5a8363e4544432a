"""A CLI script target written with tape.torch (samples/torch_poly.py)."""
import json
import pathlib
import subprocess
import sys

ROOT = pathlib.Path(__file__).resolve().parents[2]
SAMPLE = str(ROOT / "samples" / "torch_poly.py")


def _tape(*args):
    return subprocess.run([sys.executable, "-m", "tape", *args], capture_output=True, text=True,
                          cwd=ROOT, timeout=120)


def test_grad_of_a_torch_script():
    result = _tape("grad", SAMPLE, "--at", "0.5")
    assert result.returncode == 0, result.stderr
    assert float(result.stdout) == 10.5


def test_second_derivative_and_check_of_a_torch_script():
    result = _tape("grad", SAMPLE, "--at", "0.5", "--order", "2", "--check", "-f", "json")
    assert result.returncode == 0, result.stderr
    point = json.loads(result.stdout)["points"][0]
    assert point["derivative"] == 14.0 and point["check"]["agree"] is True
    assert point["value"] == 9.75


def test_many_points_of_a_torch_script(tmp_path):
    points = tmp_path / "points.csv"
    points.write_text("x\n-1\n0\n2\n")
    result = _tape("grad", SAMPLE, "--points", str(points), "-f", "json")
    assert result.returncode == 0, result.stderr
    grads = [p["gradient"]["x"] for p in json.loads(result.stdout)["points"]]
    assert grads == [6 * x * x + 8 * x + 5 for x in (-1, 0, 2)]
