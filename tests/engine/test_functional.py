"""grad, value_and_grad, jacobian (forward and reverse), hessian, hvp: numbers, cost, errors."""
import numpy as np
import pytest
import sympy as sp

import tape as tf
import tape.engine.tape as tape_module


def fd_grad(f, x, eps=1e-6):
    x = np.asarray(x, dtype=float)
    g = np.zeros(x.shape)
    for i in np.ndindex(x.shape):
        e = np.zeros(x.shape)
        e[i] = eps
        g[i] = (float(f(tf.constant(x + e))) - float(f(tf.constant(x - e)))) / (2 * eps)
    return g


from _gradcheck import fd_jacobian  # noqa: E402  (shared central differences)


SCALAR_F = lambda x: tf.reduce_sum(tf.sin(x) * x ** 2) + tf.reduce_prod(tf.exp(x / 3))


def test_grad_and_value_and_grad():
    x = np.array([0.3, -1.2, 2.0])
    np.testing.assert_allclose(tf.grad(SCALAR_F)(x).numpy(), fd_grad(SCALAR_F, x), rtol=1e-7)
    value, g = tf.value_and_grad(SCALAR_F)(x)
    assert float(value) == pytest.approx(float(SCALAR_F(tf.constant(x))))
    np.testing.assert_allclose(g.numpy(), fd_grad(SCALAR_F, x), rtol=1e-7)


def test_grad_argnums_tuple_and_unconnected_zero():
    f = lambda a, b, c: a * b ** 2
    ga, gc = tf.grad(f, argnums=(0, 2))(2.0, 3.0, 5.0)
    assert float(ga) == 9.0 and float(gc) == 0.0
    assert float(tf.grad(f, argnums=1)(2.0, 3.0, 5.0)) == 12.0
    assert float(tf.grad(f, argnums=-2)(2.0, 3.0, 5.0)) == 12.0


def test_nested_grads_give_higher_derivatives():
    f = lambda x: x ** 5
    d3 = tf.grad(tf.grad(tf.grad(f)))(1.5)
    assert float(d3) == pytest.approx(60 * 1.5 ** 2)
    # inside a user's tape the transform stays differentiable
    x = tf.constant(0.7)
    with tf.GradientTape() as t:
        t.watch(x)
        g = tf.grad(tf.sin)(x)
    assert float(t.gradient(g, x)) == pytest.approx(-np.sin(0.7))


def test_grad_bad_input():
    with pytest.raises(ValueError, match="scalar"):
        tf.grad(lambda x: x * 2)(np.array([1.0, 2.0]))
    with pytest.raises(TypeError, match="argument 0.*int64"):
        tf.grad(lambda x: x * 2)(tf.constant(3))
    with pytest.raises(TypeError, match="argument 0"):
        tf.grad(lambda x: x * 2)(np.array([1, 2]))
    with pytest.raises(ValueError, match="argnums"):
        tf.grad(lambda x: x * 2, argnums=3)(1.0)
    with pytest.raises(TypeError, match="argnums"):
        tf.grad(lambda x: x * 2, argnums=1.0)(1.0)


VEC_F = lambda x: tf.concat([tf.sin(x) * x[0], tf.reshape(tf.exp(tf.einsum("i,j->ij", x, x)), [-1])], 0)


@pytest.mark.parametrize("mode", ["forward", "reverse", "auto"])
def test_jacobian_modes_agree_with_finite_differences(mode):
    x = np.array([0.3, -0.4, 0.8])
    got = tf.jacobian(VEC_F, mode=mode)(x)
    assert got.shape == (12, 3)
    np.testing.assert_allclose(got.numpy(), fd_jacobian(VEC_F, x), rtol=1e-6, atol=1e-8)


@pytest.mark.parametrize("mode", ["forward", "reverse"])
def test_jacobian_shapes_and_several_arguments(mode):
    f = lambda a, b: tf.matmul(a, b) * 2.0
    a = np.arange(6.0).reshape(2, 3) / 7
    b = np.arange(12.0).reshape(3, 4) / 5
    ja, jb = tf.jacobian(f, argnums=(0, 1), mode=mode)(a, b)
    assert ja.shape == (2, 4, 2, 3) and jb.shape == (2, 4, 3, 4)
    np.testing.assert_allclose(ja.numpy(), fd_jacobian(lambda t: f(t, tf.constant(b)), a), atol=1e-7)
    np.testing.assert_allclose(jb.numpy(), fd_jacobian(lambda t: f(tf.constant(a), t), b), atol=1e-7)
    scalar = tf.jacobian(lambda x: x * x, mode=mode)(3.0)
    assert scalar.shape == () and float(scalar) == 6.0


