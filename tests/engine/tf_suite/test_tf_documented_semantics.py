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


@pytest.mark.xfail(strict=True, reason="issue 16: gather(batch_dims=1) as TF defines it")
def test_gather_batch_dims():
    params = tf.constant([[1., 2., 3.], [4., 5., 6.]])
    indices = tf.constant([[0, 2], [1, 1]])
    with tf.GradientTape() as t:
        t.watch(params)
        out = tf.gather(params, indices, batch_dims=1)
    np.testing.assert_array_equal(out.numpy(), [[1., 3.], [5., 5.]])
    np.testing.assert_array_equal(t.gradient(out, params).numpy(), [[1., 0., 1.], [0., 2., 0.]])


@pytest.mark.parametrize("op", [tf.reduce_max, tf.reduce_min, tf.reduce_logsumexp,
                                tf.nn.softmax, tf.nn.log_softmax, tf.nn.relu],
                         ids=["reduce_max", "reduce_min", "reduce_logsumexp", "softmax",
                              "log_softmax", "relu"])
def test_ops_without_a_complex_kernel_refuse_complex_inputs(op):
    with pytest.raises(TypeError, match="complex"):
        op(tf.constant([1 + 2j, 3 - 1j]))
