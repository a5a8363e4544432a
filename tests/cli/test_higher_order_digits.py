"""grad --order N says when Taylor mode's estimated rounding error makes digits unreliable, and
stays silent where the numbers are right (issue 32, with mpmath as the reference): a warning
naming the derivative, and in JSON a "digits" beside each such number."""
from __future__ import annotations

import json
import math

import mpmath
import numpy as np
import pytest

from cli_helpers import tape_cli, tape_process


def _nth(f, a, n):
    mpmath.mp.dps = 60
    return mpmath.diff(f, mpmath.mpf(a), n)


@pytest.mark.parametrize("text, f, a, n", [
    ("sin(x)/x", lambda x: mpmath.sin(x) / x, "1", 20),
    ("exp(20*x)/exp(19*x)", lambda x: mpmath.exp(20 * x) / mpmath.exp(19 * x), "0.5", 20),
    ("x/(exp(x)-1)", lambda x: x / (mpmath.exp(x) - 1), "0.5", 15),
])
def test_a_number_printed_without_a_warning_is_right(text, f, a, n):
    p = tape_process("grad", text, "--at", a, "--order", str(n))
    assert p.returncode == 0
    got, true = float(p.stdout), float(_nth(f, a, n))
    if "warning:" not in p.stderr:
        assert got == pytest.approx(true, rel=1e-8), (got, true)


def test_a_few_doubtful_numbers_are_taken_again_in_high_precision():
    # Taylor mode has no digit of these (a root of an exponential: Cauchy's circle meets the
    # branch cut); mpmath's differentiation of the same expression has all of them
    p = tape_process("grad", "sqrt(exp(x))", "--at", "0.01", "--order", "30")
    assert p.returncode == 0 and p.stderr == ""
    assert float(p.stdout) == pytest.approx(math.exp(0.005) / 2**30, rel=1e-14)
    p = tape_process("grad", "sqrt(exp(x*y))", "--at", "0.01,0.3", "--order", "8", "--format",
                     "json")
    doc = json.loads(p.stdout)
    assert "warnings" not in doc
    f = lambda x, y: mpmath.sqrt(mpmath.exp(x * y))     # noqa: E731
    mpmath.mp.dps = 50
    for entry in doc["points"][0]["partials"]:
        order = (entry["wrt"].count("x"), entry["wrt"].count("y"))
        true = float(mpmath.diff(f, (mpmath.mpf("0.01"), mpmath.mpf("0.3")), order))
        assert "digits" not in entry
        assert entry["value"] == pytest.approx(true, rel=1e-10, abs=1e-300), (entry, true)


def _many_points(tmp_path, count=120):
    # more doubtful numbers than one pass takes again in high precision (MAX_RECOMPUTED)
    path = tmp_path / "points.csv"
    path.write_text("x\n" + "".join(f"{0.01 * (i + 1):.2f}\n" for i in range(count)))
    return str(path)


def test_partials_of_differently_scaled_variables_are_right():
    p = tape_process("grad", "exp(30*x+y)", "--at", "0,0", "--order", "10", "--format", "json")
    import json

    doc = json.loads(p.stdout)
    for entry in doc["points"][0]["partials"]:
        k = entry["wrt"].count("x")
        assert entry["value"] == pytest.approx(30.0 ** k, rel=1e-8), entry
    assert "warnings" not in doc


def _relative(got, true):
    return abs(got - true) / abs(true)


def test_json_gives_the_digits_of_each_point_that_has_fewer_and_only_there(tmp_path):
    points = [f"{0.01 * (i + 1):.2f}" for i in range(120)]
    result = tape_cli("grad", "sqrt(exp(x))", "--order", "30", "--format", "json",
                      "--points", _many_points(tmp_path))
    assert result.exit_code == 0, result.stderr
    doc = json.loads(result.stdout)
    flagged = []
    for a, entry in zip(points, doc["points"]):
        true = float(_nth(lambda x: mpmath.sqrt(mpmath.exp(x)), a, 30))
        error = _relative(entry["derivative"], true)
        if "digits" not in entry:
            assert error <= 1e-8, (a, entry, true)
            continue
        flagged.append(a)
        # whole digits from 0 to 7, and never more than the number really has
        assert entry["digits"] in range(8), entry
        assert entry["digits"] <= max(0.0, -math.log10(error)) + 1, (a, entry, true)
        assert list(entry)[-1] == "digits" and list(entry)[-2] == "derivative"
    assert flagged, "sqrt(exp(x)) at order 30 loses digits at some point"
    warning, = doc["warnings"]
    assert warning.startswith("d³⁰f/dx³⁰ at x=") and "may be accurate" in warning
    assert f"{len(flagged)} of the numbers printed" in warning or len(flagged) == 1
    assert "warning: d³⁰f/dx³⁰ at x=" in result.stderr


def test_json_has_no_digits_where_every_number_is_trusted():
    result = tape_cli("grad", "sin(x)/x", "--at", "1", "--at", "2", "--order", "20",
                      "--format", "json")
    assert result.exit_code == 0
    doc = json.loads(result.stdout)
    assert all("digits" not in entry for entry in doc["points"])
    assert "warnings" not in doc and "warning" not in result.stderr
    for a, entry in zip(["1", "2"], doc["points"]):
        true = float(_nth(lambda x: mpmath.sin(x) / x, a, 20))
        assert _relative(entry["derivative"], true) <= 1e-8


