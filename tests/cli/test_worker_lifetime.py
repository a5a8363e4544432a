"""The SymPy worker of ``tape diff`` / ``--check`` never outlives the ``tape`` process that
started it, however that process ends (signals, Ctrl-C), and Ctrl-C ends both quietly."""
import os
import signal
import subprocess
import sys
import time

import pytest

pytestmark = pytest.mark.skipif(not sys.platform.startswith("linux"),
                                reason="reads /proc and relies on Linux's parent-death signal")

# SymPy spends well over a minute trying to simplify this derivative.
SLOW = "(x+1)^50*(sin(x)+cos(x))^30/(1+tan(x))^20+exp(sin(x)^3)/(x^2+1)^9"


def _in_session(sid):
    """Live processes of session ``sid`` (tape is started as a session leader, and its workers
    inherit the session wherever they are reparented to)."""
    found = []
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat") as f:
                fields = f.read().rsplit(")", 1)[1].split()
        except OSError:
            continue
        if int(fields[3]) == sid and fields[0] != "Z":
            found.append(int(entry))
    return found


def _alive(pid):
    try:
        with open(f"/proc/{pid}/stat") as f:
            return f.read().rsplit(")", 1)[1].split()[0] != "Z"
    except OSError:
        return False


def _start(args):
    proc = subprocess.Popen([sys.executable, "-m", "tape", *args], stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, start_new_session=True)
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        workers = [p for p in _in_session(proc.pid) if p != proc.pid]
        if workers:
            time.sleep(1.5)     # past the quick first worker (differentiation): into simplify
            return proc, [p for p in _in_session(proc.pid) if p != proc.pid]
        if proc.poll() is not None:
            pytest.fail(f"tape ended before starting its worker: {proc.communicate()}")
        time.sleep(0.05)
    proc.kill()
    pytest.fail("no SymPy worker appeared within 60 s")


def _gone_within(pids, seconds):
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if not any(_alive(p) for p in pids):
            return True
        time.sleep(0.05)
    return False


@pytest.mark.parametrize("sig", [signal.SIGKILL, signal.SIGTERM, signal.SIGHUP])
# --simplify: tape diff's own rules answer SLOW at once, without a worker; SymPy's path has one
@pytest.mark.parametrize("command", [["diff", SLOW, "--simplify", "--timeout", "120"],
                                     ["grad", SLOW, "--at", "0.3", "--check", "--timeout", "120"]])
def test_worker_dies_with_its_parent(command, sig):
    proc, workers = _start(command)
    os.kill(proc.pid, sig)
    proc.wait(timeout=10)
    assert workers
    try:
        assert _gone_within(_in_session(proc.pid), 5), \
            f"worker(s) {_in_session(proc.pid)} outlived tape after {sig.name}"
    finally:
        for p in _in_session(proc.pid):
            os.kill(p, signal.SIGKILL)


def test_ctrl_c_ends_both_with_130_and_one_line():
    proc, workers = _start(["diff", SLOW, "--simplify", "--timeout", "120"])
    os.killpg(proc.pid, signal.SIGINT)      # as a terminal does: the whole process group
    out, err = proc.communicate(timeout=10)
    assert proc.returncode == 130
    text = err.decode()
    assert "Traceback" not in text and "Process ForkProcess" not in text, text
    assert len(text.strip().splitlines()) <= 1, text
    assert workers and _gone_within(_in_session(proc.pid), 5)
