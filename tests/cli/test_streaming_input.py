"""Points from standard input and from files are read, evaluated and printed a block at a time:
an endless producer gets answers as it goes (and ``head`` ends the pipeline at once), a slow
one gets each line answered when it arrives, memory stays bounded, and the output of many
blocks is exactly the output of one."""
from __future__ import annotations

import os
import select
import subprocess
import sys
import time

import numpy as np
import pytest

from cli_helpers import ROOT, numbers, tape_cli, tape_process

from tape.cli import points as P

#: ulimit -v for the endless pipelines (KiB): reading all of an endless input would pass it
CAP_KB = 900 * 1024


def pipeline(command: str, timeout: float = 120) -> subprocess.CompletedProcess:
    """Run a shell pipeline with tape's address space capped; ``TAPE`` is ``python -m tape``."""
    tape = f"{sys.executable} -m tape"
    return subprocess.run(["bash", "-c", f"ulimit -v {CAP_KB}; {command.replace('TAPE', tape)}"],
                          capture_output=True, text=True, cwd=ROOT, timeout=timeout)


@pytest.mark.parametrize("command, first", [
    ("yes 1 | TAPE grad x --at - | head -1", "1.0"),
    ("yes 2 | TAPE grad 'x^2' --at - --format csv | head -2 | tail -1", "2.0,4.0,4.0"),
    ("(echo x; yes 3) | TAPE grad 'x^3' --points - | head -1", "27.0"),
    ("(echo x,y; yes 1,2) | TAPE jacobian 'x*y' 'x+y' --points - --format plain | head -1",
     "2.0 1.0 1.0 1.0"),
])
def test_an_endless_producer_is_answered_as_it_goes(command, first):
    result = pipeline(f"set -o pipefail; {command}; echo \"status ${{PIPESTATUS[1]}}\"")
    lines = result.stdout.splitlines()
    assert lines[0] == first, result.stderr[-500:]
    # tape ends quietly when head has gone: exit 0, or killed by SIGPIPE (128 + 13)
    assert lines[-1] in ("status 0", "status 141"), (lines[-1], result.stderr[-500:])
    assert "Traceback" not in result.stderr and "error" not in result.stderr


def test_an_endless_producer_is_answered_in_bounded_memory():
    # half a million answers in json: tape must have printed them before the input ended
    result = pipeline("yes 0.5,2 | TAPE grad 'x*y' --at - --format json | head -c 50000000 "
                      "| tail -c 200", timeout=300)
    assert '"gradient": {"x": 2.0, "y": 0.5}}' in result.stdout, result.stderr[-500:]
    assert "error" not in result.stderr


def test_a_slow_producer_gets_each_line_answered_when_it_arrives():
    proc = subprocess.Popen([sys.executable, "-m", "tape", "grad", "x^2", "--at", "-"],
                            stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, cwd=ROOT)
    try:
        answers = []
        for x in (3, 5):
            proc.stdin.write(f"{x}\n".encode())
            proc.stdin.flush()
            ready, _, _ = select.select([proc.stdout], [], [], 60)
            assert ready, "no answer while the producer waits"
            answers.append(proc.stdout.readline().decode().strip())
        proc.stdin.close()
        assert proc.wait(60) == 0
    finally:
        proc.kill()
        proc.wait()
    assert answers == ["6.0", "10.0"]