def test_each_partial_has_its_own_digits():
    # sqrt of an exponential: the power's recurrence loses digits along the directions
    result = tape_cli("grad", "sqrt(exp(x*y))", "--at", "0.01,0.3", "--order", "8",
                      "--format", "json")
    assert result.exit_code == 0, result.stderr
    doc = json.loads(result.stdout)
    mpmath.mp.dps = 50
    f = lambda x, y: mpmath.sqrt(mpmath.exp(x * y))     # noqa: E731
    flagged = 0
    for entry in doc["points"][0]["partials"]:
        order = (entry["wrt"].count("x"), entry["wrt"].count("y"))
        true = float(mpmath.diff(f, (mpmath.mpf("0.01"), mpmath.mpf("0.3")), order))
        if "digits" in entry:
            flagged += 1
            assert entry["digits"] in range(8)
            assert list(entry) == ["wrt", "value", "digits"]
        else:
            assert entry["value"] == pytest.approx(true, rel=1e-8, abs=1e-300), (entry, true)
    if flagged:
        assert "may be accurate" in doc["warnings"][-1]
        assert doc["warnings"][-1].startswith("∂⁸f/∂")


def test_the_other_formats_print_the_same_numbers_with_the_warning(tmp_path):
    args = ("grad", "sqrt(exp(x))", "--points", _many_points(tmp_path), "--order", "30")
    plain = tape_cli(*args, "--format", "plain")
    doc = json.loads(tape_cli(*args, "--format", "json").stdout)
    assert [float(v) for v in plain.stdout.split()] == \
        [entry["derivative"] for entry in doc["points"]]
    assert plain.stderr.count("warning: d³⁰f/dx³⁰ at x=") == 1
    csv = tape_cli(*args, "--format", "csv")
    assert csv.stdout.splitlines()[0] == "x,value,d30f/dx30"     # no column is added
    assert "may be accurate" in csv.stderr


def test_a_sparse_entry_is_written_as_json_dumps_would():
    from io import StringIO

    from tape.cli.jsonstream import Column, Document, Sparse, write

    values = np.array([1.5, 2.5, 3.5])
    digits = np.array([np.nan, 3.0, 0.0])
    doc = Document({"order": 2}, {"value": Column(values), "digits": Sparse(digits),
                                  "more": [{"v": Column(values), "d": Sparse(digits)}]}, 3)
    out = StringIO()
    write(doc, out, cells=2)
    want = {"order": 2, "points": [
        {"value": v, **({} if np.isnan(d) else {"digits": int(d)}),
         "more": [{"v": v, **({} if np.isnan(d) else {"d": int(d)})}]}
        for v, d in zip(values.tolist(), digits.tolist())]}
    assert out.getvalue() == json.dumps(want) + "\n"


def test_taking_mixed_partials_again_is_bounded():
    """mpmath nests one differentiation per variable: a sixth-order partial along six variables
    takes it seconds, a tenth-order one minutes. Those are left flagged (their estimated digits
    stand); a cheap mixed one is taken again, in a child under a deadline. A subprocess with a
    wall bound far above the second this takes: a regression fails instead of hanging."""
    import subprocess
    import sys

    from cli_helpers import ROOT

    code = """
import numpy as np
from tape.calculus.derivatives import Component, recomputed
from tape.calculus.targets import expression_target
names = ["a", "b", "c", "d", "e1", "f"]
target = expression_target("sin(a*b + c*d + e1*f)*exp(a + b + c + d + e1 + f)/(1 + a^2)")
comps = [Component(n, i, None) for i, n in enumerate(names)]
arrays = [np.array([v]) for v in (0.1, 0.2, 0.3, 0.4, 0.5, 0.6)]
costly, cheap = (0, 1, 2, 3, 4, 5), (0, 1)
parts = {costly: np.array([-31.6]), cheap: np.array([1.0])}
left = recomputed(target, names, comps, arrays, parts, {costly: np.array([3.0]),
                                                        cheap: np.array([3.0])})
print(sorted(left), parts[cheap][0])
"""
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          cwd=ROOT, timeout=60)
    assert done.returncode == 0, done.stderr
    left, cheap = done.stdout.rsplit(" ", 1)
    assert left == "[(0, 1, 2, 3, 4, 5)]"            # still flagged, with its digits
    mpmath.mp.dps = 40
    f = lambda a, b: mpmath.sin(a * b + mpmath.mpf(0.3) * mpmath.mpf(0.4) +   # noqa: E731
                                mpmath.mpf(0.5) * mpmath.mpf(0.6)) * mpmath.exp(
        a + b + sum(map(mpmath.mpf, (0.3, 0.4, 0.5, 0.6)))) / (1 + a ** 2)
    true = mpmath.diff(f, (mpmath.mpf(0.1), mpmath.mpf(0.2)), (1, 1))
    assert float(cheap) == pytest.approx(float(true), rel=1e-12)
