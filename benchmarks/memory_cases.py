"""The memory cases of issue 17, as whole CLI processes: peak RSS (``os.wait4``) and time.

    python benchmarks/memory_cases.py            # every case, a table
    python benchmarks/memory_cases.py --only long-1e6

Each case writes its input under a temporary directory, runs ``python -m tape ...`` with output
to /dev/null, and reports the exit code, seconds and peak resident set size. ``run.py`` shows
the same cases as its "memory" rows.
"""
from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]


def long_expression(chars: int) -> str:
    """A sum of distinct terms in x and y, about ``chars`` characters long."""
    terms, length, k = [], 0, 0
    while length < chars:
        k += 1
        term = f"sin({k % 7 + 1}*x+y/{k})*exp(-{k % 5 + 1}*x^2/{k + 1})"
        terms.append(term)
        length += len(term) + 1
    return "+".join(terms)


def write_points(path: Path, n: int) -> None:
    data = np.random.default_rng(0).uniform(-1, 1, size=(n, 2))
    with open(path, "w") as f:
        f.write("x,y\n")
        np.savetxt(f, data, delimiter=",", fmt="%.6f")


def vector_point(k: int) -> str:
    return "x=[" + ",".join(str(i) for i in range(1, k + 1)) + "]"


MANY_VALUES_SCRIPT = '''import tape as tf


def f(x, y):
    k = tf.range(100000, dtype="float64")
    return tf.sin(x * k) + y
'''


HESSIAN_SCRIPT = '''import tape as tf


def f(x):
    return tf.reduce_sum(x**2) * x[0]


def two(x, y):
    return tf.reduce_sum(x**2) * y[0] + tf.reduce_sum(y**2) * x[0]
'''


#: the cases of a minute or more (left out of ``run.py --quick``)
SLOW_CASES = {"long-1e6", "hessian-8000-256", "hessian-16000"}


def two_vectors(k: int) -> str:
    """--at for ``two``: x and y of k components each."""
    return vector_point(k) + ",y=" + vector_point(k)[2:]


def cases(tmp: Path, million: bool = True) -> dict[str, list[str]]:
    """name -> tape arguments (inputs written to ``tmp`` when first needed; ``million``: also
    the 10^6-row CSV)."""
    path = tmp / "points_1e6.csv"
    if million and not path.exists():
        write_points(path, 1_000_000)
    script = tmp / "many_values.py"
    script.write_text(MANY_VALUES_SCRIPT)
    hessian = tmp / "hessian.py"
    hessian.write_text(HESSIAN_SCRIPT)
    return {
        "long-1e6": ["grad", long_expression(14_000), "--points", str(path)],
        "longer-1": ["grad", long_expression(97_000), "--at", "0.3,0.7"],
        "longer-1e4": ["grad", long_expression(97_000), "--at", "-",
                       "<", "1e4 lines"],
        "jacobian-2000": ["jacobian", "x*2", "--at", vector_point(2_000)],
        "jacobian-10000": ["jacobian", "x*2", "--at", vector_point(10_000)],
        "jacobian-10000-json": ["jacobian", "x*2", "--at", vector_point(10_000),
                                "--format", "json"],
        "script-100000-values": ["jacobian", str(script), "--at", "1,2"],
        # a Hessian streamed in row blocks keeps a quarter of itself to mirror: 16,000
        # components is about the most the default budget holds, 8,000 at --memory 256
        "hessian-2000": ["hessian", f"{hessian}:f", "--at", vector_point(2_000)],
        "hessian-2000-256": ["hessian", f"{hessian}:f", "--at", vector_point(2_000),
                             "--memory", "256"],
        "hessian-8000-256": ["hessian", f"{hessian}:f", "--at", vector_point(8_000),
                             "--memory", "256"],
        "hessian-16000": ["hessian", f"{hessian}:two", "--at", two_vectors(8_000)],
        "hessian-16400": ["hessian", f"{hessian}:two", "--at", two_vectors(8_200)],
    }


def measure(args: list[str], pythonpath: str | None = None,
            stdin_text: str | None = None) -> tuple[int, float, float, str]:
    """(exit code, seconds, peak RSS in MB, last line of standard error) of
    ``python -m tape *args`` (output discarded)."""
    env = dict(os.environ)
    if pythonpath:
        env["PYTHONPATH"] = pythonpath
    start = time.perf_counter()
    with tempfile.TemporaryFile() as stdin, tempfile.TemporaryFile() as stderr:
        if stdin_text is not None:
            stdin.write(stdin_text.encode())
            stdin.seek(0)
        plain = [] if "--format" in args else ["--format", "plain"]
        proc = subprocess.Popen([sys.executable, "-m", "tape", *args, *plain],
                                stdin=stdin if stdin_text is not None else subprocess.DEVNULL,
                                stdout=subprocess.DEVNULL, stderr=stderr, cwd=pythonpath or ROOT,
                                env=env)
        _, status, usage = os.wait4(proc.pid, 0)
        seconds = time.perf_counter() - start
        stderr.seek(0)
        last = stderr.read().decode(errors="replace").strip().splitlines()[-1:]
    return os.waitstatus_to_exitcode(status), seconds, usage.ru_maxrss / 1024, \
        (last[0][:100] if last else "")


def run_case(name: str, args: list[str], pythonpath: str | None = None):
    stdin_text = None
    if "<" in args:
        args = args[:args.index("<")]
        rng = np.random.default_rng(1)
        stdin_text = "".join(f"{a:.6f},{b:.6f}\n" for a, b in rng.uniform(-1, 1, (10_000, 2)))
    return measure(args, pythonpath, stdin_text)


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--only", action="append", help="a case name (repeatable)")
    parser.add_argument("--pythonpath", help="run another checkout's tape (its directory)")
    opts = parser.parse_args(argv)
    with tempfile.TemporaryDirectory() as tmp:
        table = cases(Path(tmp))
        for name, args in table.items():
            if opts.only and name not in opts.only:
                continue
            code, seconds, mb, said = run_case(name, args, opts.pythonpath)
            print(f"{name:22s} exit {code:3d}  {seconds:7.2f} s  {mb:8.0f} MB  {said}",
                  flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
