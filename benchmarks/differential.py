"""The long differential run: tape's derivatives vs SymPy's exact ones, evaluated in mpmath.

    python benchmarks/differential.py --n 20000 [--seed 1] [--depth 6] [--jobs 2]

Prints "N/M agree within 1e-09 relative, worst relative error ..." and lists every
disagreement (unexplained ones first). Exit status 1 when there is an unexplained disagreement.
The generator and the comparison are the test suite's (tests/differential/exprgen.py and
reference.py); the quick version runs in pytest (tests/differential/test_differential.py).
"""
from __future__ import annotations

import argparse
import math
import os
import random
import signal
import sys
import time
from concurrent.futures import ProcessPoolExecutor

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "tests", "differential"))

import reference as R  # noqa: E402
from exprgen import Generator  # noqa: E402


class SymbolicTooSlow(Exception):
    pass


def _alarm(signum, frame):
    raise SymbolicTooSlow()


#: seconds one expression (with its Jacobian partner) may take; SymPy's diff of a deep product
#: can blow up. Such expressions are counted as skipped, not as agreements.
PER_EXPRESSION = 60


def run_chunk(args):
    seed, count, depth = args
    gen = Generator(seed, max_depth=depth)
    rng = random.Random(seed)
    cases, errors, skipped = [], [], []
    signal.signal(signal.SIGALRM, _alarm)
    for i in range(count):
        try:
            g = gen.expression()
        except Exception as exc:  # a generator bug: report it, keep going
            errors.append(f"generator (chunk seed {seed}, expression {i}): "
                          f"{type(exc).__name__}: {exc}")
            continue
        partners = [gen.expression() for _ in range(rng.randint(2, 3))] if i % 5 == 0 else []
        found = []
        signal.alarm(PER_EXPRESSION)
        try:
            found += R.compare(g, rng, n_points=2, hessian=(i % 2 == 0))
            if partners:
                found += R.compare_jacobian(partners, rng)
        except SymbolicTooSlow:
            skipped.append(g.text)
            continue
        except Exception as exc:  # a crash is a finding too: report it, keep going
            errors.append(f"{g.text}: {type(exc).__name__}: {exc}")
        finally:
            signal.alarm(0)
        cases += found
    bad = [c for c in cases if not c.agrees]
    return len(cases), bad, max((c.error for c in cases if not c.ill_conditioned),
                                default=0.0), errors, count, skipped


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n", type=int, default=2000, help="number of expressions")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--depth", type=int, default=6, help="maximum expression depth")
    parser.add_argument("--jobs", type=int, default=os.cpu_count() or 1)
    parser.add_argument("--chunk", type=int, default=100)
    args = parser.parse_args(argv)

    chunks = [(args.seed * 1_000_003 + k, min(args.chunk, args.n - start), args.depth)
              for k, start in enumerate(range(0, args.n, args.chunk))]
    started = time.time()
    total, bad, worst, errors, done, skipped = 0, [], 0.0, [], 0, []
    with ProcessPoolExecutor(max_workers=args.jobs) as pool:
        for n, b, w, e, c, sk in pool.map(run_chunk, chunks):
            skipped += sk
            total += n
            bad += b
            worst = max(worst, w)
            errors += e
            done += c
            for case in b:
                if not case.ill_conditioned:
                    print(f"  UNEXPLAINED: {case.what} of {case.expression} at {case.point}: "
                          f"tape {case.got!r}, exact {case.exact!r}, error {case.error:.3g} "
                          f"(float64 formula: {case.naive_error:.3g})", file=sys.stderr,
                          flush=True)
            print(f"{done}/{args.n} expressions, {total - len(bad)}/{total} agree, "
                  f"{sum(not c.ill_conditioned for c in bad)} unexplained, worst relative error "
                  f"{worst:.3g} on well-conditioned inputs", file=sys.stderr, flush=True)
    unexplained = [c for c in bad if not c.ill_conditioned]
    explained = [c for c in bad if c.ill_conditioned]
    worst_all = max((c.error for c in bad), default=worst)
    print(f"{total - len(bad)}/{total} agree within {R.RTOL:g} relative "
          f"({args.n} expressions, depth <= {args.depth}, seed {args.seed}), "
          f"worst relative error {worst:.3g} on well-conditioned inputs; "
          f"{len(unexplained)} unexplained disagreements, {len(explained)} at ill-conditioned "
          f"points (worst {worst_all:.3g}); {len(errors)} crashes; "
          f"{len(skipped)} expressions skipped (SymPy over {PER_EXPRESSION} s); "
          f"{time.time() - started:.0f} s; SymPy lowering: {R.LOWERING}")
    for c in unexplained + explained[:20]:
        tag = "UNEXPLAINED" if not c.ill_conditioned else "ill-conditioned"
        print(f"  {tag}: {c.what} of {c.expression} at {c.point}: tape {c.got!r}, "
              f"exact {c.exact!r}, error {c.error:.3g} (float64 formula: {c.naive_error:.3g})")
    for e in errors:
        print(f"  CRASH: {e}")
    return 1 if unexplained or errors else 0


if __name__ == "__main__":
    sys.exit(main())
