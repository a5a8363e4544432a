"""Every size a user controls is checked against its limit before any work.

Each case runs ``tape`` as a real process with its address space capped at 400 MB
(``tape_capped``): a limit checked only after building what it limits shows up as a
MemoryError, exit 70 or a kill here, not as the exit-2 message that names the size and the
limit. The cases just inside a limit run under the same cap, so the limits are ones the
machine can actually honour.
"""
from __future__ import annotations

import json
import math

import pytest

from cli_helpers import tape_capped

CAP_MB = 400


def refused(*args: str, names: tuple[str, ...]) -> str:
    """Run capped; assert exit 2, one clean error line naming every string in ``names``."""
    p = tape_capped(*args, memory_mb=CAP_MB, timeout=60)
    assert p.returncode == 2, (p.returncode, p.stderr[-2000:])
    assert p.stdout == ""
    assert "Traceback" not in p.stderr and "internal error" not in p.stderr
    first = p.stderr.splitlines()[0]
    assert first.startswith("error: ")
    for text in names:
        assert text in first, first
    return first


def vector(n: int, value: str = "1") -> str:
    return "[" + ",".join([value] * n) + "]"


# ------------------------------------------------------------------ vector indices (symbolic)

@pytest.mark.parametrize("index", ["999999999", "-999999999", "10000"])
@pytest.mark.parametrize("extra", [(), ("--steps",)], ids=["diff", "steps"])
def test_diff_index_past_the_vector_limit_is_refused_before_symbols(index, extra):
    refused("diff", f"x[{index}]", *extra,
            names=(f"x[{index}]", "the limit is 10,000 components"))


def test_diff_index_within_the_limits_is_accepted():
    # x[199] makes 200 components: 200 partials, tape diff's limit
    p = tape_capped("diff", "x[199]^2", "--format", "json", memory_mb=CAP_MB, timeout=60)
    assert p.returncode == 0, p.stderr
    (by_component,) = json.loads(p.stdout)["derivative"].values()
    assert len(by_component) == 200
    assert by_component[199] == "2*x[199]" and set(by_component[:199]) == {"0"}


# ------------------------------------------------------------------ number of partials

@pytest.mark.parametrize("expression, order, count", [
    ("x[199]", "20", "10820905393777036173478835910"),   # vector components
    ("a*b*c*d*f*g*h", "20", "230230"),                    # scalar variables
    ("x[0]*x[1]*x[2]*x[3]*x[4]*x[5]*x[6]*x[7]*x[8]*x[9]", "5", "2002"),
])
def test_diff_partial_count_is_refused_before_listing_them(expression, order, count):
    refused("diff", expression, "--order", order,
            names=(count, "the limit for tape diff is 200"))


def test_diff_partials_just_under_the_limit_are_given():
    # 19 variables at order 2: 190 distinct partials (the limit is 200)
    p = tape_capped("diff", "x[18]^3", "--order", "2", "--format", "json",
                    memory_mb=CAP_MB, timeout=60)
    assert p.returncode == 0, p.stderr
    derivative = json.loads(p.stdout)["derivative"]
    assert len(derivative) == 190
    assert derivative["d2f/dx[18]2"] == "6*x[18]"
    assert derivative["d2f/dx[0]2"] == "0"


def test_grad_partials_over_the_limit_are_refused():
    refused("grad", "a*b*c*d*f*g", "--at", "1,2,3,4,5,6", "--order", "30",
            names=("324632", "the limit is 10000"))


def test_a_hessian_beyond_the_memory_budget_is_refused():
    # streamed a row block at a time, a 10,000 x 10,000 Hessian still keeps a quarter of
    # itself (8 bytes an entry, about 191 MB) to mirror: over half of a 256 MB budget
    refused("hessian", "sum(x)", "--at", "x=" + vector(10_000), "--memory", "256",
            names=("a Hessian of 10,000 by 10,000 components", "191 MB",
                   "the memory budget is 256 MB", "--memory"))


def test_vector_over_the_length_limit_is_refused():
    refused("grad", "sum(x)", "--at", "x=" + vector(60_000),
            names=("60,000 components", "the limit is 10,000"))


