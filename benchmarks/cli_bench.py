"""Command-line benchmarks: start-up time and 100,000 points in one pass.

    python benchmarks/cli_bench.py            # prints a small table of best-of-N wall times

Not a timed test: numbers depend on the machine. Start-up is measured for a typical pipeline
call (``tape grad "2*x**3+4*x**2" --at 0.5``) next to bare ``python`` and ``import tape`` so the
CLI's own share is visible; the batch runs feed 100,000 points on standard input.
"""
from __future__ import annotations

import subprocess
import sys
import tempfile
import time

REPEAT = 7


def best(argv: list[str], stdin_path: str | None = None) -> float:
    """Best wall time of ``REPEAT`` runs, in seconds."""
    times = []
    for _ in range(REPEAT):
        stdin = open(stdin_path) if stdin_path else subprocess.DEVNULL
        start = time.perf_counter()
        subprocess.run(argv, stdin=stdin, stdout=subprocess.DEVNULL, check=True)
        times.append(time.perf_counter() - start)
        if stdin_path:
            stdin.close()
    return min(times)


def main() -> None:
    py = sys.executable
    tape = [py, "-m", "tape"]
    with tempfile.NamedTemporaryFile("w", suffix=".txt", delete=False) as handle:
        handle.write("\n".join(repr(i / 50_000 - 1) for i in range(100_000)))
        one_column = handle.name
    with tempfile.NamedTemporaryFile("w", suffix=".txt", delete=False) as handle:
        handle.write("\n".join(f"{i / 50_000 - 1!r},{i / 100_000!r}" for i in range(100_000)))
        two_columns = handle.name
    cases = [
        ("python -c pass", [py, "-c", "pass"], None),
        ("python -c 'import tape'", [py, "-c", "import tape"], None),
        ("tape grad '2*x**3+4*x**2' --at 0.5", tape + ["grad", "2*x**3+4*x**2", "--at", "0.5"],
         None),
        ("100k points: grad polynomial, plain", tape + ["grad", "2*x**3+4*x**2+5*x+6", "--at",
                                                        "-"], one_column),
        ("100k points: grad sin(x*y)+x^2*y, plain",
         tape + ["grad", "sin(x*y)+x^2*y", "--at", "-"], two_columns),
        ("100k points: grad sin(x*y)+x^2*y, json",
         tape + ["grad", "sin(x*y)+x^2*y", "--at", "-", "-f", "json"], two_columns),
        ("100k points: hessian sin(x*y)+x^2*y, plain",
         tape + ["hessian", "sin(x*y)+x^2*y", "--at", "-"], two_columns),
    ]
    width = max(len(name) for name, _, _ in cases)
    for name, argv, stdin in cases:
        print(f"{name:<{width}}  {best(argv, stdin) * 1000:7.0f} ms", flush=True)


if __name__ == "__main__":
    main()
