"""The short paths of one small gradient: a two-input op outside the scalar lane offered like
any other op, `watch` of a single tensor, the tapes of `nested_tapes`, and NumPy's error state
around the backward sweep. Each must behave exactly as the general path does."""
import warnings

import numpy as np
import pytest

import tape as tf
from tape.engine import lane
from tape.engine.registry import Node, is_recording
from tape.engine.tape import nested_tapes


def central_difference(f, x, h=1e-6):
    """d sum(f(x)) / dx elementwise, for f acting elementwise on a float array."""
    x = np.asarray(x, float)
    return (np.asarray(f(x + h)) - np.asarray(f(x - h))) / (2 * h)


def test_a_two_input_array_op_is_recorded_as_a_node_with_its_inputs():
    a = tf.constant([0.5, 1.5, -2.0])
    b = tf.constant([2.0, -1.0, 0.25])
    with tf.GradientTape(persistent=True) as t:
        t.watch(a)
        y = a * b
    (entry,) = t._log
    assert type(entry) is Node
    assert entry.type == "Mul" and entry.inputs == (a, b) and entry.outputs == (y,)
    assert entry.attrs == {}
    got = t.gradient(y, a).numpy()
    want = central_difference(lambda v: v * b.numpy(), a.numpy())
    np.testing.assert_allclose(got, want, rtol=1e-8)
    assert t.gradient(y, b) is None             # b is not watched


def test_variables_read_by_a_two_input_array_op_are_watched_on_first_read():
    v = tf.Variable([1.0, 2.0])
    w = tf.Variable([3.0, -1.0])
    n = tf.Variable([1, 2])                     # an integer variable is never watched
    with tf.GradientTape() as t:
        y = v * w
        z = n + n
    assert set(t.watched_variables()) == {v, w}
    assert z.dtype == tf.int64
    gv, gw = t.gradient(y, [v, w])
    np.testing.assert_allclose(gv.numpy(), central_difference(lambda x: x * w.numpy(), v.numpy()),
                               rtol=1e-8)
    np.testing.assert_allclose(gw.numpy(), central_difference(lambda x: v.numpy() * x, w.numpy()),
                               rtol=1e-8)


def test_without_watch_accessed_variables_an_array_op_on_variables_records_nothing():
    v = tf.Variable([1.0, 2.0])
    with tf.GradientTape(watch_accessed_variables=False) as t:
        y = v * v
    assert t._log == [] and t.watched_variables() == ()
    assert t.gradient(y, v) is None


def test_a_float64_scalar_op_without_its_scalar_rule_is_kept_as_a_node():
    x = tf.Variable(0.75)
    with lane.disabled():
        with tf.GradientTape() as t:
            y = x * x + 2.0 * x
        assert [type(e) for e in t._log] == [Node, Node, Node]
        got = float(t.gradient(y, x))
    want = float(central_difference(lambda v: v * v + 2.0 * v, 0.75))
    assert got == pytest.approx(want, rel=1e-8)


def test_watch_of_a_single_tensor_and_of_the_same_tensor_in_a_nest_agree():
    x = tf.constant(1.25)
    with tf.GradientTape() as single:
        single.watch(x)
        y1 = tf.sin(x) * x
    with tf.GradientTape() as nested:
        nested.watch((x,))
        y2 = tf.sin(x) * x
    g1, g2 = single.gradient(y1, x), nested.gradient(y2, x)
    want = float(central_difference(lambda v: np.sin(v) * v, 1.25))
    assert float(g1) == float(g2) == pytest.approx(want, rel=1e-8)


def test_watch_of_a_single_integer_tensor_warns_and_does_not_track_it():
    i = tf.constant(3)
    with tf.GradientTape() as t:
        with pytest.warns(UserWarning, match="must be floating"):
            t.watch(i)
    assert i not in t._tracked


def test_watch_of_a_single_variable_tracks_it_even_without_watching_accessed_ones():
    v = tf.Variable(2.0)
    with tf.GradientTape(watch_accessed_variables=False) as t:
        t.watch(v)
        y = v ** 3
    assert t.watched_variables() == (v,)
    assert float(t.gradient(y, v)) == pytest.approx(12.0, rel=1e-12)


