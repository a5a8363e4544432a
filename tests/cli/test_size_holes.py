"""Inputs, most of them of extreme size, that used to hang, blow the memory budget or end in an
internal error: each is now answered within the budget or refused with exit 2 (see
docs/higher.md, "Memory on a budget")."""
from __future__ import annotations

import subprocess
import sys

import numpy as np
import pytest
from cli_helpers import ROOT, numbers, tape_capped

# a hang (or quadratic work) still runs past this; a machine busy with other jobs does not
WALL_SECONDS = 180


def test_a_csv_header_of_100000_columns_is_read_in_linear_time(tmp_path):
    # the check for repeated names compared every name with every other: 100,000 columns
    # took minutes before answering; a hang shows here as the timeout
    columns = 100_000
    path = tmp_path / "wide.csv"
    with open(path, "w") as f:
        f.write(",".join(f"c{i}" for i in range(columns)) + ",x\n")
        for value in (1, 2, 3):
            f.write("0," * columns + f"{value}\n")
    done = subprocess.run([sys.executable, "-m", "tape", "grad", "x^2", "--points", str(path),
                           "--format", "plain"], capture_output=True, text=True, cwd=ROOT,
                          timeout=WALL_SECONDS)
    assert done.returncode == 0, done.stderr
    assert numbers(done.stdout) == [[2.0], [4.0], [6.0]]


def test_a_repeated_name_among_100000_columns_is_still_named(tmp_path):
    path = tmp_path / "wide.csv"
    names = [f"c{i}" for i in range(100_000)] + ["x", "c7"]
    path.write_text(",".join(names) + "\n" + ",".join("1" for _ in names) + "\n")
    done = tape_capped("grad", "x^2", "--points", str(path), memory_mb=2048, timeout=WALL_SECONDS)
    assert done.returncode == 2
    assert "the header names 'c7' more than once" in done.stderr


#: the address space of a capped run: Python, NumPy and their libraries take ~300 MB of it
CAP_MB = 900


def test_plot_takes_the_grid_in_passes_that_fit_the_budget():
    # 3,000 terms at 5,000 grid points kept every op's values for the whole grid at once
    # (1.1 GB: a MemoryError, exit 70, under the cap); now the grid goes through in passes,
    # with the numbers of the polynomial
    coefficients = [k % 7 + 1 for k in range(3000)]
    powers = [k % 5 for k in range(3000)]
    text = "+".join(f"{c}*x^{p}" for c, p in zip(coefficients, powers))
    done = tape_capped("plot", text, "--range", "0:3", "--points", "5000", "--format", "plain",
                       "--memory", "128", memory_mb=CAP_MB, timeout=WALL_SECONDS)
    assert done.returncode == 0, done.stderr[-500:]
    rows = np.array(numbers(done.stdout))
    assert rows.shape == (5000, 3)
    x = rows[:, 0]
    assert np.allclose(x, np.linspace(0, 3, 5000), rtol=0, atol=1e-15)
    c, p = np.array(coefficients, dtype=float), np.array(powers)
    assert np.allclose(rows[:, 1], (c * x[:, None] ** p).sum(axis=1), rtol=1e-12)
    slope = (c * p * x[:, None] ** np.maximum(p - 1, 0)).sum(axis=1)
    assert np.allclose(rows[:, 2], slope, rtol=1e-12)


def test_a_jacobian_of_a_matrix_valued_script_is_taken_over_its_entries(tmp_path):
    # a script returning a matrix per point ended in exit 70 (the report expected (N, m));
    # its entries are the outputs, in row-major order
    script = tmp_path / "outer.py"
    script.write_text("import numpy as np\n\ndef f(x):\n    return np.outer(x, x)\n")
    points = [[1.0, 2.0, 3.0], [0.5, -1.5, 2.5]]
    for at in ([points[0]], points):          # one point (one call) and two (vectorized)
        args = sum((["--at", f"x=[{','.join(map(str, p))}]"] for p in at), [])
        done = tape_capped("jacobian", str(script), *args, "--format", "plain",
                           memory_mb=CAP_MB)
        assert done.returncode == 0, done.stderr[-500:]
        for row, p in zip(numbers(done.stdout), at):
            x = np.array(p)
            expected = np.zeros((3, 3, 3))      # d(x_i x_j)/dx_k
            for i in range(3):
                for j in range(3):
                    expected[i, j, i] += x[j]
                    expected[i, j, j] += x[i]
            h = 1e-6
            by_differences = np.stack([(np.outer(x + h * e, x + h * e) -
                                        np.outer(x - h * e, x - h * e)) / (2 * h)
                                       for e in np.eye(3)], axis=-1)
            assert np.allclose(expected, by_differences, atol=1e-8)
            assert np.allclose(row, expected.reshape(-1), rtol=0, atol=1e-12)


@pytest.mark.parametrize("answer, code", [("3*x^2*3000 + 3000", 0), ("3*x^2*3000", 1)])
def test_check_evaluates_a_sum_of_3000_terms_without_recursion(answer, code):
    # the high-precision evaluator nested one closure per binary op: a sum of 3,000 terms
    # passed Python's recursion limit (exit 70)
    text = "+".join(["x^3+x"] * 3000)
    done = tape_capped("check", text, "--answer", answer, memory_mb=CAP_MB, timeout=WALL_SECONDS)
    assert done.returncode == code, done.stderr[-500:]
    assert done.stdout.startswith("correct" if code == 0 else "wrong")


LOOP_SCRIPT = """
import numpy as np

def f(x):
    y = x
    for _ in range(600_000):
        y = y * 1.000001
    return y
"""


