"""What a script prints after tape has handed it back control — from an ``atexit`` handler, or
from a thread it left running while tape writes the result — goes to standard error: standard
output stays exactly the result (one JSON document with ``--format json``)."""
from __future__ import annotations

import json

from cli_helpers import tape_process

AT_EXIT = """import atexit, os

atexit.register(lambda: print("printed at exit"))
atexit.register(lambda: os.write(1, b"written to descriptor 1 at exit\\n"))


def f(x):
    return x * x
"""

THREAD = """import atexit, threading, time

atexit.register(lambda: print("printed at exit"))


def _chatter():
    for _ in range(300):
        print("printed by a thread")
        time.sleep(0.001)


_started = []


def f(x):
    if not _started:
        _started.append(threading.Thread(target=_chatter))
        _started[0].start()
        time.sleep(0.01)
    return x * x
"""


def _document(p):
    assert p.returncode == 0, p.stderr[-2000:]
    assert "printed" not in p.stdout and "written" not in p.stdout
    return json.loads(p.stdout)


def test_atexit_output_goes_to_standard_error(tmp_path):
    script = tmp_path / "at_exit.py"
    script.write_text(AT_EXIT)
    p = tape_process("grad", str(script), "--at", "3", "--format", "json")
    assert _document(p)["points"][0]["gradient"] == {"x": 6.0}
    assert "printed at exit" in p.stderr and "written to descriptor 1 at exit" in p.stderr


def test_a_thread_left_running_cannot_write_into_the_result(tmp_path):
    script = tmp_path / "thread.py"
    script.write_text(THREAD)
    points = "".join(f"{i}\n" for i in range(60_000))
    p = tape_process("grad", str(script), "--at", "-", "--format", "json", input=points)
    doc = _document(p)
    assert len(doc["points"]) == 60_000 and doc["points"][-1]["gradient"] == {"x": 119998.0}
    assert p.stderr.count("printed by a thread") == 300 and "printed at exit" in p.stderr
    plain = tape_process("grad", str(script), "--at", "-", input=points)
    assert plain.returncode == 0 and "printed" not in plain.stdout
    assert plain.stdout.split() == [repr(2.0 * i) for i in range(60_000)]
