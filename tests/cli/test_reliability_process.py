"""The ``tape`` process against what the user or the environment does to it: closed or full
standard streams, Ctrl-C at any moment from start-up on, and scripts that write to descriptor 1
behind tape's back. Every test runs a real process (the console script or ``python -m tape``)."""
import json
import os
import re
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from cli_helpers import ROOT

pytestmark = pytest.mark.skipif(not sys.platform.startswith("linux"),
                                reason="reads /proc and uses /dev/full")

CONSOLE_SCRIPT = Path(sys.executable).parent / "tape"
LAUNCHERS = {"python -m tape": [sys.executable, "-m", "tape"]}
if CONSOLE_SCRIPT.exists():
    LAUNCHERS["console script"] = [str(CONSOLE_SCRIPT)]

#: one invocation of every command (and of the help and version pages), each printing a result
EVERY_COMMAND = [
    ["--help"],
    ["--version"],
    ["grad", "--help"],
    ["grad", "x^2*y", "--at", "x=1,y=2"],
    ["jacobian", "[x*y, x+y]", "--at", "1,2"],
    ["hessian", "x^2*y", "--at", "x=1,y=2", "--format", "csv"],
    ["diff", "x^2*sin(x)"],
    ["check", "x^2", "--answer", "2x"],
    ["tangent", "x^2", "--at", "1"],
    ["taylor", "sin(x)", "--at", "0"],
    ["trace", "x^2*sin(x)", "--at", "1"],
    ["plot", "sin(x)", "--format", "csv"],
]

#: the commands that read many points (``--at -``, ``--points -``)
POINT_COMMANDS = [["grad", "x^2"], ["jacobian", "[x^2, 3x]"], ["hessian", "x^3"]]


def _ids(args):
    return " ".join(args)[:40]


def _run(args, *, close=(), stdout=subprocess.PIPE, stdin=subprocess.DEVNULL, input=None,
         launcher="python -m tape"):
    """Run tape with the standard descriptors in ``close`` closed (as ``>&-`` does)."""

    def close_fds() -> None:
        for fd in close:
            os.close(fd)

    return subprocess.run([*LAUNCHERS[launcher], *args], stdout=stdout, stderr=subprocess.PIPE,
                          stdin=stdin if input is None else None, input=input, cwd=ROOT,
                          preexec_fn=close_fds, timeout=180)


def _clean(stderr: bytes) -> str:
    text = stderr.decode(errors="replace")
    assert "Traceback" not in text and "internal error" not in text, text
    return text


# -- closed and full standard streams ------------------------------------------------------------
@pytest.mark.parametrize("args", EVERY_COMMAND, ids=_ids)
def test_a_closed_standard_output_is_an_error_not_a_bug(args):
    result = _run(args, close=[1], stdout=None)
    err = _clean(result.stderr)
    assert result.returncode == 2, err
    assert err.startswith("error: standard output is closed") or \
        "\nerror: standard output is closed" in err, err


@pytest.mark.parametrize("args", EVERY_COMMAND, ids=_ids)
def test_a_full_disk_is_an_error_not_a_bug(args):
    with open("/dev/full", "wb") as full:
        result = _run(args, stdout=full)
    err = _clean(result.stderr)
    assert result.returncode == 2, err
    assert "error: cannot write the result to standard output: No space left on device" in err
    assert err.count("error:") == 1, err      # said once, not again at exit


@pytest.mark.parametrize("args", POINT_COMMANDS, ids=_ids)
@pytest.mark.parametrize("how", ["--at", "--points"])
def test_a_closed_standard_input_is_named(args, how):
    result = _run([*args, how, "-"], close=[0], stdin=None)
    err = _clean(result.stderr)
    assert result.returncode == 2, err
    assert "error: standard input is closed" in err, err
    assert result.stdout == b""


def test_a_closed_standard_input_is_fine_when_not_read():
    result = _run(["grad", "x^2", "--at", "3"], close=[0], stdin=None)
    assert (result.returncode, result.stdout) == (0, b"6.0\n"), result.stderr


