"""TensorFlow's tensorflow/python/ops/math_grad_test.py, ported to ``import tape as tf``.

``gradient_checker.compute_gradient_error`` becomes an independent central-difference Jacobian
(``_tf_port.max_gradient_error``; for complex inputs, the real and imaginary parts are perturbed
separately and TensorFlow's convention grad = dL/dRe + i dL/dIm is checked). Thresholds are
TensorFlow's. Not ported: ops tape does not have (reduce_euclidean_norm, segment_min/max,
mul_no_nan, xlog1py, xdivy, nextafter) and float16 variants.
"""
import numpy as np
import pytest

import tape as tf
from _tf_port import max_gradient_error


def _complex_grad_error(f, z, rng=np.random.default_rng(0), delta=1e-6):
    """max |tape's VJP - central differences| for L = Re(sum(conj(w) f(z))), w random."""
    z = np.asarray(z, dtype=complex)
    out = np.asarray(f(tf.constant(z)))
    w = rng.normal(size=out.shape) + 1j * rng.normal(size=out.shape)

    def loss(zz):
        return float(np.sum(np.real(np.conj(w) * np.asarray(f(tf.constant(zz))))))

    zt = tf.constant(z)
    with tf.GradientTape() as t:
        t.watch(zt)
        y = f(zt)
    got = np.asarray(t.gradient(y, zt, output_gradients=tf.constant(w)))
    fd = np.zeros_like(z)
    for k in range(z.size):
        e = np.zeros(z.size, dtype=complex)
        e[k] = delta
        e = e.reshape(z.shape)
        d_re = (loss(z + e) - loss(z - e)) / (2 * delta)
        d_im = (loss(z + 1j * e) - loss(z - 1j * e)) / (2 * delta)
        fd.reshape(-1)[k] = d_re + 1j * d_im
    return float(np.max(np.abs(got - fd)))


@pytest.mark.parametrize("left_shape, right_shape", [([1, 2, 3, 2], [3, 2]), ([2, 4], [3, 2, 4])])
def test_squared_difference_grad(left_shape, right_shape):
    rng = np.random.default_rng(1)
    left, right = rng.normal(size=left_shape), rng.normal(size=right_shape)
    err = max_gradient_error(tf.math.squared_difference, [left, right], delta=1e-5)
    assert err < 1e-8          # TF's bound is 1e-10 on its float64 Jacobian error


def _biased_randn(shape, bias=0.1, sigma=1.0):
    value = np.random.randn(*shape) * sigma
    return value + np.sign(value) * bias


@pytest.mark.parametrize("bias, sigma, max_error", [(0.1, 1.0, 2e-5), (0.0, 0.1, 100.0)])
def test_complex_abs(bias, sigma, max_error):
    np.random.seed(7)
    x = _biased_randn([3, 3], bias=bias)
    assert max_gradient_error(tf.abs, [x], delta=1e-7) < max_error
    z = _biased_randn([3, 3], bias, sigma) + 1j * _biased_randn([3, 3], bias, sigma)
    assert _complex_grad_error(tf.abs, z) < max_error


def test_min_gradient():
    err = max_gradient_error(lambda x: tf.reduce_min(tf.concat([x, x], 0)), [[1.0]])
    assert err < 1e-4


def test_max_gradient():
    err = max_gradient_error(lambda x: tf.reduce_max(tf.concat([x, x], 0)), [[1.0]])
    assert err < 1e-4


def test_maximum_gradient():
    err = max_gradient_error(lambda x: tf.maximum(x, 3.0), [[1.0, 2.0, 3.5, 4.0]])
    assert err < 1e-4
    # at the tie x == 3 TF gives the whole gradient to x (x >= y): the one-sided derivative
    x = tf.constant([3.0])
    with tf.GradientTape() as t:
        t.watch(x)
        y = tf.maximum(x, 3.0)
    assert t.gradient(y, x).numpy()[0] == 1.0


def test_minimum_gradient():
    err = max_gradient_error(lambda x: tf.minimum(x, 2.0), [[1.0, 2.5, 3.0, 4.0]])
    assert err < 1e-4
    x = tf.constant([2.0])
    with tf.GradientTape() as t:
        t.watch(x)
        y = tf.minimum(x, 2.0)
    assert t.gradient(y, x).numpy()[0] == 1.0


@pytest.mark.parametrize("axis", [None, -1])
def test_prod_gradient(axis):
    inputs = [[1., 2.], [3., 4.]]
    assert max_gradient_error(lambda x: tf.reduce_prod(x, axis), [inputs]) < 1e-4


@pytest.mark.parametrize("axis", [None, -1])
def test_prod_gradient_complex(axis):
    inputs = np.array([[1 + 3j, 2 - 1j], [3j, 4]])
    assert _complex_grad_error(lambda z: tf.reduce_prod(z, axis), inputs) < 1e-4
    # complex64: the same gradient to single precision
    grads = []
    for dtype in (tf.complex64, tf.complex128):
        z = tf.constant(inputs, dtype=dtype)
        with tf.GradientTape() as t:
            t.watch(z)
            y = tf.reduce_prod(z, axis)
        grads.append(t.gradient(y, z))
    assert grads[0].dtype == tf.complex64
    np.testing.assert_allclose(grads[0].numpy(), grads[1].numpy(), rtol=1e-5)


