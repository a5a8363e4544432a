"""Threads differentiating at the same time, each with tensors of its own, get their own
gradients: nested, persistent and non-persistent tapes, variables and forward accumulators
entered and left by several threads at once, thousands of times."""
import sys
import threading
import traceback

import numpy as np
import pytest

import tape as tf

THREADS = 4
ROUNDS = 1000       # per thread; each round enters four tapes and one accumulator


@pytest.fixture(autouse=True)
def _switch_threads_often():
    # CPython switches threads every 5 ms by default: far longer than one tape's life here, so
    # races between threads would hide; 10 us makes threads interleave inside every tape
    before = sys.getswitchinterval()
    sys.setswitchinterval(1e-5)
    yield
    sys.setswitchinterval(before)


def _work(k):
    rng = np.random.default_rng(k)
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


def test_threads_keep_their_own_tapes():
    _run_threads(_work, THREADS)


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


def _run_threads(target, n):
    errors = []
    barrier = threading.Barrier(n)

    def run(k):
        try:
            barrier.wait()
            target(k)
        except Exception as exc:
            errors.append(f"{exc!r}\n{traceback.format_exc()}")
    threads = [threading.Thread(target=run, args=(k,)) for k in range(n)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors, errors[0]


def test_an_op_of_another_thread_on_a_watched_tensor_is_not_recorded():
    # the other thread computes with this thread's watched tensor while this tape records:
    # its op is not on this tape (TensorFlow's tapes are thread-local)
    x = tf.constant(1.5)
    with tf.GradientTape(persistent=True) as t:
        t.watch(x)
        seen = []
        worker = threading.Thread(target=lambda: seen.append(tf.sin(x) * x))
        worker.start()
        worker.join()
        y = x * x
    assert t.gradient(seen[0], x) is None
    assert float(t.gradient(y, x)) == 3.0
    assert [op.name for op in t.recorded_operations()] == ["Mul"]


def test_a_thread_without_tapes_is_not_recorded_while_another_records():
    # one thread records tapes in a loop; another computes on shared tensors without any tape:
    # the first thread's tapes hold only its own ops, gradients exact
    shared = tf.constant(0.7)
    stop = threading.Event()

    def noise():
        while not stop.is_set():
            z = shared
            for _ in range(50):
                z = tf.sin(z) * shared + z
    noisy = threading.Thread(target=noise)
    noisy.start()
    try:
        for i in range(300):
            with tf.GradientTape() as t:
                t.watch(shared)
                y = shared ** 3
                for _ in range(20):     # time for the other thread to run inside the tape
                    y = y + 0.0
                names = [op.name for op in t.recorded_operations()]
            assert names == ["Pow"] + ["AddV2"] * 20, (i, names)
            assert float(t.gradient(y, shared)) == 3 * 0.7 ** 2
    finally:
        stop.set()
        noisy.join()


def test_threads_sharing_one_watched_tensor_keep_their_own_gradients():
    # the same tensor watched by every thread, each raising it to its own power
    x = tf.constant(1.1)

    def work(k):
        p = k + 2
        for i in range(1500):
            with tf.GradientTape() as outer:
                outer.watch(x)
                with tf.GradientTape() as inner:
                    inner.watch(x)
                    y = x ** p
                dy = inner.gradient(y, x)
            d2 = outer.gradient(dy, x)
            assert np.isclose(float(dy), p * 1.1 ** (p - 1), rtol=1e-14), (k, i)
            assert np.isclose(float(d2), p * (p - 1) * 1.1 ** (p - 2), rtol=1e-13), (k, i)
    _run_threads(work, 4)


def test_accumulators_and_stop_recording_per_thread():
    # forward-over-reverse and stop_recording inside threads: pausing an accumulator or a tape
    # in one thread must not hide another thread's recorders
    def work(k):
        a = 0.3 + 0.1 * k
        x = tf.constant(a)
        for i in range(800):
            with tf.ForwardAccumulator(x, 1.0) as acc:
                with tf.GradientTape() as t:
                    t.watch(x)
                    y = tf.exp(x) * tf.sin(x)
                    with t.stop_recording():
                        ignored = y * 3.0
                g = t.gradient(y, x)          # recorded by the accumulator: a second derivative
            assert ignored is not None
            want_g = np.exp(a) * (np.sin(a) + np.cos(a))
            assert np.isclose(float(g), want_g, rtol=1e-13), (k, i)
            assert np.isclose(float(acc.jvp(g)), 2 * np.exp(a) * np.cos(a), rtol=1e-12), (k, i)
    _run_threads(work, 3)


def test_a_tape_entered_in_one_thread_can_be_left_in_another():
    x = tf.constant(2.0)
    t = tf.GradientTape()
    t.__enter__()
    t.watch(x)
    y = x * x
    leave = threading.Thread(target=lambda: t.__exit__(None, None, None))
    leave.start()
    leave.join()
    z = x * y            # after the tape stopped: not recorded
    assert float(t.gradient(y, x)) == 4.0
    assert [op.name for op in t.recorded_operations()] in ([], ["Mul"])
    del z
    from tape.engine import registry
    assert not registry.recording_tapes and not registry.is_recording()