@pytest.mark.parametrize("args, code, shown", [
    (["grad", "x^2*y", "--at", "x=1,y=2"], 0, b"4.0 1.0\n"),
    (["grad", "cbrt(x)", "--at", "0"], 0, b"inf\n"),                     # with a warning
    (["check", "x^2", "--answer", "3x"], 1, b"x^2"),                      # a failed check
    (["grad", "x^2", "--check", "--at", "2"], 0, b"4.0\n"),
], ids=lambda v: _ids(v) if isinstance(v, list) else None)
def test_with_standard_error_closed_the_result_and_the_exit_code_stand(args, code, shown):
    result = _run(args, close=[2])
    assert result.returncode == code
    assert shown in result.stdout


def test_with_standard_error_closed_bad_input_still_exits_2():
    result = _run(["grad", "x^^2", "--at", "1"], close=[2])
    assert (result.returncode, result.stdout) == (2, b"")


def test_no_file_takes_the_number_of_a_closed_descriptor(tmp_path):
    """With descriptor 1 closed, a file tape opens would get number 1, and a script writing to
    descriptor 1 would write into it: the closed descriptors are held by /dev/null instead."""
    points = tmp_path / "points.csv"
    points.write_text("x\n1\n2\n")
    script = tmp_path / "f.py"
    script.write_text("import os\ndef f(x):\n    os.write(1, b'junk')\n    return x * x\n")
    result = _run(["grad", str(script), "--points", str(points)], close=[1], stdout=None)
    assert result.returncode == 2
    assert points.read_text() == "x\n1\n2\n"


# -- Ctrl-C from start-up on ---------------------------------------------------------------------
def _sigint_caught(pid: int) -> bool | None:
    """Whether process ``pid`` has a handler for SIGINT (None: it has gone)."""
    try:
        with open(f"/proc/{pid}/status") as f:
            for line in f:
                if line.startswith("SigCgt:"):
                    return bool(int(line.split()[1], 16) >> (signal.SIGINT - 1) & 1)
    except OSError:
        return None
    return None


def _start_and_reach_the_guard(argv):
    """Start ``argv`` and return it once tape's start-up guard is in place: SIGINT was caught
    (Python's handler, installed by the interpreter) and is no longer (tape's first line gave
    it its default action). Returns (process, whether NumPy was already loaded then); a
    poller that missed the short Python-handler phase is noticed (NumPy loaded) and retried."""
    for _ in range(12):     # on a loaded machine the poller may miss the short phase
        proc = subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE, cwd=ROOT)
        # a missed phase leaves SIGINT "not caught" for good: give up on this start after 5 s
        deadline = time.monotonic() + 5
        while _sigint_caught(proc.pid) is False and time.monotonic() < deadline:
            pass
        deadline = time.monotonic() + 30
        while _sigint_caught(proc.pid) and time.monotonic() < deadline:
            pass
        numpy_loaded = _numpy_loaded(proc.pid)
        if not numpy_loaded:
            return proc, False
        proc.kill()
        proc.communicate()
    return proc, numpy_loaded


def _numpy_loaded(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/maps") as f:
            return "numpy" in f.read()
    except OSError:
        return False


@pytest.mark.parametrize("launcher", sorted(LAUNCHERS))
@pytest.mark.parametrize("delay", [0.0, 0.02, 0.05, 0.1, 0.2, 0.3, 0.5])
def test_ctrl_c_at_any_moment_ends_with_130_and_no_traceback(launcher, delay):
    """Python's own start-up, before tape's first line, is out of tape's reach; from that line
    on (where tape gives SIGINT its default action, observed in /proc as "not caught"), Ctrl-C
    ends tape with 130 (or death by SIGINT, which a shell reports as 130) and at most one line,
    whether it lands in the imports, in the work or at the end."""
    proc, numpy_loaded = _start_and_reach_the_guard(
        # --simplify: SymPy's path, so that the work lasts past the longest delay
        [*LAUNCHERS[launcher], "diff", "(x+1)^20*sin(x)^9/(1+tan(x))^5", "--simplify"])
    guarded_before_numpy = not numpy_loaded
    time.sleep(delay)
    proc.send_signal(signal.SIGINT)
    _, err = proc.communicate(timeout=120)
    text = _clean(err)
    assert guarded_before_numpy, "SIGINT was still Python's when NumPy was loaded"
    assert proc.returncode in (130, -signal.SIGINT), (proc.returncode, text)
    assert len(text.splitlines()) <= 1, text


def test_an_ignored_sigint_stays_ignored():
    """A background job inherits SIGINT ignored: tape must not start reacting to it."""
    proc = subprocess.Popen([sys.executable, "-m", "tape", "grad", "x^2", "--at", "3"],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, cwd=ROOT,
                            preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_IGN))
    time.sleep(0.15)
    proc.send_signal(signal.SIGINT)
    out, err = proc.communicate(timeout=120)
    assert (proc.returncode, out) == (0, b"6.0\n"), err


