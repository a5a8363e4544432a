"""Threads differentiating at the same time, each with tensors of its own, get their own
gradients: nested, persistent and non-persistent tapes, variables and forward accumulators
entered and left by several threads at once, thousands of times."""
import threading
import traceback

import numpy as np

import tape as tf

THREADS = 4
ROUNDS = 1000       # per thread; each round enters four tapes and one accumulator


def _work(k, errors):
    rng = np.random.default_rng(k)
    try:
        for i in range(ROUNDS):
            a = float(rng.uniform(0.5, 1.5))
            x = tf.constant(a)
            with tf.GradientTape() as outer:            # nested: second derivative of x**31
                outer.watch(x)
                with tf.GradientTape() as inner:
                    inner.watch(x)
                    y = x ** 31
                dy = inner.gradient(y, x)
            d2y = outer.gradient(dy, x)
            assert np.isclose(float(dy), 31 * a ** 30, rtol=1e-12), (k, i, "first")
            assert np.isclose(float(d2y), 930 * a ** 29, rtol=1e-12), (k, i, "second")
            v = tf.Variable(a)
            with tf.GradientTape(persistent=True) as p:  # a variable, watched on first read
                z = tf.sin(v) * v
                z2 = z * 2.0
            g1, g2 = p.gradient(z, v), p.gradient(z2, v)
            assert np.isclose(float(g1), np.cos(a) * a + np.sin(a), rtol=1e-12), (k, i, "persistent")
            assert np.isclose(float(g2), 2 * float(g1), rtol=1e-12), (k, i, "persistent again")
            with tf.ForwardAccumulator(x, 1.0) as acc:
                w = tf.exp(x) * x
            assert np.isclose(float(acc.jvp(w)), np.exp(a) * (1 + a), rtol=1e-12), (k, i, "jvp")
    except Exception as exc:     # reported by the main thread, with where it happened
        errors.append(f"{exc!r}\n{traceback.format_exc()}")


def test_threads_keep_their_own_tapes():
    errors = []
    threads = [threading.Thread(target=_work, args=(k, errors)) for k in range(THREADS)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors, errors[0]


def test_a_tape_does_not_watch_variables_read_by_other_threads():
    v = tf.Variable(2.0)
    with tf.GradientTape() as t:
        seen = []
        worker = threading.Thread(target=lambda: seen.append(v * v))
        worker.start()
        worker.join()
        y = tf.constant(3.0) * 2.0
    assert t.watched_variables() == ()
    assert t.gradient(seen[0], v) is None
