"""GradientTape.jacobian / batch_jacobian: shapes, numbers, one vectorized sweep, chunking."""
import numpy as np
import pytest

import tape as tf
import tape.engine.tape as tape_module


from _gradcheck import fd_jacobian  # noqa: E402  (shared central differences)


def tape_jacobian(f, x, **kwargs):
    x = tf.constant(x)
    with tf.GradientTape(persistent=kwargs.pop("persistent", False)) as t:
        t.watch(x)
        y = f(x)
    return t.jacobian(y, x, **kwargs)


TARGETS = {
    "scalar": lambda x: tf.reduce_sum(tf.sin(x) * x),
    "vector": lambda x: tf.reshape(tf.exp(x) * tf.reduce_sum(x), [-1]),
    "matrix": lambda x: tf.reshape(tf.tanh(x), [-1, 1]) * tf.reshape(tf.cos(x), [1, -1]),
}
SOURCES = {"scalar": 0.7, "vector": [0.1, -0.5, 0.9], "matrix": [[0.1, 0.2], [-0.3, 0.4]]}


@pytest.mark.parametrize("target", sorted(TARGETS))
@pytest.mark.parametrize("source", sorted(SOURCES))
def test_shapes_and_values(target, source):
    f, x = TARGETS[target], np.asarray(SOURCES[source])
    J = tape_jacobian(f, x)
    y = f(tf.constant(x))
    assert J.shape == tuple(y.shape) + x.shape
    np.testing.assert_allclose(J.numpy(), fd_jacobian(f, x), rtol=1e-6, atol=1e-8)


def test_nested_sources_keep_their_structure():
    a, b = tf.constant([1.0, 2.0]), tf.constant([[3.0, 4.0, 5.0]])
    with tf.GradientTape() as t:
        t.watch([a, b])
        y = tf.concat([a * 2.0, tf.reshape(b ** 2, [-1])], 0)
    got = t.jacobian(y, {"a": a, "pair": (b, a)})
    assert got["a"].shape == (5, 2) and got["pair"][0].shape == (5, 1, 3)
    want_b = np.zeros((5, 1, 3))
    want_b[2:, 0, :] = np.diag([6.0, 8.0, 10.0])
    np.testing.assert_allclose(got["pair"][0].numpy(), want_b)
    np.testing.assert_allclose(got["pair"][1].numpy(), got["a"].numpy())


def test_unconnected_sources():
    x, z = tf.constant([1.0, 2.0]), tf.constant([3.0])
    with tf.GradientTape(persistent=True) as t:
        t.watch([x, z])
        y = x * x
    assert t.jacobian(y, z) is None
    np.testing.assert_array_equal(t.jacobian(y, z, unconnected_gradients="zero").numpy(),
                                  np.zeros((2, 1)))


def test_200_outputs_take_exactly_one_backward_sweep():
    x = tf.constant([0.3, 0.7])
    with tf.GradientTape() as t:
        t.watch(x)
        y = tf.sin(tf.reshape(tf.tile(x, [100]), [200]) * tf.linspace(0.0, 2.0, 200)) + tf.reduce_sum(x ** 2)
    before = tape_module.sweep_count
    J = t.jacobian(y, x)
    assert tape_module.sweep_count - before == 1
    assert J.shape == (200, 2)
    f = lambda v: tf.sin(tf.reshape(tf.tile(v, [100]), [200]) * tf.linspace(0.0, 2.0, 200)) + tf.reduce_sum(v ** 2)
    np.testing.assert_allclose(J.numpy(), fd_jacobian(f, x.numpy()), rtol=1e-6, atol=1e-8)


@pytest.mark.parametrize("chunk, sweeps", [(1, 12), (5, 3), (12, 1), (100, 1)])
def test_parallel_iterations_chunks_the_batch(chunk, sweeps):
    f = lambda x: tf.reshape(tf.einsum("i,j->ij", tf.sin(x), x), [-1])
    x = np.array([0.2, 0.5, 0.9])
    full = tape_jacobian(f, x)
    wide = lambda v: tf.concat([f(v), f(v)[:3]], 0)             # 12 outputs
    before = tape_module.sweep_count
    got = tape_jacobian(wide, x, parallel_iterations=chunk)
    assert tape_module.sweep_count - before == sweeps
    np.testing.assert_allclose(got.numpy()[:9], full.numpy(), rtol=1e-14)
    np.testing.assert_allclose(got.numpy(), fd_jacobian(wide, x), rtol=1e-6, atol=1e-8)


def test_use_pfor_false():
    f = lambda x: tf.exp(x) * x[0]
    x = np.array([0.1, 0.2, 0.3])
    with pytest.raises(RuntimeError):
        tape_jacobian(f, x, experimental_use_pfor=False)
    loop = tape_jacobian(f, x, experimental_use_pfor=False, persistent=True)
    np.testing.assert_allclose(loop.numpy(), tape_jacobian(f, x).numpy(), rtol=1e-14)


def test_non_persistent_tape_gives_one_jacobian():
    x = tf.constant([1.0, 2.0])
    with tf.GradientTape() as t:
        t.watch(x)
        y = x * x
    t.jacobian(y, x)
    with pytest.raises(RuntimeError):
        t.jacobian(y, x)


def test_batch_jacobian_matches_stacked_per_example_jacobians():
    w = tf.constant(np.arange(12.0).reshape(3, 4) / 10)
    f = lambda x: tf.tanh(tf.matmul(x, w)) * tf.reduce_sum(x ** 2, axis=1, keepdims=True)
    xb = np.random.default_rng(3).standard_normal((5, 3))
    x = tf.constant(xb)
    with tf.GradientTape() as t:
        t.watch(x)
        y = f(x)
    before = tape_module.sweep_count
    bj = t.batch_jacobian(y, x)
    assert tape_module.sweep_count - before == 1
    assert bj.shape == (5, 4, 3)
    stacked = np.stack([fd_jacobian(lambda r: f(tf.reshape(r, [1, 3]))[0], xb[i]) for i in range(5)])
    np.testing.assert_allclose(bj.numpy(), stacked, rtol=1e-6, atol=1e-8)


def test_batch_jacobian_rejects_mismatched_batch():
    x = tf.constant(np.ones((3, 2)))
    with tf.GradientTape() as t:
        t.watch(x)
        y = tf.reshape(x, [2, 3])
    with pytest.raises(ValueError, match="batch"):
        t.batch_jacobian(y, x)


def test_jacobian_of_gradient_is_the_hessian():
    x = tf.constant([0.5, -0.2, 1.3])
    with tf.GradientTape() as outer:
        outer.watch(x)
        with tf.GradientTape() as inner:
            inner.watch(x)
            y = tf.reduce_sum(tf.exp(x[0] * x) * tf.sin(x))
        g = inner.gradient(y, x)
    H = outer.jacobian(g, x).numpy()
    np.testing.assert_allclose(H, tf.hessian(lambda v: tf.reduce_sum(tf.exp(v[0] * v) * tf.sin(v)))(x).numpy(),
                               rtol=1e-12)
    np.testing.assert_allclose(H, H.T, rtol=1e-12)
