"""How long a verdict takes over the corpus (not a test: run it by hand).

    python tests/cli/homework/timing.py            # check() in-process, SymPy imported once
    python tests/cli/homework/timing.py --cli      # the whole `tape check` command per pair
    python tests/cli/homework/timing.py --cli --against DIR   # and the tape source tree in DIR
                                                              # (e.g. an older commit, from
                                                              # `git archive REV | tar -x -C DIR`)

Prints the median, the 95th percentile and the maximum in seconds, and the slowest pairs. With
``--cli`` it also gives the CPU time (user + system, the process and its SymPy workers): on a
machine shared with other jobs the wall time swings with their load, the CPU time much less.
With ``--against`` both trees run each pair in turn, so they see the same load.
"""
from __future__ import annotations

import os
import resource
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
    from tape.expr.errors import CLIError
    from tape.grading.homework import check

    try:
        check(expression, answer, timeout=10.0, **options)
    except CLIError:
        pass


def _children_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def _command(expression, answer, options, tree=None) -> float:
    """Runs ``tape check`` once; returns its CPU seconds (with its workers)."""
    args = [sys.executable, "-m", "tape", "check", expression, "--answer", answer]
    for key, value in options.items():
        args += [f"--{key}"] if value is True else [f"--{key}", str(value)]
    env = dict(os.environ, **({"PYTHONPATH": str(tree)} if tree else {}))
    before = _children_cpu()
    subprocess.run(args, capture_output=True, check=False, env=env, cwd=tree or None)
    return _children_cpu() - before


def _summary(label: str, seconds: list[float]) -> str:
    seconds = sorted(seconds)
    p95 = seconds[min(len(seconds) - 1, round(0.95 * (len(seconds) - 1)))]
    return (f"{label}: median {statistics.median(seconds):.3f} s, 95th percentile {p95:.3f} s, "
            f"max {seconds[-1]:.3f} s")


def main() -> None:
    cli = "--cli" in sys.argv
    trees = [None]
    if "--against" in sys.argv:
        trees.append(Path(sys.argv[sys.argv.index("--against") + 1]).resolve())
    if not cli:
        import sympy  # noqa: F401  (imported once, as a long-lived process would)
    rows = list(_rows())
    wall = {t: [] for t in trees}
    cpu = {t: [] for t in trees}
    for row in rows:
        for tree in trees:
            start = time.perf_counter()
            used = _command(*row, tree=tree) if cli else _in_process(*row)
            wall[tree].append(time.perf_counter() - start)
            cpu[tree].append(used)
    for tree in trees:
        name = "this tree" if tree is None else str(tree)
        print(f"{len(rows)} verdicts ({'tape check' if cli else 'check()'}, {name})")
        print("  " + _summary("wall", wall[tree]))
        if cli:
            print("  " + _summary("cpu ", cpu[tree]))
        slowest = sorted(zip(wall[tree], rows), key=lambda item: -item[0])[:5]
        for t, row in slowest:
            print(f"    {t:.3f} s  {row[0]} | {row[1]} | {row[2]}")


if __name__ == "__main__":
    main()