#: runs tape and then reports its peak resident size (VmHWM belongs to the program after
#: exec: the rusage of a child forked from a big pytest process counts the pages it had then)
PEAK_REPORTER = """
import runpy, sys
sys.argv = ["tape"] + sys.argv[1:]
try:
    runpy.run_module("tape", run_name="__main__")
finally:
    with open("/proc/self/status") as status:
        peak = [line.split()[1] for line in status if line.startswith("VmHWM:")][0]
    sys.stderr.write(f"\\npeak-kB {peak}\\n")
"""


def peak_rss_mb(args: list[str], input: str) -> tuple[int, str, float]:
    """Exit code, standard output and peak resident MB of ``python -m tape ARGS``."""
    done = subprocess.run([sys.executable, "-c", PEAK_REPORTER, *args], input=input,
                          capture_output=True, text=True, cwd=ROOT, timeout=120)
    peak = int(done.stderr.rsplit("peak-kB ", 1)[1].split()[0])
    return done.returncode, done.stdout, peak / 1024


def test_a_script_recording_600000_ops_at_several_points_stays_near_one_point(tmp_path):
    # the first vectorized pass took 64 points, with tracemalloc's record of every
    # allocation (twice the peak of one point under --memory 128 for 10^6 ops, gigabytes for more); now one point,
    # measured by the kernel's peak, sizes it, and points that do not fit two at a time go
    # one by one: the peak is what one point needs (about 150 MB here, over the budget by
    # itself) and no more
    script = tmp_path / "loop.py"
    script.write_text(LOOP_SCRIPT)
    args = ["grad", str(script), "--at", "-", "--format", "plain"]
    code, out, one_point = peak_rss_mb(args, "0.5\n")
    assert code == 0
    code, out, three_points = peak_rss_mb(args + ["--memory", "128"], "0.5\n1\n2\n")
    assert code == 0
    assert np.allclose(numbers(out), [[1.000001 ** 600_000]] * 3, rtol=1e-10)
    assert three_points < 1.3 * one_point, (three_points, one_point)


def test_a_long_input_is_measured_once_per_run(monkeypatch):
    # every block of a long --at - input re-measured a first pass under tracemalloc; the
    # cost per point measured by the first block now sizes the passes of the others
    from cli_helpers import tape_cli

    from tape.calculus import budget as B
    from tape.cli import points as P

    probes = []
    measured = B.measured

    def counted(fn):
        probes.append(1)
        return measured(fn)

    monkeypatch.setattr(B, "measured", counted)
    monkeypatch.setattr(P, "STREAM_BLOCK", 1000)
    xs = np.linspace(-2, 2, 5000)
    text = "\n".join(repr(float(x)) for x in xs) + "\n"
    result = tape_cli("grad", "x^2*sin(x)+exp(-x^2)", "--at", "-", "--format", "plain",
                      input=text)
    assert result.exit_code == 0, result.stderr
    assert len(probes) == 1
    slopes = np.array(numbers(result.stdout)).ravel()
    expected = 2 * xs * np.sin(xs) + xs ** 2 * np.cos(xs) - 2 * xs * np.exp(-xs ** 2)
    assert slopes.shape == (5000,) and np.allclose(slopes, expected, rtol=1e-13, atol=1e-15)


def test_one_long_line_of_points_is_refused_before_it_outgrows_the_smallest_budget():
    # a 60,000,000-character line was read and parsed whole (about 12 bytes a character:
    # 750 MB under --memory 128, past this cap); the line limit is now what the smallest
    # budget holds, and the line is refused as soon as it is longer
    from tape.cli import points as P

    done = tape_capped("grad", "x^2", "--at", "-", "--memory", "128",
                       input="1" * 60_000_000 + "\n", memory_mb=CAP_MB)
    assert done.returncode == 2 and done.stdout == ""
    assert done.stderr.startswith("error: standard input: a line longer than 8,388,608 "
                                  "characters"), done.stderr[-300:]
    assert P.MAX_LINE_CHARACTERS * 12 < 128 * 2**20


def test_third_partials_of_34_variables_are_right():
    # a code of each Taylor direction in base order + 1 overflowed 64 bits from 34 variables
    # at order 3, and 595 of the 7,140 partials were wrong (exit 0).
    # f = exp(sum v) * prod_{i<5} (1 + v_i) has the partial
    # exp(sum v) * prod_{i<5} (1 + v_i + a_i) for the multi-index a
    import itertools
    import math

    names = [f"a{i:02d}" for i in range(34)]
    text = f"exp({'+'.join(names)})*" + "*".join(f"(1+{n})" for n in names[:5])
    at = ",".join(f"{n}=0.01" for n in names)
    done = tape_capped("grad", text, "--at", at, "--order", "3", "--format", "plain",
                       memory_mb=CAP_MB, timeout=120)
    assert done.returncode == 0, done.stderr[-500:]
    (got,) = numbers(done.stdout)
    expected = []
    for multiset in itertools.combinations_with_replacement(range(34), 3):
        partial = math.exp(0.34)
        for i in range(5):
            partial *= 1.01 + multiset.count(i)
        expected.append(partial)
    assert len(got) == 7140
    assert np.allclose(got, expected, rtol=1e-10, atol=0)


def test_a_jacobian_of_more_than_a_billion_entries_is_refused_at_once():
    # 1,210,000 outputs by 1,100 components: the blocks of rows went on for days with no
    # output; now exit 2 naming the entries and the limit, before any derivative
    script = ROOT / "tests" / "cli" / "bad_input" / "outer_out.py"
    point = "x=[" + ",".join(["1"] * 1100) + "]"
    done = tape_capped("jacobian", str(script), "--at", point, "--format", "plain",
                       memory_mb=CAP_MB, timeout=WALL_SECONDS)
    assert done.returncode == 2 and done.stdout == ""
    assert "has 1,331,000,000 entries; the limit is 1,000,000,000" in done.stderr
