"""``--format ndjson`` (SPEC 14): one JSON object per point, written as it is computed, with the
numbers JSON lacks as the strings "inf", "-inf", "nan" (in json too, never null)."""
from __future__ import annotations

import json
import math
import os
import select
import subprocess
import sys
import time

import pytest

from cli_helpers import ROOT, central_difference, tape_cli


def objects(text: str) -> list[dict]:
    lines = text.splitlines()
    assert all(line.startswith("{") and line.endswith("}") for line in lines), text
    return [json.loads(line) for line in lines]


def test_grad_writes_one_object_per_point():
    xs = [0.5, -1.25, 3.0]
    result = tape_cli("grad", "sin(x)*x", "--at", "-", "--format", "ndjson",
                      input="".join(f"{x}\n" for x in xs))
    assert result.exit_code == 0, result.stderr
    got = objects(result.stdout)
    assert [o["at"]["x"] for o in got] == xs
    for o, x in zip(got, xs):
        assert o["value"] == pytest.approx(math.sin(x) * x, rel=1e-14)
        assert o["gradient"]["x"] == pytest.approx(
            central_difference(lambda t: math.sin(t) * t, [x], 0), rel=1e-7)


def test_non_finite_numbers_are_strings_never_null():
    result = tape_cli("grad", "log(x)", "--at", "-", "--format", "ndjson",
                      input="0\n-1\n1\n")
    got = objects(result.stdout)
    assert [o["value"] for o in got] == ["-inf", "nan", 0.0]
    assert [o["gradient"]["x"] for o in got] == ["inf", -1.0, 1.0]
    assert "null" not in result.stdout
    doc = json.loads(tape_cli("grad", "log(x)", "--at", "0", "--format", "json").stdout)
    assert doc["points"][0]["value"] == "-inf" and doc["points"][0]["gradient"]["x"] == "inf"


def test_jacobian_and_hessian_rows():
    jac = objects(tape_cli("jacobian", "[x*y, 1/x]", "--at", "1,2", "--at", "0,1",
                           "--format", "ndjson").stdout)
    assert jac[0] == {"at": {"x": 1.0, "y": 2.0}, "value": [2.0, 1.0],
                      "jacobian": [[2.0, 1.0], [-1.0, 0.0]]}
    assert jac[1]["value"] == [0.0, "inf"] and jac[1]["jacobian"][1][0] == "-inf"
    hes = objects(tape_cli("hessian", "x^3*y", "--at", "1,2", "--format", "ndjson").stdout)
    assert hes == [{"at": {"x": 1.0, "y": 2.0}, "value": 2.0,
                    "hessian": [[12.0, 3.0], [3.0, 0.0]]}]


def test_ndjson_is_the_points_of_the_json_document():
    args = ["grad", "x^2*y+exp(y)", "--at", "1,2", "--at", "-3,0.5", "--order", "2"]
    doc = json.loads(tape_cli(*args, "--format", "json").stdout)
    assert objects(tape_cli(*args, "--format", "ndjson").stdout) == doc["points"]


def test_a_checked_report_is_one_object_per_point():
    got = objects(tape_cli("grad", "x^3", "--at", "1", "--at", "2", "--check",
                           "--format", "ndjson").stdout)
    assert [o["check"]["agree"] for o in got] == [True, True]
    assert [o["gradient"]["x"] for o in got] == [3.0, 12.0]


def test_a_slow_producer_gets_each_object_before_its_input_ends():
    """A producer writes a line, then sleeps: each object arrives while the producer is still
    running (before the input ends), in input order. Not a timing bar: only the order of
    events is asserted."""
    producer_code = ("import sys, time\n"
                     "for i in range(1, 6):\n"
                     "    print(i, flush=True)\n"
                     "    time.sleep(0.6)\n")
    producer = subprocess.Popen([sys.executable, "-c", producer_code], stdout=subprocess.PIPE)
    tape = subprocess.Popen([sys.executable, "-m", "tape", "grad", "x^2", "--at", "-",
                             "--format", "ndjson"], stdin=producer.stdout,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, cwd=ROOT)
    producer.stdout.close()     # tape holds the pipe's read end now
    got, running = [], []
    try:
        fd = tape.stdout.fileno()
        buffer = b""
        deadline = time.monotonic() + 120
        while len(got) < 5 and time.monotonic() < deadline:
            ready, _, _ = select.select([fd], [], [], 1.0)
            if not ready:
                continue
            chunk = os.read(fd, 65536)
            if not chunk:
                break
            buffer += chunk
            while b"\n" in buffer:
                line, buffer = buffer.split(b"\n", 1)
                got.append(json.loads(line))
                running.append(producer.poll() is None)
    finally:
        producer.wait(timeout=60)
        tape.wait(timeout=60)
    assert [o["at"]["x"] for o in got] == [1.0, 2.0, 3.0, 4.0, 5.0], tape.stderr.read()
    assert [o["gradient"]["x"] for o in got] == [2.0, 4.0, 6.0, 8.0, 10.0]
    # every object but the last arrived while the producer was still writing (sleeping)
    assert all(running[:4]), running
    assert tape.returncode == 0
