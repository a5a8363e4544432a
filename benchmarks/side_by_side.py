"""Two versions of `tape` timed side by side in one process, for changes on the hot path.

    python benchmarks/side_by_side.py /work/main .          # W1, W2 and their PyTorch-style rows
    python benchmarks/side_by_side.py /work/main . --only W1 --rounds 40

Each argument is a checkout (a directory holding `tape/`). Both packages are copied into a
temporary directory as `tape_a` and `tape_b` (every import inside `tape` is relative, so the
copies are independent) and imported into this process; the workloads of both then take turns
in interleaved rounds, timed in CPU time. On a shared machine whose load swings, a ratio taken
round by round is far steadier than two `run.py` runs minutes apart: neighbours slow both sides
of a round alike. Prints, per workload, the min and median of the rounds for each side and the
median of the per-round ratios b / a. Results are checked before timing.
"""
from __future__ import annotations

import argparse
import importlib
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

W1_AT, W1_EXPECTED = 0.5, 10.5


def poly(x):
    return 2 * x**3 + 4 * x**2 + 5 * x + 6


def chain(x, sin):              # W2: 1000 ops
    for _ in range(250):
        s = sin(x)
        s = s * 0.01
        x = x + s
        x = x - 0.001
    return x


def workloads(tf, tt):
    """name -> (callable, calls per sample, ops per call)."""
    x = tf.Variable(np.float64(W1_AT))

    def w1():
        with tf.GradientTape() as t:
            y = poly(x)
        return t.gradient(y, x)

    def w2():
        with tf.GradientTape() as t:
            y = chain(x, tf.sin)
        return t.gradient(y, x)

    xt = tt.tensor(W1_AT, requires_grad=True)
    return {"W1": (w1, 2000, 1), "W1 torch": (lambda: tt.autograd.grad(poly(xt), xt)[0], 2000, 1),
            "W2": (w2, 20, 1000),
            "W2 torch": (lambda: tt.autograd.grad(chain(xt, tt.sin), xt)[0], 20, 1000)}


def load(checkout: Path, name: str, into: Path):
    shutil.copytree(checkout / "tape", into / name,
                    ignore=shutil.ignore_patterns("__pycache__"))
    return importlib.import_module(name), importlib.import_module(name + ".torch")


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("a", type=Path, help="checkout A (the baseline)")
    parser.add_argument("b", type=Path, help="checkout B")
    parser.add_argument("--only", default="W1,W1 torch,W2,W2 torch",
                        help="comma-separated workloads (default: all four)")
    parser.add_argument("--rounds", type=int, default=25)
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory() as tmp:     # (kept while timing: tape imports lazily)
        sys.path.insert(0, tmp)
        sides = [workloads(*load(args.a.resolve(), "tape_a", Path(tmp))),
                 workloads(*load(args.b.resolve(), "tape_b", Path(tmp)))]
        return compare(sides, args)


def compare(sides, args) -> int:
    names = [n.strip() for n in args.only.split(",")]
    for name in names:
        for side in sides:
            f, _, per = side[name]
            expected = W1_EXPECTED if per == 1 else None
            got = float(f())
            if expected is not None and got != expected or not np.isfinite(got):
                print(f"{name}: wrong result {got}", file=sys.stderr)
                return 1
            for _ in range(100 if per == 1 else 2):
                f()
    samples = {name: ([], []) for name in names}
    for _ in range(args.rounds):
        for name in names:
            for k, side in enumerate(sides):
                f, n, per = side[name]
                start = time.process_time()
                for _ in range(n):
                    f()
                samples[name][k].append((time.process_time() - start) / n / per * 1e6)
    for name in names:
        a, b = samples[name]
        ratio = statistics.median(y / x for x, y in zip(a, b))
        unit = "us" if sides[0][name][2] == 1 else "us/op"
        print(f"{name:9s} a: min {min(a):7.2f} median {statistics.median(a):7.2f} {unit} | "
              f"b: min {min(b):7.2f} median {statistics.median(b):7.2f} {unit} | "
              f"b/a median {ratio:.3f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