@pytest.mark.parametrize("fmt", ["plain", "csv", "json"])
@pytest.mark.parametrize("source", ["at", "points"])
def test_many_blocks_print_exactly_what_one_block_prints(fmt, source, monkeypatch):
    rng = np.random.default_rng(4)
    data = rng.uniform(-2, 2, (50, 2))
    data[7, 0] = data[31, 0] = 0.0          # log(0): non-finite in two different blocks
    body = "\n".join(f"{a!r},{b!r}" for a, b in data.tolist()) + "\n"
    if source == "at":
        args, text = ["--at", "-"], body
    else:
        args, text = ["--points", "-"], "x,y\n" + body
    command = ["grad", "log(x^2)*y", *args, "--format", fmt]
    one = tape_cli(*command, input=text)
    monkeypatch.setattr(P, "STREAM_BLOCK", 7)
    many = tape_cli(*command, input=text)
    assert one.exit_code == many.exit_code == 0
    assert many.stdout == one.stdout
    assert many.stderr == one.stderr
    assert "non-finite result (inf or nan) at 2 points, first at x=0.0" in many.stderr
    if fmt == "plain":
        x, y = data[:, 0], data[:, 1]
        with np.errstate(divide="ignore"):
            want = np.stack([2 * y / x, np.log(x * x)], axis=1)
        got = np.array(numbers(many.stdout))
        finite = np.ones(50, bool)
        finite[[7, 31]] = False
        np.testing.assert_allclose(got[finite], want[finite], rtol=1e-12)
        assert not np.isfinite(got[~finite]).all(axis=1).any()


def test_a_bad_line_in_a_later_block_is_named_by_its_line_number(monkeypatch):
    monkeypatch.setattr(P, "STREAM_BLOCK", 4)
    text = "".join(f"{i}\n" for i in range(10)) + "oops\n"
    result = tape_cli("grad", "x^2", "--at", "-", input=text)
    assert result.exit_code == 2
    assert "standard input line 11" in result.stderr
    csv = tape_cli("grad", "x^2", "--points", "-", input="x\n" + text)
    assert csv.exit_code == 2 and "row 12 column x" in csv.stderr


def test_blank_and_comment_lines_keep_later_line_numbers_and_values(monkeypatch):
    """Blocks of plain numbers (read whole) and blocks with comment lines (numbered
    line by line) mix: the values are every number's, in order, and a bad line is named by
    its line in the input."""
    monkeypatch.setattr(P, "STREAM_BLOCK", 3)
    lines = ["0.5", "1", "2", "# a comment", "# another", "3", "4", "5", "6", "\t7  ", "oops"]
    result = tape_cli("grad", "x^2", "--at", "-", "--format", "plain",
                      input="\n".join(lines[:-1]) + "\n")
    assert result.exit_code == 0, result.stderr
    xs = np.array([0.5, 1, 2, 3, 4, 5, 6, 7])
    np.testing.assert_array_equal(np.ravel(numbers(result.stdout)), 2 * xs)
    bad = tape_cli("grad", "x^2", "--at", "-", input="\n".join(lines) + "\n")
    assert bad.exit_code == 2 and "standard input line 11" in bad.stderr


def test_vector_points_must_keep_their_length_across_blocks(monkeypatch):
    monkeypatch.setattr(P, "STREAM_BLOCK", 2)
    text = "x=[1,2]\nx=[3,4]\nx=[5,6,7]\n"
    result = tape_cli("grad", "sum(x^2)", "--at", "-", input=text)
    assert result.exit_code == 2
    assert "line 3: 'x' is a vector of 3 here and a vector of 2 at the points before" \
        in result.stderr


def test_an_empty_stream_is_an_error_before_any_output():
    for args, text in ((["--at", "-"], "# nothing\n"), (["--points", "-"], "x\n")):
        result = tape_cli("grad", "x^2", *args, input=text)
        assert result.exit_code == 2 and result.stdout == ""
        assert "no points given" in result.stderr or "no rows after the header" in result.stderr


def test_line_ends_split_across_reads_are_one_line_end(tmp_path):
    # a file read a few bytes at a time meets "\r" and "\n" in different reads
    path = tmp_path / "p.csv"
    path.write_bytes(b"x,y\r\n" + b"".join(f"{i},{i + 1}\r\n".encode() for i in range(30)))
    monkey_reads = {"READ_BYTES": 7}
    saved = P.READ_BYTES
    try:
        P.READ_BYTES = monkey_reads["READ_BYTES"]
        with open(path, newline="", encoding="utf-8") as handle:
            pts = P.gather(P.stream_csv("-", ["x", "y"], handle, 5), ["x", "y"], "p")
    finally:
        P.READ_BYTES = saved
    assert pts.arrays["x"].tolist() == list(map(float, range(30)))
    assert pts.arrays["y"].tolist() == list(map(float, range(1, 31)))


