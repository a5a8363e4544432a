"""The one-tape fast path of recording (``registry._solo``): ops of the thread whose only
recorder is one tape go to that tape directly. It must stay exactly as exact as the per-thread
lists it shortcuts: nested tapes, suspended recording, accumulators, tapes left in another
thread and threads that end with a tape still entered."""
import threading

import numpy as np

import tape as tf
from tape.engine import registry


def _names(t):
    return [op.name for op in t.recorded_operations()]


def test_one_tape_takes_the_fast_path_and_nesting_leaves_it():
    x = tf.constant(0.5)
    with tf.GradientTape(persistent=True) as outer:
        outer.watch(x)
        assert registry._solo is not None and registry._solo[1].__self__ is outer
        with tf.GradientTape() as inner:
            assert registry._solo is None          # two tapes: the per-thread lists
            inner.watch(x)
            y = x * x
        assert registry._solo[1].__self__ is outer  # back to one
        z = y * 3.0
    assert registry._solo is None
    assert _names(outer) == ["Mul", "Mul"]
    assert float(outer.gradient(z, x)) == 3.0


def test_stop_recording_and_accumulators_are_honoured_on_the_fast_path():
    x = tf.constant(0.25)
    with tf.GradientTape(persistent=True) as t:
        t.watch(x)
        y = tf.sin(x)
        with t.stop_recording():
            assert registry._solo is None
            ignored = y * 2.0
        with tf.ForwardAccumulator(x, 1.0) as acc:
            assert registry._solo is None
            w = x * y
        v = w + 1.0
    assert ignored is not None
    # (the tape also records the accumulator's tangent product: reverse-over-forward)
    assert _names(t) == ["Sin", "Mul", "Mul", "AddV2"]
    # (y was computed before the accumulator started: it has no tangent)
    assert float(acc.jvp(w)) == float(np.sin(0.25))
    assert np.isclose(float(t.gradient(v, x)), np.sin(0.25) + 0.25 * np.cos(0.25), rtol=1e-14)


def test_a_thread_ending_inside_a_tape_leaves_no_fast_path_behind():
    # the tape of a thread that ended without leaving it must not record the ops of a later
    # thread, even one given the same thread identity
    x = tf.constant(1.5)
    left = []

    def enter_and_end():
        t = tf.GradientTape()
        t.__enter__()
        t.watch(x)
        left.append(t)
    first = threading.Thread(target=enter_and_end)
    first.start()
    first.join()
    orphan = left[0]
    try:
        for _ in range(5):
            worker = threading.Thread(target=lambda: x * x)
            worker.start()
            worker.join()
        assert _names(orphan) == []
    finally:
        orphan.__exit__(None, None, None)
    assert not registry.recording_tapes and registry._solo is None


def test_a_tape_left_by_another_thread_no_longer_records():
    # (test_threads.py leaves a tape the same way; here the fast path must be gone too)
    x = tf.constant(2.0)
    with tf.GradientTape(persistent=True) as t:
        t.watch(x)
        y = tf.sin(x)
        leave = threading.Thread(target=t._pop)
        leave.start()
        leave.join()
        assert registry._solo is None and not registry.recording_tapes
        z = y * x
    assert _names(t) == ["Sin"]
    assert float(t.gradient(y, x)) == float(np.cos(2.0))
    assert t.gradient(z, x) is None