def test_jacobian_costs_one_batched_sweep_whatever_the_size():
    f = lambda x: tf.sin(tf.reshape(tf.tile(x, [100]), [200]) * tf.linspace(0.0, 1.0, 200))
    x = np.array([0.5, 1.0])
    before = tape_module.sweep_count
    rev = tf.jacobian(f, mode="reverse")(x)
    assert tape_module.sweep_count - before == 1            # 200 cotangents, one sweep
    before = tape_module.sweep_count
    fwd = tf.jacobian(f)(x)                                  # auto: tall, so forward
    assert tape_module.sweep_count - before == 2            # the sweep and its transpose
    np.testing.assert_allclose(fwd.numpy(), rev.numpy(), rtol=1e-13, atol=1e-15)


def sympy_hessian_at(expr, syms, point):
    H = sp.hessian(expr, syms)
    return np.array(H.subs(dict(zip(syms, point))).evalf(30), dtype=float)


def test_hessian_exact_and_symmetric():
    a, b, c = sp.symbols("a b c")
    expr = sp.sin(a * b) * sp.exp(c) + a ** 3 * c ** 2 + sp.log(1 + b ** 2) * a
    f = lambda x: tf.sin(x[0] * x[1]) * tf.exp(x[2]) + x[0] ** 3 * x[2] ** 2 + tf.log(1 + x[1] ** 2) * x[0]
    point = [0.4, -1.3, 0.7]
    H = tf.hessian(f)(point).numpy()
    assert H.shape == (3, 3)
    np.testing.assert_array_equal(H, H.T)
    np.testing.assert_allclose(H, sympy_hessian_at(expr, [a, b, c], point), rtol=1e-12)


def test_hessian_of_matrix_argument_and_blocks():
    f = lambda w: tf.reduce_sum(tf.tanh(tf.matmul(w, w)))
    w = np.array([[0.2, -0.5], [0.3, 0.1]])
    H = tf.hessian(f)(w)
    assert H.shape == (2, 2, 2, 2)
    flat = H.numpy().reshape(4, 4)
    np.testing.assert_array_equal(flat, flat.T)
    g = lambda t: tf.grad(f)(t)
    np.testing.assert_allclose(H.numpy(), fd_jacobian(g, w), rtol=1e-6, atol=1e-8)
    blocks = tf.hessian(lambda x, y: tf.reduce_sum(x * x * y), argnums=(0, 1))([1.0, 2.0], [3.0, 4.0])
    np.testing.assert_allclose(blocks[0][1].numpy(), np.diag([2.0, 4.0]))
    np.testing.assert_allclose(blocks[1][1].numpy(), np.zeros((2, 2)))


def test_hessian_is_one_vectorized_sweep_over_the_gradient():
    f = lambda x: tf.reduce_sum(tf.exp(x) * tf.reduce_sum(x))
    before = tape_module.sweep_count
    tf.hessian(f)(np.linspace(0, 1, 50))
    assert tape_module.sweep_count - before == 2            # the gradient, then its Jacobian


def test_hessian_rejects_non_scalar():
    with pytest.raises(ValueError, match="scalar"):
        tf.hessian(lambda x: x * x)([1.0, 2.0])


def test_hvp_matches_hessian_times_v_without_forming_it():
    f = lambda x: tf.reduce_sum(tf.sin(x) * x ** 3) + tf.reduce_logsumexp(x * x) + tf.reduce_prod(x)
    x = np.array([0.4, 1.1, -0.6, 0.2])
    v = np.array([1.0, -2.0, 0.5, 0.3])
    H = tf.hessian(f)(x).numpy()
    before = tape_module.sweep_count
    got = tf.hvp(f, x, v)
    assert tape_module.sweep_count - before == 1            # one gradient sweep, no Jacobian
    np.testing.assert_allclose(got.numpy(), H @ v, rtol=1e-12)


def test_hvp_bad_input():
    with pytest.raises(ValueError, match="v has shape"):
        tf.hvp(lambda x: tf.reduce_sum(x * x), [1.0, 2.0], [1.0])
    with pytest.raises(ValueError, match="scalar"):
        tf.hvp(lambda x: x * x, [1.0, 2.0], [1.0, 0.0])
    with pytest.raises(TypeError, match="x"):
        tf.hvp(lambda x: x * x, tf.constant(1), 1)


def test_jacobian_rejects_bad_mode_and_integer_argument():
    with pytest.raises(ValueError, match="mode"):
        tf.jacobian(tf.sin, mode="sideways")
    with pytest.raises(TypeError, match="argument 0"):
        tf.jacobian(tf.sin)(tf.constant([1, 2]))