# -- a script's writes to descriptor 1 never reach the result ------------------------------------
CHANNELS = {
    "os.write at import": "os.write(1, b'JUNK at import')\n",
    "sys.__stdout__ at import": "sys.__stdout__.write('JUNK at import')\n",
    "os.write in the call": "def _noise():\n    os.write(1, b'JUNK in the call')\n",
    "sys.__stdout__ in the call, unflushed": "def _noise():\n    sys.__stdout__.write('JUNK')\n",
    "print in the call": "def _noise():\n    print('JUNK', flush=True)\n",
    "a child process in the call": "def _noise():\n    subprocess.run(['echo', 'JUNK'])\n",
    "a late thread": ("def _noise():\n    def late():\n        time.sleep(0.4)\n"
                      "        os.write(1, b'JUNK late')\n        sys.__stdout__.write('JUNK')\n"
                      "    threading.Thread(target=late).start()\n"),
    "a daemon thread writing until the end": (
        "def _noise():\n    def forever():\n        while True:\n"
        "            os.write(1, b'JUNK')\n            time.sleep(0.002)\n"
        "    threading.Thread(target=forever, daemon=True).start()\n"),
    "atexit": "atexit.register(lambda: os.write(1, b'JUNK at exit'))\n",
    "closing descriptor 1": "def _noise():\n    os.close(1)\n",
}


def _script(tmp_path, noise: str) -> Path:
    script = tmp_path / "noisy.py"
    script.write_text("import atexit, os, subprocess, sys, threading, time\n" + noise +
                      ("" if "_noise" in noise else "def _noise():\n    pass\n") +
                      "def f(x, y):\n    _noise()\n    return x * x * y\n")
    return script


@pytest.mark.parametrize("channel", sorted(CHANNELS))
@pytest.mark.parametrize("command", [["grad"], ["hessian"], ["grad", "--check"]],
                         ids=" ".join)
def test_a_script_writing_to_descriptor_1_leaves_the_json_intact(tmp_path, channel, command):
    script = _script(tmp_path, CHANNELS[channel])
    result = _run([command[0], str(script), "--at", "x=3,y=2", "--format", "json",
                   *command[1:]])
    err = _clean(result.stderr)
    assert result.returncode == 0, err
    doc = json.loads(result.stdout)
    (point,) = doc["points"]
    if command[0] == "grad":
        assert point["gradient"] == {"x": 12.0, "y": 9.0}
    else:
        assert point["hessian"] == [[4.0, 6.0], [6.0, 0.0]]
    if channel != "closing descriptor 1":
        assert "JUNK" in err            # moved to standard error, not lost


@pytest.mark.parametrize("taken", ["sys.stdout.close()\nos.close(2)\n",
                                   "os.dup2(os.open('/', os.O_RDONLY), 2)\n"],
                         ids=["closed", "a directory"])