# ------------------------------------------------------------------ long CSV fields
@pytest.mark.parametrize("field", ['"' + "a" * 200_000 + '"', "b" * 200_000])
def test_a_csv_field_over_131072_characters_is_read(field, tmp_path):
    path = tmp_path / "long.csv"
    path.write_text(f"x,y,note\n1,2,{field}\n3,4,short\n")
    result = tape_process("grad", "x*y", "--points", str(path), "--format", "plain")
    assert result.returncode == 0, result.stderr[-300:]
    assert numbers(result.stdout) == [[2.0, 1.0], [4.0, 3.0]]


def test_a_long_field_in_a_needed_column_is_an_error_not_a_crash(tmp_path):
    path = tmp_path / "long.csv"
    path.write_text("x\n" + "z" * 200_000 + "\n")
    result = tape_process("grad", "x^2", "--points", str(path))
    assert result.returncode == 2
    assert result.stderr.startswith("error: --points") and "Traceback" not in result.stderr


def test_reading_stdin_does_not_read_ahead_of_what_it_needs():
    # tape answers the first line of a pipe that stays open
    proc = subprocess.Popen([sys.executable, "-m", "tape", "grad", "x", "--at", "-"],
                            stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, cwd=ROOT)
    try:
        os.write(proc.stdin.fileno(), b"1\n")
        deadline = time.monotonic() + 60
        out = b""
        while b"\n" not in out and time.monotonic() < deadline:
            ready, _, _ = select.select([proc.stdout], [], [], 1)
            if ready:
                out += os.read(proc.stdout.fileno(), 100)
        assert out == b"1.0\n"
    finally:
        proc.kill()
        proc.wait()


# ------------------------------------------------------------------ endless lines
@pytest.mark.parametrize("command, where", [
    ("TAPE grad x --points /dev/zero", "--points /dev/zero"),
    ("head -c 200000000 /dev/zero | tr '\\0' 7 | TAPE grad x --at -", "standard input"),
    ("(echo x,y; head -c 200000000 /dev/zero | tr '\\0' 1) | TAPE grad 'x*y' --points -",
     "--points standard input"),
])
def test_a_line_without_end_is_refused_at_the_line_limit(command, where):
    # an endless line is never held whole (nor searched again at every read): it stops at
    # MAX_LINE_CHARACTERS with exit 2, well inside the address-space cap
    done = pipeline(command + "; echo exit=${PIPESTATUS[-1]}", timeout=60)
    assert "exit=2" in done.stdout, (done.stdout[-300:], done.stderr[-500:])
    assert done.stderr.startswith(f"error: {where}: a line longer than "
                                  f"{P.MAX_LINE_CHARACTERS:,} characters"), done.stderr[-500:]
    assert "Traceback" not in done.stderr


def test_a_line_split_over_many_reads_is_one_line(tmp_path, monkeypatch):
    # the unfinished line is kept in pieces across reads and joined once its end arrives
    path = tmp_path / "wide.csv"
    path.write_text("x,y,note\n1,2," + "n" * 5000 + "\n3,4,m\n")
    monkeypatch.setattr(P, "READ_BYTES", 64)
    with open(path, encoding="utf-8", newline="") as handle:
        pts = P.gather(P.stream_csv("-", ["x", "y"], handle), ["x", "y"], "--points")
    assert pts.arrays["x"].tolist() == [1.0, 3.0]
    assert pts.arrays["y"].tolist() == [2.0, 4.0]
