"""ForwardAccumulator: JVPs against J @ v from finite differences, nesting with tapes."""
import numpy as np
import pytest

import tape as tf

RNG = np.random.default_rng(7)


def fd_jvp(f, xs, vs, eps=1e-6):
    """Central difference of f along the direction vs (NumPy on the tensor function)."""
    def at(t):
        return np.asarray(f(*[tf.constant(x + t * v) for x, v in zip(xs, vs)]))
    return (at(eps) - at(-eps)) / (2 * eps)


def jvp(f, xs, vs):
    ts = [tf.constant(x) for x in xs]
    with tf.ForwardAccumulator(ts, [tf.constant(v) for v in vs]) as acc:
        y = f(*ts)
    return acc.jvp(y)


SPD = np.array([[3.0, 0.5, 0.1], [0.5, 2.0, 0.3], [0.1, 0.3, 1.5]])
CASES = {
    "elementwise": (lambda x: tf.sin(x) * tf.exp(x) / (1 + x ** 2) - tf.sqrt(x) + tf.log1p(x), [(3,)]),
    "unary_zoo": (lambda x: tf.tanh(x) + tf.sigmoid(x) + tf.softplus(x) + tf.erf(x) + tf.atan(x)
                  + tf.asin(x / 2) + tf.acos(x / 2) + tf.asinh(x) + tf.acosh(x + 2) + tf.atanh(x / 2)
                  + tf.sinh(x) + tf.cosh(x) + tf.tan(x) + tf.rsqrt(x) + tf.reciprocal(x)
                  + tf.expm1(x) + tf.square(x) + tf.abs(x) + tf.nn.relu(x - 0.5), [(4,)]),
    "broadcast_binary": (lambda a, b: a * b + a / b - b ** a + tf.maximum(a, b) - tf.minimum(a, b)
                         + tf.atan2(a, b) + tf.math.floormod(a, b + 3), [(2, 3), (3,)]),
    "pow_tensor_exponent": (lambda a, b: a ** b, [(3,), (3,)]),
    "reductions": (lambda x: tf.stack([tf.reduce_sum(x), tf.reduce_mean(x), tf.reduce_max(x),
                                       tf.reduce_min(x), tf.reduce_prod(x), tf.reduce_logsumexp(x),
                                       tf.linalg.norm(x)]), [(2, 3)]),
    "axis_reductions": (lambda x: tf.concat([tf.reduce_sum(x, axis=0), tf.reduce_max(x, axis=1),
                                             tf.reduce_prod(x, axis=1)], 0), [(2, 3)]),
    "shape_ops": (lambda x: tf.reshape(tf.transpose(tf.tile(x, [2, 1])), [-1])[1:9:2]
                  + tf.pad(x, [[1, 0], [0, 1]])[1, :4] + tf.cumsum(tf.reshape(x, [-1]))[:4]
                  + tf.reshape(tf.cumsum(x, axis=1, reverse=True), [-1])[2:6], [(2, 3)]),
    "gather_where": (lambda x: tf.gather(x, [2, 0, 2]) * tf.where(x[:3] > 0.5, x[:3], -x[:3]), [(4,)]),
    "concat_broadcast_to": (lambda a, b: tf.concat([a, tf.broadcast_to(b, (2, 3))], 0) ** 2,
                            [(2, 3), (3,)]),
    "matmul_einsum": (lambda a, b: tf.matmul(a, b) + tf.einsum("ij,jk->ik", a, b) * 2
                      + tf.tensordot(a, b, 1), [(2, 3), (3, 2)]),
    "linalg": (lambda a: tf.linalg.inv(a + SPD) + tf.linalg.det(a + SPD)
               + tf.linalg.solve(a + SPD, a), [(3, 3)]),
    "softmax": (lambda x: tf.nn.softmax(x) * 2 + tf.nn.log_softmax(x, axis=0), [(2, 3)]),
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_jvp_matches_finite_differences(name):
    f, shapes = CASES[name]
    xs = [RNG.uniform(0.2, 0.9, s) for s in shapes]
    vs = [RNG.standard_normal(s) for s in shapes]
    got = jvp(f, xs, vs)
    np.testing.assert_allclose(np.asarray(got), fd_jvp(f, xs, vs), rtol=1e-6, atol=1e-7)


def test_jvp_equals_full_jacobian_times_v():
    f = lambda x: tf.stack([tf.reduce_sum(x ** 3), x[0] * x[1], tf.sin(x[2])])
    x = tf.constant([0.5, -1.2, 2.0])
    v = np.array([0.3, 0.1, -0.7])
    with tf.GradientTape() as t:
        t.watch(x)
        y = f(x)
    jac = t.jacobian(y, x).numpy()
    np.testing.assert_allclose(jvp(f, [x.numpy()], [v]).numpy(), jac @ v, rtol=1e-12)


def test_unconnected_and_structure():
    x, z = tf.constant(1.0), tf.constant(2.0)
    with tf.ForwardAccumulator({"a": x}, {"a": 3.0}) as acc:
        y = x * x
        w = z * z
    assert acc.jvp(w) is None
    assert float(acc.jvp(w, unconnected_gradients="zero")) == 0.0
    out = acc.jvp({"y": y, "x": x})
    assert float(out["y"]) == 6.0 and float(out["x"]) == 3.0
    after = x * 5.0                     # after exit: not tracked
    assert acc.jvp(after) is None


def test_bad_input():
    x = tf.constant([1.0, 2.0])
    with pytest.raises(ValueError, match="tangent shape"):
        tf.ForwardAccumulator(x, [1.0, 2.0, 3.0])
    with pytest.raises(ValueError, match="structure"):
        tf.ForwardAccumulator([x, x], [[1.0, 2.0]])
    with pytest.raises(TypeError, match="int64"):
        tf.ForwardAccumulator(tf.constant([1, 2]), [1, 1])
    with pytest.raises(TypeError, match="Tensors"):
        tf.ForwardAccumulator([1.0], [1.0])


def test_variable_primal():
    v = tf.Variable(2.0)
    with tf.ForwardAccumulator(v, 1.0) as acc:
        y = v ** 3
    assert float(acc.jvp(y)) == pytest.approx(12.0)


def hessian_fd(f, x, eps=1e-5):
    n = x.size
    H = np.zeros((n, n))
    for i in range(n):
        e = np.zeros(n)
        e[i] = eps

        def g(z):
            zt = tf.constant(z)
            with tf.GradientTape() as t:
                t.watch(zt)
                y = f(zt)
            return t.gradient(y, zt).numpy()
        H[i] = (g(x + e) - g(x - e)) / (2 * eps)
    return H


F = lambda x: tf.reduce_sum(tf.sin(x) * x ** 3) + tf.reduce_prod(x) + tf.reduce_logsumexp(x * x)


def test_forward_over_reverse_is_hessian_vector_product():
    x = tf.constant([0.4, 1.1, -0.6])
    v = np.array([1.0, -2.0, 0.5])
    with tf.ForwardAccumulator(x, v) as acc:
        with tf.GradientTape() as t:
            t.watch(x)
            y = F(x)
        g = t.gradient(y, x)
    np.testing.assert_allclose(acc.jvp(g).numpy(), hessian_fd(F, x.numpy()) @ v, rtol=1e-6)


def test_reverse_over_forward():
    x = tf.constant([0.4, 1.1, -0.6])
    v = np.array([1.0, -2.0, 0.5])
    for outer_first in (True, False):         # tape outside or inside the accumulator
        if outer_first:
            with tf.GradientTape() as t:
                t.watch(x)
                with tf.ForwardAccumulator(x, v) as acc:
                    y = F(x)
                j = acc.jvp(y)
        else:
            with tf.ForwardAccumulator(x, v) as acc:
                with tf.GradientTape() as t:
                    t.watch(x)
                    y = F(x)
                    j = acc.jvp(y)
        np.testing.assert_allclose(t.gradient(j, x).numpy(), hessian_fd(F, x.numpy()) @ v,
                                   rtol=1e-6)


def test_forward_over_forward_gives_second_directional_derivative():
    x = tf.constant([0.4, 1.1, -0.6])
    v1, v2 = np.array([1.0, 0.0, 2.0]), np.array([0.0, -1.0, 0.5])
    with tf.ForwardAccumulator(x, v1) as outer:
        with tf.ForwardAccumulator(x, v2) as inner:
            y = F(x)
        d = inner.jvp(y)
    got = float(outer.jvp(d))
    assert got == pytest.approx(v1 @ hessian_fd(F, x.numpy()) @ v2, rel=1e-6)


def test_fallback_uses_the_gradient_rule():
    cube = tf.primitive(lambda a: a ** 3, name="CubeFwdTest")

    @tf.RegisterGradient("CubeFwdTest")
    def _grad(op, g):
        return [g * 3 * op.inputs[0] ** 2]
    assert cube.jvp is None and not cube.linear and not cube.symmetric
    x = tf.constant([1.0, 2.0])
    with tf.ForwardAccumulator(x, [1.0, 0.5]) as acc:
        y = cube(x)
    np.testing.assert_allclose(acc.jvp(y).numpy(), [3.0, 6.0])
    # and second order through the fallback: d/dx of the jvp = 6 x v
    with tf.GradientTape() as t:
        t.watch(x)
        with tf.ForwardAccumulator(x, [1.0, 0.5]) as acc:
            y = cube(x)
        j = tf.reduce_sum(acc.jvp(y))
    np.testing.assert_allclose(t.gradient(j, x).numpy(), [6.0, 6.0])


def test_fallback_without_gradient_raises_lookup_error():
    op = tf.primitive(lambda a: a * 2, name="NoGradFwdTest")
    x = tf.constant(1.0)
    with pytest.raises(LookupError, match="NoGradFwdTest"):
        with tf.ForwardAccumulator(x, 1.0):
            op(x)


def test_custom_gradient_is_used_for_tangents():
    @tf.custom_gradient
    def twice_grad(x):
        return tf.identity(x), lambda dy: dy * 2.0
    x = tf.constant(3.0)
    with tf.ForwardAccumulator(x, 1.0) as acc:
        y = twice_grad(x)
    assert float(acc.jvp(y)) == 2.0


def test_stop_gradient_and_integer_outputs_have_no_tangent():
    x = tf.constant([1.0, 2.0])
    with tf.ForwardAccumulator(x, [1.0, 1.0]) as acc:
        s = tf.stop_gradient(x) * 2
        i = tf.cast(x, tf.int64)
    assert acc.jvp(s) is None and acc.jvp(i) is None
