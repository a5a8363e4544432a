"""Behaviours TensorFlow 2.21 documents (or its kernels impose) that the ported test files touch
only indirectly; each case is TensorFlow's answer, written from its documentation.
"""
import numpy as np
import pytest

import tape as tf


def test_batch_jacobian_after_use_raises_the_tape_error_first():
    x = tf.constant([1.0, 2.0])            # rank 1: also a bad argument, checked second
    with tf.GradientTape() as g:
        g.watch(x)
        y = x * x
    g.gradient(y, x)
    with pytest.raises(RuntimeError):
        g.batch_jacobian(y, x)


def test_batch_jacobian_of_an_unconnected_target_is_zeros():
    x = tf.constant([[1., 2.], [3., 4.]])
    with tf.GradientTape() as g:
        g.watch(x)
        y = tf.constant([[1., 2., 3.], [4., 5., 6.]])
    bj = g.batch_jacobian(y, x)
    assert bj is not None and bj.dtype == tf.float64
    np.testing.assert_array_equal(bj.numpy(), np.zeros((2, 3, 2)))


def test_jacobian_of_a_zero_size_target_without_pfor():
    x = tf.constant(np.arange(7.0))
    with tf.GradientTape(persistent=True) as g:
        g.watch(x)
        y = tf.reduce_sum(x) * tf.zeros([0])
    j = g.jacobian(y, x, experimental_use_pfor=False)
    assert j is not None and list(j.shape) == [0, 7]


def test_jacobian_of_a_zero_size_target_with_pfor():
    x = tf.constant(np.arange(7.0))
    with tf.GradientTape(persistent=True) as g:
        g.watch(x)
        y = tf.reduce_sum(x) * tf.zeros([0])
    j = g.jacobian(y, x)
    assert j is not None and list(j.shape) == [0, 7]


def test_reentering_an_active_tape_is_a_value_error():
    t = tf.GradientTape()
    with t:
        with pytest.raises(ValueError):
            with t:
                pass


def test_gather_batch_dims():
    params = tf.constant([[1., 2., 3.], [4., 5., 6.]])
    indices = tf.constant([[0, 2], [1, 1]])
    with tf.GradientTape() as t:
        t.watch(params)
        out = tf.gather(params, indices, batch_dims=1)
    np.testing.assert_array_equal(out.numpy(), [[1., 3.], [5., 5.]])
    np.testing.assert_array_equal(t.gradient(out, params).numpy(), [[1., 0., 1.], [0., 2., 0.]])


def test_gather_batch_dims_with_a_later_axis():
    # TF: output shape params.shape[:axis] + indices.shape[batch_dims:] + params.shape[axis + 1:]
    rng = np.random.default_rng(0)
    p = rng.normal(size=(2, 3, 4, 5))
    i = rng.integers(0, 4, size=(2, 6))
    out = tf.gather(tf.constant(p), tf.constant(i), axis=2, batch_dims=1).numpy()
    assert out.shape == (2, 3, 6, 5)
    expected = np.stack([p[k][:, i[k], :] for k in range(2)])
    np.testing.assert_array_equal(out, expected)
    # and its gradient is the scatter-add of the cotangent (checked with NumPy's add.at)
    w = rng.normal(size=out.shape)
    x = tf.constant(p)
    with tf.GradientTape() as t:
        t.watch(x)
        y = tf.reduce_sum(tf.gather(x, tf.constant(i), axis=2, batch_dims=1) * w)
    ref = np.zeros_like(p)
    for k in range(2):
        np.add.at(ref[k], (slice(None), i[k]), w[k])
    np.testing.assert_allclose(t.gradient(y, x).numpy(), ref)


@pytest.mark.parametrize("op", [tf.reduce_max, tf.reduce_min, tf.reduce_logsumexp,
                                tf.nn.softmax, tf.nn.log_softmax, tf.nn.relu],
                         ids=["reduce_max", "reduce_min", "reduce_logsumexp", "softmax",
                              "log_softmax", "relu"])
def test_ops_without_a_complex_kernel_refuse_complex_inputs(op):
    with pytest.raises(TypeError, match="complex"):
        op(tf.constant([1 + 2j, 3 - 1j]))