@pytest.mark.parametrize("bad", [1.5, np.float64(1.5), "x", None])
def test_watch_of_a_single_non_tensor_is_refused(bad):
    with tf.GradientTape() as t:
        with pytest.raises(ValueError, match="expected a Tensor or Variable"):
            t.watch(bad)


def test_nested_tapes_each_watch_the_sources_and_differentiate_again():
    x = tf.constant([0.3, 1.1])
    with nested_tapes(x, 3) as levels:
        d = tf.exp(x) * x
        for t in levels:
            assert x in t._tracked
            d = t.gradient(d, x)
    # d^3/dx^3 of x e^x is (x + 3) e^x
    np.testing.assert_allclose(d.numpy(), (x.numpy() + 3) * np.exp(x.numpy()), rtol=1e-12)
    assert not is_recording()


def test_nested_tapes_with_a_source_that_is_not_a_tensor_leave_nothing_recording():
    x = tf.constant(1.0)
    with pytest.raises(ValueError, match="expected a Tensor or Variable"):
        with nested_tapes([x, "y"], 2):
            pass                                    # pragma: no cover - never reached
    assert not is_recording()
    with tf.GradientTape() as t:                    # the thread records normally afterwards
        t.watch(x)
        y = x * x
    assert float(t.gradient(y, x)) == 2.0


@pytest.mark.parametrize("persistent", [False, True])
def test_the_error_state_is_back_after_a_sweep_through_a_singular_point(persistent):
    x = tf.constant([0.0, 1.0])
    with np.errstate(divide="raise", invalid="call", over="warn", under="raise"):
        before = np.geterr()
        with tf.GradientTape(persistent=persistent) as t:
            t.watch(x)
            y = tf.sqrt(x)
        with warnings.catch_warnings():
            warnings.simplefilter("error")          # the sweep itself warns about nothing
            g = t.gradient(y, x)
        assert np.geterr() == before
        with pytest.raises(FloatingPointError):
            np.float64(1.0) / np.float64(0.0)
    assert np.isinf(g.numpy()[0]) and g.numpy()[1] == pytest.approx(0.5, rel=1e-12)


def test_pointwise_partials_by_a_later_argument_alone():
    xs = np.array([0.5, 1.0, 2.0])
    ys = np.array([1.5, -0.5, 3.0])
    levels = tf.pointwise_partials(lambda x, y: x * y * y, [xs, ys], [(1, None)], order=2)
    np.testing.assert_allclose(levels[0][()], xs * ys * ys)
    np.testing.assert_allclose(levels[1][(0,)], central_difference(lambda v: xs * v * v, ys),
                               rtol=1e-7)
    np.testing.assert_allclose(levels[2][(0, 0)], 2 * xs, rtol=1e-12)
    assert set(levels[2]) == {(0, 0)}


def test_gradient_keeps_the_structure_of_its_sources():
    import collections

    Pair = collections.namedtuple("Pair", "a b")
    x, y = tf.constant(0.5), tf.constant([1.0, 2.0])
    with tf.GradientTape(persistent=True) as t:
        t.watch([x, y])
        z = tf.reduce_sum(x * y * y)
    dx = float(central_difference(lambda v: np.sum(v * y.numpy() ** 2), 0.5))
    dy = 2 * 0.5 * y.numpy()
    for sources, kind in (([x, y], list), ((x, y), tuple), (Pair(x, y), Pair),
                          ([x, [y]], list), ({"x": x, "y": y}, dict)):
        got = t.gradient(z, sources)
        assert type(got) is kind
        gx, gy = (got["x"], got["y"]) if kind is dict else (got[0], got[1])
        if isinstance(sources, list) and isinstance(sources[1], list):
            assert type(gy) is list
            (gy,) = gy
        assert float(gx) == pytest.approx(dx, rel=1e-8)
        np.testing.assert_allclose(gy.numpy(), dy, rtol=1e-12)
    with pytest.raises(ValueError, match="sources must be Tensors"):
        t.gradient(z, [x, 1.0])