# ------------------------------------------------------------------ jacobian entries

@pytest.mark.parametrize("n, memory, how", [(10_000, None, "table"), (2_000, "128", "table"),
                                            (2_000, "128", "check")])
def test_a_jacobian_report_beyond_the_memory_budget_is_refused(n, memory, how):
    # plain, csv and json stream such a Jacobian (test_jacobian_stream.py); a table and
    # --check hold the whole report
    extra = ["--memory", memory] if memory else []
    extra += ["--format", "table"] if how == "table" else ["--check"]
    refused("jacobian", "x", "--at", "x=" + vector(n), *extra,
            names=(f"a report of {n * n + 2 * n:,} numbers at each of 1 point",
                   "the memory budget is"))


def test_a_500_by_500_jacobian_is_computed_under_the_cap():
    p = tape_capped("jacobian", "2*x", "--at", "x=" + vector(500, "0.5"), "--format", "json",
                    memory_mb=CAP_MB, timeout=120)
    assert p.returncode == 0, p.stderr[-2000:]
    doc = json.loads(p.stdout)
    (point,) = doc["points"]
    jac = point["jacobian"]
    assert len(jac) == 500 and all(len(row) == 500 for row in jac)
    assert all(jac[i][j] == (2.0 if i == j else 0.0) for i in (0, 7, 499) for j in range(500))


# ------------------------------------------------------------------ tape check --wrt

def test_check_wrt_list_is_an_order_and_bounded_like_one():
    refused("check", "x^2", "--answer", "0", "--wrt", ",".join(["x"] * 5000),
            names=("5000 differentiations", "the limit is 10"))
    refused("check", "x^2", "--answer", "0", "--wrt", ",".join(["x"] * 11),
            names=("11 differentiations",))
    p = tape_capped("check", "x^3*y", "--answer", "6", "--wrt", "x,x,x,y",
                    memory_mb=CAP_MB, timeout=60)
    assert p.returncode == 0, p.stderr


# ------------------------------------------------------------------ plot images

@pytest.mark.parametrize("suffix", ["png", "svg", "pdf"])
@pytest.mark.parametrize("size", [("20000", "20000"), ("8000", "3000"), ("4097", "4096")])
def test_image_over_the_pixel_limit_is_refused_before_drawing(tmp_path, suffix, size):
    pytest.importorskip("matplotlib")
    out = tmp_path / f"chart.{suffix}"
    width, height = size
    refused("plot", "sin(x)", "--out", str(out), "--width", width, "--height", height,
            names=(f"{width} x {height} pixels", "the limit is 16,777,216 pixels"))
    assert not out.exists()


def test_image_at_the_pixel_limit_is_drawn(tmp_path):
    pytest.importorskip("matplotlib")
    out = tmp_path / "chart.png"
    p = tape_capped("plot", "sin(x)", "--out", str(out), "--width", "4096", "--height", "4096",
                    memory_mb=CAP_MB, timeout=120)
    assert p.returncode == 0, p.stderr[-2000:]
    header = out.read_bytes()[:24]
    assert header[:8] == b"\x89PNG\r\n\x1a\n"
    assert int.from_bytes(header[16:20], "big") == 4096   # IHDR width
    assert int.from_bytes(header[20:24], "big") == 4096   # IHDR height


@pytest.mark.parametrize("fmt", ["csv", "plain"])
def test_plot_grid_and_order_at_their_limits_fit(fmt):
    # the numbers are written a block at a time (one string of every row took the cap)
    p = tape_capped("plot", "sin(x)", "--points", "100000", "--order", "30", "--format", fmt,
                    memory_mb=CAP_MB, timeout=120)
    assert p.returncode == 0, p.stderr[-2000:]
    lines = p.stdout.splitlines()
    assert len(lines) == 100_000 + (fmt == "csv")
    last = [float(v) for v in lines[-1].replace(",", " ").split()]
    assert len(last) == 32 and last[0] == 5.0
    assert abs(last[1] - math.sin(5.0)) < 1e-12 and abs(last[2] - math.cos(5.0)) < 1e-12
    refused("plot", "sin(x)", "--points", "100001", names=("100001", "100000"))
