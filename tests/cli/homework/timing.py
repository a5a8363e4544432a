"""How long a verdict takes over the corpus (not a test: run it by hand).

    python tests/cli/homework/timing.py            # decide() in-process, SymPy imported once
    python tests/cli/homework/timing.py --cli      # the whole `tape check` command per pair

Prints the median, the 95th percentile and the maximum in seconds, and the slowest pairs.
"""
from __future__ import annotations

import statistics
import subprocess
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from corpus import RIGHT, WRONG  # noqa: E402


def _rows():
    for expression, answer, options in RIGHT:
        yield expression, answer, options
    for expression, answer, options, _ in WRONG:
        yield expression, answer, options


def _in_process(expression, answer, options):
    from tape.cli.errors import CLIError
    from tape.cli.homework import decide

    try:
        decide(expression, answer, timeout=10.0, **{"wrt": None, "order": 1, **options})
    except CLIError:
        pass


def _command(expression, answer, options):
    args = [sys.executable, "-m", "tape", "check", expression, "--answer", answer]
    for key, value in options.items():
        args += [f"--{key}"] if value is True else [f"--{key}", str(value)]
    subprocess.run(args, capture_output=True, check=False)


def main() -> None:
    run = _command if "--cli" in sys.argv else _in_process
    if run is _in_process:
        import sympy  # noqa: F401  (imported once, as a long-lived process would)
    times = []
    for row in _rows():
        start = time.perf_counter()
        run(*row)
        times.append((time.perf_counter() - start, row))
    seconds = sorted(t for t, _ in times)
    p95 = seconds[min(len(seconds) - 1, round(0.95 * (len(seconds) - 1)))]
    print(f"{len(seconds)} verdicts ({'tape check' if run is _command else 'decide()'}): "
          f"median {statistics.median(seconds):.3f} s, 95th percentile {p95:.3f} s, "
          f"max {seconds[-1]:.3f} s")
    for t, row in sorted(times, key=lambda item: -item[0])[:5]:
        print(f"  {t:.3f} s  {row[0]} | {row[1]} | {row[2]}")


if __name__ == "__main__":
    main()