def test_a_script_that_takes_descriptor_2_at_import_still_gives_every_point(tmp_path, taken):
    # the script's stream on descriptor 2 is made again after it closed its own: making it
    # must not fail, whatever is (or is not) on descriptor 2
    script = tmp_path / "taker.py"
    script.write_text("import os, sys\n" + taken +
                      "def f(x):\n    print('to the closed stream')\n    return x * x\n")
    result = _run(["grad", f"{script}:f", "--at", "1", "--at", "2", "--format", "plain"])
    assert result.returncode == 0, _clean(result.stderr)
    assert result.stdout.split() == [b"2.0", b"4.0"]


def test_a_script_that_forks_does_not_run_tape_twice(tmp_path):
    script = tmp_path / "forks.py"
    script.write_text("import os\ndef f(x):\n    os.fork()\n    return x * x\n")
    result = _run(["grad", str(script), "--at", "3", "--format", "json"])
    assert result.returncode == 0, _clean(result.stderr)
    assert json.loads(result.stdout)["points"][0]["gradient"] == {"x": 6.0}


def test_a_script_that_changes_directory_does_not_move_tape(tmp_path):
    script = tmp_path / "moves.py"
    script.write_text("import os\nos.chdir('/')\ndef f(x):\n    os.chdir('/tmp')\n"
                      "    return x * x\n")
    work = tmp_path / "work"
    work.mkdir()
    result = subprocess.run([sys.executable, "-m", "tape", "trace", str(script), "--at", "3",
                             "--dot", "graph.dot"], capture_output=True, cwd=work,
                            env={**os.environ, "PYTHONPATH": str(ROOT)}, timeout=180)
    assert result.returncode == 0, _clean(result.stderr)
    assert (work / "graph.dot").read_text().startswith("digraph")


def test_a_script_that_ignores_ctrl_c_does_not_make_tape_ignore_it(tmp_path):
    script = tmp_path / "stubborn.py"
    script.write_text("import signal\nsignal.signal(signal.SIGINT, signal.SIG_IGN)\n"
                      "def f(x):\n    return x * x\n")
    stdin_points = "\n".join(str(i) for i in range(5)) + "\n"
    proc = subprocess.Popen([sys.executable, "-m", "tape", "grad", str(script), "--at", "-"],
                            stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, cwd=ROOT)
    proc.stdin.write(stdin_points.encode())
    proc.stdin.flush()              # standard input stays open: tape waits for more points
    time.sleep(3)
    proc.send_signal(signal.SIGINT)
    try:
        _, err = proc.communicate(timeout=30)
    finally:
        proc.kill()
    assert proc.returncode in (130, -signal.SIGINT), _clean(err)


def test_a_thread_left_by_the_first_of_many_calls_cannot_reach_the_result(tmp_path):
    """A script called once per point (it branches on the value) starts a writer thread in
    its first call: every later call and all of tape's output must stay clear of it."""
    script = tmp_path / "chatty.py"
    script.write_text(
        "import os, threading, time\n"
        "def _forever():\n    while True:\n        os.write(1, b'JUNK')\n        time.sleep(0.001)\n"
        "_started = []\n"
        "def f(x):\n    if not _started:\n        _started.append(1)\n"
        "        threading.Thread(target=_forever, daemon=True).start()\n"
        "    if x > 0:\n        return x * x\n    return -x\n")
    points = tmp_path / "points.csv"
    points.write_text("x\n" + "\n".join(str(i - 100) for i in range(300)) + "\n")
    result = _run(["grad", str(script), "--points", str(points), "--format", "json"])
    err = _clean(result.stderr)
    assert result.returncode == 0, err
    doc = json.loads(result.stdout)
    got = [p["gradient"]["x"] for p in doc["points"]]
    assert got == [2.0 * (i - 100) if i - 100 > 0 else -1.0 for i in range(300)]
    assert "JUNK" in err


