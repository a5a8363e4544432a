"""Engine benchmarks for issue 3's transforms: Jacobians (W5), n-th derivatives (W6), Hessians.

    python benchmarks/derivatives_bench.py

Medians of many ``time.perf_counter`` runs after a warm-up (small, fast calls: the median is
robust to the odd scheduler hiccup). Not a test: numbers depend on the machine.
"""
from __future__ import annotations

import os
import statistics
import time

for _var in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_var, "1")          # as the peer table: one thread, before NumPy loads

import numpy as np  # noqa: E402

import tape as tf  # noqa: E402


def median_us(fn, runs):
    fn()                                     # warm-up (imports, caches)
    times = []
    for _ in range(runs):
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    return statistics.median(times) * 1e6


def nested_tapes(f, x, order):
    """The n-th derivative the slow way, for comparison: one tape per order."""
    X = tf.constant(x)
    tapes = [tf.GradientTape() for _ in range(order)]
    for t in tapes:
        t.__enter__()
        t.watch(X)
    y = f(X)
    for t in reversed(tapes):
        t.__exit__(None, None, None)
        y = t.gradient(y, X)
    return y


def main():
    rows = []
    f = lambda x: tf.sin(x) * tf.exp(x)  # noqa: E731
    x = tf.constant(0.3)

    def gradient():
        with tf.GradientTape() as t:
            t.watch(x)
            y = f(x)
        return t.gradient(y, x)
    rows.append(("one gradient of sin(x)e^x", median_us(gradient, 3000)))
    for order in (6, 20):
        rows.append((f"W6 derivative order {order} (Taylor mode)",
                     median_us(lambda: tf.derivative(f, 0.3, order=order), 3000)))
    rows.append(("    order 6 by nested tapes", median_us(lambda: nested_tapes(f, 0.3, 6), 50)))
    xs = np.linspace(-1, 1, 10_000)
    rows.append(("derivative order 8 at 10,000 points", median_us(
        lambda: tf.derivative(lambda t: tf.exp(tf.sin(t)) / (1 + t * t), xs, order=8), 50)))
    for n in (200, 1000):
        rng = np.random.default_rng(0)
        A = tf.constant(rng.standard_normal((n, n)) / np.sqrt(n))
        v = tf.constant(rng.standard_normal(n))

        def jac():
            with tf.GradientTape() as t:
                t.watch(v)
                y = tf.tanh(tf.matmul(A, v))
            return t.jacobian(y, v)
        rows.append((f"W5 Jacobian of tanh(A@x), n={n}", median_us(jac, 200 if n == 200 else 10)))
    g = lambda t: tf.reduce_sum(tf.sin(t) * t ** 3)  # noqa: E731
    p = np.linspace(0, 1, 100)
    rows.append(("hessian, 100 variables", median_us(lambda: tf.hessian(g)(p), 200)))
    rows.append(("hvp, 100 variables", median_us(lambda: tf.hvp(g, p, np.ones(100)), 500)))
    width = max(len(name) for name, _ in rows)
    for name, us in rows:
        print(f"{name:<{width}}  {us:10.1f} us")


if __name__ == "__main__":
    main()