def test_floor_mod_gradient():
    # away from the discontinuity where x / y is an integer
    assert max_gradient_error(lambda x: tf.math.floormod(x, tf.constant([17.])), [[131.]]) < 1e-4


def test_div_no_nan_basic_gradient():
    inputs = np.arange(-3, 3, dtype=float)
    assert max_gradient_error(lambda x: tf.math.div_no_nan(x, 1 + tf.abs(x)), [inputs]) < 1e-4


def test_div_no_nan_gradient_with_denominator_is_zero():
    x = tf.constant(np.arange(-3, 3, dtype=float))
    y = tf.zeros_like(x)
    with tf.GradientTape() as t:
        t.watch([x, y])
        outputs = tf.math.div_no_nan(x, y)
    dx, dy = t.gradient(outputs, [x, y])
    np.testing.assert_allclose(dx, np.zeros(6))
    np.testing.assert_allclose(dy, np.zeros(6))


def _xlogy_gradients(x, y):
    x, y = tf.constant(x), tf.constant(y)
    with tf.GradientTape(persistent=True) as t:
        t.watch([x, y])
        out = tf.math.xlogy(x, y)
    return t.gradient(out, x).numpy(), t.gradient(out, y).numpy()


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_xlogy_non_zero_values_grad(dtype):
    gx, gy = _xlogy_gradients(dtype(0.1), dtype(3.1))
    np.testing.assert_allclose(gx, np.log(3.1), rtol=1e-6)
    np.testing.assert_allclose(gy, 0.1 / 3.1, rtol=1e-6)


def test_xlogy_zero_x_grad():
    gx, gy = _xlogy_gradients(0., 3.1)
    assert gx == 0 and gy == 0


def test_xlogy_zero_y_grad():
    with np.errstate(divide="ignore"):
        gx, gy = _xlogy_gradients(0.1, 0.)
    assert gx == -np.inf and gy == np.inf


def test_xlogy_zero_xy_grad():
    with np.errstate(divide="ignore", invalid="ignore"):
        gx, gy = _xlogy_gradients(0., 0.)
    assert gx == 0 and gy == 0


def test_pow_zero_grad_tape():
    x = tf.constant([-1, 0., 1.])
    with tf.GradientTape() as tape:
        tape.watch(x)
        g = tape.gradient(tf.pow(x, 2), x)
    np.testing.assert_allclose(g, [-2., 0., 2.])
    assert np.all(np.isfinite(g.numpy()))      # check_numerics: no NaN or inf on the way


# -- EuclideanNormGradientTest (reduce_euclidean_norm is tf.linalg.norm's Euclidean norm) -------
def reduce_euclidean_norm(x, axis=None):
    return tf.linalg.norm(x, axis=axis)


_CUBE = [[[-3, 5], [7, 11]], [[13, 17], [19, 23]]]


@pytest.mark.parametrize("f, x, bound", [
    (reduce_euclidean_norm, [3], 1e-3),                          # testBasic, testKeepdims
    (reduce_euclidean_norm, [-3], 1e-3),                         # testNegative
    (lambda x: reduce_euclidean_norm(x) * 5, [3], 1e-3),         # testGradientChain
    (reduce_euclidean_norm, [3, -4], 1e-3),                      # testTwoElements
    (reduce_euclidean_norm, [[-3, 5], [7, 11]], 1e-3),           # test2D_1
    (lambda x: reduce_euclidean_norm(x, 0), [[-3, 5], [7, 11]], 1e-3),
    (lambda x: reduce_euclidean_norm(x, 1), [[-3, 5], [7, 11]], 1e-3),
    (lambda x: reduce_euclidean_norm(x, 1), [[3], [4]], 1e-3),
    (reduce_euclidean_norm, _CUBE, 2e-3),                        # test3D_1
    (lambda x: reduce_euclidean_norm(x, 0), _CUBE, 2e-3),
    (lambda x: reduce_euclidean_norm(x, 1), _CUBE, 3e-3),
    (lambda x: reduce_euclidean_norm(x, 2), _CUBE, 2e-3),
], ids=["Basic", "Negative", "GradientChain", "TwoElements", "2D_1", "2D_2", "2D_3", "2D_4",
        "3D_1", "3D_2", "3D_3", "3D_4"])
def test_euclidean_norm_gradient(f, x, bound):
    assert max_gradient_error(f, [np.array(x, dtype=float)]) < bound


def test_euclidean_norm_negative_zero():
    x = tf.constant([1.0, -0.0])
    with tf.GradientTape() as tape:
        tape.watch(x)
        y = reduce_euclidean_norm(x)
    dx = tape.gradient(y, x).numpy()
    np.testing.assert_allclose(dx, [1.0, -0.0])
    with np.errstate(divide="ignore"):
        np.testing.assert_allclose(1.0 / dx, 1.0 / np.array([1.0, -0.0]))


def test_euclidean_norm_zeros():
    # A deliberate difference (README, "Where tape differs from TensorFlow"): TF gives NaN at the
    # zero vector; tape gives the subgradient 0 (README, "Numerical behaviour at singular points").
    x = tf.constant([0.0, -0.0])
    with tf.GradientTape() as tape:
        tape.watch(x)
        y = reduce_euclidean_norm(x)
    np.testing.assert_array_equal(tape.gradient(y, x).numpy(), [0.0, 0.0])