# -- the red-team pass: scripts and environments that misbehave --------------------------------
@pytest.mark.parametrize("body, code, shown", [
    ("import os\ndef f(x):\n    os._exit(0)\n    return x\n", 2, "SystemExit: os._exit(0)"),
    ("import sys\ndef f(x):\n    sys.stdout.close()\n    return x * x\n", 0, ""),
    ("import sys\ndef f(x):\n    sys.stderr.close()\n    return x * x\n", 0, ""),
    ("import sys\nsys.stdout = None\ndef f(x):\n    return x * x\n", 0, ""),
    ("import os\ndef f(x):\n    os.close(2)\n    raise ValueError('boom')\n", 2,
     "ValueError: boom"),
    ("import os\nos.dup2(os.open(os.devnull, os.O_WRONLY), 2)\n"
     "def f(x):\n    raise ValueError('boom')\n", 2, "ValueError: boom"),
    ("import os\nos.environ['COLUMNS'] = '0'\ndef f(x):\n    return x * x\n", 0, ""),
    ("import sys\nsys.stdin.readline()\ndef f(x):\n    return x * x\n", 2,
     "the script reads standard input"),
    ("import os\ndef f(x):\n    if os.fork() == 0:\n        os._exit(0)\n    os.wait()\n"
     "    return x * x\n", 0, ""),
], ids=["os._exit", "closes sys.stdout", "closes sys.stderr", "sys.stdout None",
        "closes fd 2 then fails", "fd 2 to /dev/null then fails", "sets COLUMNS=0",
        "reads stdin", "forks, child calls os._exit"])
def test_a_script_cannot_silence_or_end_tape(tmp_path, body, code, shown):
    script = tmp_path / "odd.py"
    script.write_text(body)
    result = _run(["grad", str(script), "--at", "3", "--format", "table"])
    err = _clean(result.stderr)
    assert result.returncode == code, err
    if code == 0:
        assert re.search(r"\b6\b", result.stdout.decode()), result.stdout  # the table's df/dx
    else:
        assert shown in err and result.stdout == b""


def test_a_script_cannot_take_the_points_from_standard_input(tmp_path):
    script = tmp_path / "greedy.py"
    script.write_text("import sys\nFIRST = sys.stdin.readline()\ndef f(x):\n    return x * x\n")
    result = _run(["grad", str(script), "--at", "-"], input=b"1\n2\n3\n")
    assert result.returncode == 2           # not the derivative at 2 and 3 only, with exit 0
    assert "the script reads standard input" in _clean(result.stderr)


@pytest.mark.parametrize("env", [{"COLUMNS": "0"}, {"COLUMNS": "-3"}, {"COLUMNS": "wide"},
                                 {"LINES": "0"}, {"TERM": "dumb"}, {"NO_COLOR": "1"},
                                 {"PYTHONIOENCODING": "ascii"},
                                 {"LC_ALL": "C", "LANG": "C", "PYTHONUTF8": "0"}],
                         ids=lambda e: ",".join(f"{k}={v}" for k, v in e.items()))
@pytest.mark.parametrize("args", [["grad", "x^2*y", "--at", "x=3,y=2", "--format", "table"],
                                  ["diff", "sqrt(x)*y", "--wrt", "x", "--format", "table"]],
                         ids=lambda a: a[0])
def test_odd_terminal_settings_still_show_the_result(env, args):
    result = subprocess.run([sys.executable, "-m", "tape", *args], capture_output=True,
                            cwd=ROOT, env={**os.environ, **env}, timeout=180)
    _clean(result.stderr)
    assert result.returncode == 0, result.stderr
    out = result.stdout.decode("utf-8", errors="replace")
    if args[0] == "grad":
        assert re.search(r"\b12\b", out) and re.search(r"\b9\b", out), out
    else:
        assert "y" in out and re.search(r"sqrt|√|\\u221a", out), out


def test_a_script_that_ignores_sigterm_does_not_make_tape_ignore_it(tmp_path):
    script = tmp_path / "stubborn.py"
    script.write_text("import signal\nsignal.signal(signal.SIGTERM, signal.SIG_IGN)\n"
                      "def f(x):\n    return x * x\n")
    proc = subprocess.Popen([sys.executable, "-m", "tape", "grad", str(script), "--at", "-"],
                            stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, cwd=ROOT)
    time.sleep(3)                   # imported the script; now waiting for points on stdin
    proc.terminate()
    try:
        proc.communicate(timeout=30)
    finally:
        proc.kill()
    assert proc.returncode == -signal.SIGTERM
