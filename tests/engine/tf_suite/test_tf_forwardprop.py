"""TensorFlow's tensorflow/python/eager/forwardprop_test.py, ported to ``import tape as tf``.

Same inputs and assertions. Not ported: tests of TensorFlow internals (``_jvp_dispatch``,
``pack_tangents``, ``record_operation*``, trace-cache limits, ``push_forwardprop_state``),
memory/weakref checks, Conv2D/BatchNormalization layers and MirroredStrategy.
"""
import numpy as np
import pytest

import tape as tf
from _tf_port import check_gradients

_X11_35_DERIVATIVES = [1.1 ** 3.5, 3.5 * 1.1 ** 2.5, 3.5 * 2.5 * 1.1 ** 1.5,
                       3.5 * 2.5 * 1.5 * 1.1 ** 0.5]


def _jvp(f, primals, tangents):
    with tf.ForwardAccumulator(primals, tangents) as acc:
        primals_out = f(*primals)
    return primals_out, acc.jvp(primals_out, unconnected_gradients="zero")


def _hvp(f, primals, tangents):
    """A forward-over-back Hessian-vector product."""
    with tf.ForwardAccumulator(primals, tangents) as acc:
        with tf.GradientTape() as tape:
            tape.watch(primals)
            f_out = f(*primals)
            assert f_out.shape == ()
        return acc.jvp(tape.gradient(f_out, primals))


def _forward_over_back_hessian(f, params):
    """Rows of the Hessian of f(*params), one HVP per one-hot parameter direction
    (the map_fn path of TensorFlow's helper): one [P, p_s] slice per parameter."""
    sizes = [int(np.prod(p.shape)) for p in params]
    total = sum(sizes)
    rows = []
    for index in range(total):
        onehot = tf.one_hot(index, total, dtype=tf.float64)
        pieces = tf.split(onehot, sizes)
        tangents = [tf.reshape(v, p.shape) for p, v in zip(params, pieces)]
        rows.append(_hvp(f, params, tangents))
    return [tf.stack([r[i] for r in rows]) for i in range(len(params))]


def test_multiple_watches_add():
    x = tf.constant(-2.)
    with pytest.raises(ValueError, match="multiple times"):
        with tf.ForwardAccumulator([x, x], [1., 2.]):
            pass
    with tf.ForwardAccumulator([x], [3.]) as acc:
        assert acc.jvp(x).numpy() == 3.
        y = tf.constant(3.) * x
    assert acc.jvp(y).numpy() == 9.


def _reenter_body(check_value_error):
    x = tf.constant(-2.)
    with tf.ForwardAccumulator(x, 1.5) as acc:
        np.testing.assert_allclose(acc.jvp(x), 1.5)
        y = 4. * x
        np.testing.assert_allclose(acc.jvp(y), 6.)
        if check_value_error:
            with pytest.raises(ValueError, match="already recording"):
                with acc:
                    pass
    z = 4. * x
    assert acc.jvp(z) is None
    with acc:
        yy = y * y
    np.testing.assert_allclose(acc.jvp(yy), 6. * -8. * 2.)


def test_reenter_after_exit():
    _reenter_body(check_value_error=False)


def test_reenter():
    _reenter_body(check_value_error=True)


def test_jvp_manual():
    primal, tangent = _jvp(tf.sin, (tf.constant(0.1),), (tf.constant(0.2),))
    np.testing.assert_allclose(primal, np.sin(0.1))
    np.testing.assert_allclose(tangent, np.cos(0.1) * 0.2)


def test_numeric_higher_order():
    def f(x):
        pointwise = tf.sin(x) * tf.tan(x)
        return tf.reduce_prod(pointwise + tf.reduce_sum(pointwise), axis=1)

    check_gradients(f, [tf.constant([[2.0, 3.0], [1.0, 4.0]])], order=3)


def test_custom_gradient():
    @tf.custom_gradient
    def f(x):
        def grad(dy):
            return dy * tf.cos(x)
        return np.sin(x.numpy()), grad

    check_gradients(f, [tf.constant([1., 2.])], order=3)


def test_custom_gradient_recompute_grad():
    @tf.recompute_grad
    def f(x):
        return tf.reduce_prod(tf.tanh(x) ** 2)

    check_gradients(f, [tf.constant([1.])], order=3)


def test_exception_in_custom_gradient_not_swallowed():
    @tf.custom_gradient
    def f(unused_x):
        def grad(unused_dy):
            raise ValueError("test_error_string")
        return 1., grad

    c, d = tf.constant(1.), tf.constant(2.)
    with tf.ForwardAccumulator(c, d):
        with pytest.raises(ValueError, match="test_error_string"):
            f(c)


@pytest.mark.parametrize("value, op_fn", [
    (-0.5, tf.nn.elu), ([0.5], tf.nn.elu),
    # nn_impl.swish is x * sigmoid(x)
    (0.5, lambda x: x * tf.sigmoid(x)), ([-0.5], lambda x: x * tf.sigmoid(x))],
    ids=["EluM5", "EluP5", "SwishP5", "SwishM5"])
def test_elementwise_nn_ops(value, op_fn):
    check_gradients(op_fn, [tf.constant(value)], order=3)


def test_keras_dense_layer():
    layer = tf.layers.Dense(5)
    input_value = tf.constant([[0.1]])
    layer(input_value)
    for v in layer.trainable_variables:
        n = int(np.prod(v.shape))
        v.assign(tf.reshape(tf.range(-1., 1., 2. / n, dtype=tf.float64), v.shape))
    check_gradients(layer, [input_value], order=2)


@pytest.mark.parametrize("order, expected", list(enumerate(_X11_35_DERIVATIVES)))
def test_higher_order_pure_forward(order, expected):
    def _forwardgrad(f):
        def _compute_forwardgrad(primal):
            with tf.ForwardAccumulator(primal, tf.constant(1.)) as acc:
                primal_out = f(primal)
            return acc.jvp(primal_out)
        return _compute_forwardgrad

    f = lambda x: x ** 3.5    # noqa: E731
    for _ in range(order):
        f = _forwardgrad(f)
    np.testing.assert_allclose(f(tf.constant(1.1)), expected)


def _grad_pure_forward(decorator):
    @decorator
    def f(x):
        return x ** 3.5

    primal = tf.constant(1.1)
    with tf.ForwardAccumulator(primal, tf.constant(1.)) as outer_acc:
        with tf.ForwardAccumulator(primal, tf.constant(1.)) as acc:
            primal_out = f(primal)
    inner_jvp = acc.jvp(primal_out)
    outer_jvp = outer_acc.jvp(inner_jvp)
    assert acc.jvp(outer_acc.jvp(primal_out)) is None
    return primal_out, inner_jvp, outer_jvp


def _check_pure_forward(primal_out, inner_jvp, outer_jvp):
    np.testing.assert_allclose(primal_out, 1.1 ** 3.5)
    np.testing.assert_allclose(inner_jvp, 3.5 * 1.1 ** 2.5)
    np.testing.assert_allclose(outer_jvp, 3.5 * 2.5 * 1.1 ** 1.5)


@pytest.mark.parametrize("decorator", [tf.function, lambda f: f], ids=["Function", "NoFunction"])
def test_grad_pure_forward(decorator):
    _check_pure_forward(*_grad_pure_forward(decorator))


def test_function_grad_in_function_pure_forward():
    _check_pure_forward(*tf.function(lambda: _grad_pure_forward(tf.function))())


def test_jvp_packing():
    two = tf.constant(2.)
    primal_in = tf.constant(1.)
    inner_jvp = tf.constant(3.)
    with tf.ForwardAccumulator([primal_in, inner_jvp],
                               [tf.constant(2.), tf.constant(4.)]) as outer_acc:
        with tf.ForwardAccumulator(primal_in, inner_jvp) as inner_acc:
            primal_out = primal_in * two
            np.testing.assert_allclose(inner_acc.jvp(primal_out), 6.)
            np.testing.assert_allclose(outer_acc.jvp(primal_out), 4.)
            np.testing.assert_allclose(outer_acc.jvp(inner_acc.jvp(primal_out)), 8.)


def test_function_grad():
    @tf.function
    def f(x):
        return tf.reduce_prod(tf.tanh(x) ** 2)

    check_gradients(f, [tf.constant([1., 2.])], order=3)


def test_reusing_jvp():
    m1 = tf.random.uniform((256, 2096))
    m2 = tf.identity(m1)
    tangent1 = tf.random.uniform((256, 2096))
    tangent2 = tf.random.uniform((256, 2096))
    matmul = tf.function(tf.matmul)
    with tf.ForwardAccumulator(primals=[m1, m2], tangents=[tangent1, tangent2]) as acc:
        result1 = matmul(m1, m1, transpose_b=True)
        result2 = matmul(m2, m2, transpose_b=True)

    def _expected(mat, tangent):
        mat, tangent = mat.numpy(), tangent.numpy()
        return tangent @ mat.T + mat @ tangent.T

    np.testing.assert_allclose(result1, result2)
    np.testing.assert_allclose(acc.jvp(result1), _expected(m1, tangent1), rtol=1e-10)
    np.testing.assert_allclose(acc.jvp(result2), _expected(m2, tangent2), rtol=1e-10)


def test_hvp_correctness():
    def fun(x):
        return tf.reduce_prod(tf.tanh(x) ** 2)

    primals = tf.constant([1., 2., 3.])
    tangents = tf.constant([3., 4., 5.])
    forwardback_hvp_eager, = _hvp(fun, (primals,), (tangents,))
    forwardback_hvp_function, = tf.function(_hvp)(fun, (primals,), (tangents,))

    with tf.GradientTape(persistent=True) as g:
        g.watch(primals)
        with tf.GradientTape() as gg:
            gg.watch(primals)
            out = fun(primals)
        grad = tf.unstack(gg.gradient(out, primals))
    hessian = tf.stack([g.gradient(grad[i], primals) for i in range(3)], axis=0)
    backback_hvp = tf.tensordot(hessian, tangents, axes=1)
    np.testing.assert_allclose(forwardback_hvp_eager, backback_hvp)
    np.testing.assert_allclose(forwardback_hvp_function, backback_hvp)
    # and independently of both: central differences of the reverse gradient along the tangent
    def grad_at(p):
        return np.asarray(g_of(tf.constant(p)))

    def g_of(p):
        with tf.GradientTape() as t:
            t.watch(p)
            y = fun(p)
        return t.gradient(y, p)
    h = 1e-5
    fd = (grad_at(primals.numpy() + h * tangents.numpy())
          - grad_at(primals.numpy() - h * tangents.numpy())) / (2 * h)
    np.testing.assert_allclose(forwardback_hvp_eager, fd, rtol=1e-6, atol=1e-9)


def test_should_record_and_stop_record():
    # TF's test pauses everything with the internal tape_lib.stop_recording(); the public
    # GradientTape.stop_recording() pauses only that tape, so the accumulator still sees d.
    c = tf.constant(1.)
    c_tangent = tf.constant(2.)
    with tf.ForwardAccumulator(c, c_tangent) as acc:
        with tf.GradientTape() as tape:
            tape.watch(c)
            with tape.stop_recording():
                d = c * 2.
            np.testing.assert_allclose(acc.jvp(d), 4.)
        assert tape.gradient(d, c) is None


def test_op_with_no_trainable_outputs():
    v = tf.Variable(1.)
    with tf.ForwardAccumulator(v, 11.):
        v.assign_sub(0.5)
        assert v.numpy() == 0.5


def test_variable_read_in_function():
    v = tf.Variable(1.)
    with tf.ForwardAccumulator(v, 11.) as acc:
        @tf.function
        def f():
            return v.read_value(), 2. * v.read_value()
        result = f()
        np.testing.assert_allclose([float(r) for r in result], (1.0, 2.))
        np.testing.assert_allclose([float(j) for j in acc.jvp(result)], (11., 22.))


def _tape_and_accumulator(c, forward_prop_first):
    """Created in either order: watching depends on nesting, not on creation order."""
    if forward_prop_first:
        forward_accumulator = tf.ForwardAccumulator(c, .1)
        return tf.GradientTape(), forward_accumulator
    gradient_tape = tf.GradientTape()
    return gradient_tape, tf.ForwardAccumulator(c, .1)


def _forward_over_backward(forward_prop_first):
    c = tf.constant(1.)
    gradient_tape, forward_accumulator = _tape_and_accumulator(c, forward_prop_first)
    with gradient_tape as tape:
        pass
    with forward_accumulator as acc:
        with gradient_tape as tape:
            tape.watch(c)
            d = tf.cos(c)
            e = tf.cos(acc.jvp(d))
            tf.cos(e)
        return tape.gradient(acc.jvp(d), c)


@pytest.mark.parametrize("forward_prop_first", [True, False], ids=["ForwardPropFirst", "TapeFirst"])
def test_forward_over_backward_memory_efficiency(forward_prop_first):
    assert _forward_over_backward(forward_prop_first) is None


@pytest.mark.parametrize("forward_prop_first", [True, False], ids=["ForwardPropFirst", "TapeFirst"])
def test_backward_over_forward(forward_prop_first):
    c = tf.constant(1.)
    gradient_tape, forward_accumulator = _tape_and_accumulator(c, forward_prop_first)
    with gradient_tape as tape:
        with forward_accumulator as acc:
            tape.watch(c)
            d = tf.cos(c)
        np.testing.assert_allclose(tape.gradient(acc.jvp(d), c), -.1 * np.cos(1.))


def test_variable_watched():
    v = tf.Variable([1., 2., 3.])
    with tf.ForwardAccumulator(v, tf.constant([.1, -.2, .3])) as acc:
        np.testing.assert_allclose(acc.jvp(v), [.1, -.2, .3])
        x = v * 2.
        np.testing.assert_allclose(acc.jvp(x), [.2, -.4, .6])
        x2 = v + .1
        np.testing.assert_allclose(acc.jvp(x2), [.1, -.2, .3])


def test_unconnected_gradients():
    x = tf.constant(-1.)
    with tf.ForwardAccumulator(x, 0.1) as acc:
        np.testing.assert_allclose(acc.jvp(x, unconnected_gradients="zero"), 0.1)
        np.testing.assert_allclose(acc.jvp(x, unconnected_gradients="none"), 0.1)
        y = tf.constant(-2.)
        np.testing.assert_allclose(acc.jvp(y, unconnected_gradients="zero"), 0.0)
        assert acc.jvp(y, unconnected_gradients="none") is None


def test_variable_watched_function():
    class _Model(tf.Module):
        def __init__(self):
            super().__init__()
            self._v = None

        @tf.function
        def compute_jvps(self):
            if self._v is None:
                self._v = tf.Variable([1., 2., 3.])
            with tf.ForwardAccumulator(self._v, tf.constant([.1, -.2, .3])) as acc:
                x = self._v * 2.
                x2 = self._v + .1
            return acc.jvp((self._v, x, x2))

    v_jvp, x_jvp, x2_jvp = _Model().compute_jvps()
    np.testing.assert_allclose(v_jvp, [.1, -.2, .3])
    np.testing.assert_allclose(x_jvp, [.2, -.4, .6])
    np.testing.assert_allclose(x2_jvp, [.1, -.2, .3])


def test_argument_unused():
    v = tf.constant(1.)
    with tf.ForwardAccumulator(v, 11.) as acc:
        @tf.function
        def _f(x):
            del x
            return tf.constant(1.)
        result = _f(v)
        np.testing.assert_allclose(result, 1.0)
        assert acc.jvp(result) is None


# -- ControlFlowTests --------------------------------------------------------------------------
@tf.function
def _has_loop(iters, y):
    ret = 0.
    for i in tf.range(iters):
        ret += y * tf.cast(i, tf.float32)
    return ret


@tf.function
def _has_cond(k, y):
    if k > 1:
        ret = 3. * y
    else:
        ret = 0.
    return ret


@tf.function
def _fprop_while(iters, y):
    with tf.ForwardAccumulator(y, 1.) as acc:
        ret = 0.
        for i in tf.range(iters):
            ret += y * tf.cast(i, tf.float32)
    return acc.jvp(ret)


@tf.function
def _fprop_cond(k, y):
    with tf.ForwardAccumulator(y, 1.) as acc:
        if k > 1:
            ret = 3. * y
        else:
            ret = 0.
    return acc.jvp(ret)


def test_of_function_while():
    y = tf.constant(1.)
    with tf.ForwardAccumulator(y, 1.) as acc:
        np.testing.assert_allclose(acc.jvp(_has_loop(tf.constant(5), y)), 10.)


def test_of_function_cond():
    y = tf.constant(1.)
    with tf.ForwardAccumulator(y, 1.) as acc:
        np.testing.assert_allclose(acc.jvp(_has_cond(tf.constant(5), y)), 3.)
        np.testing.assert_allclose(acc.jvp(_has_cond(tf.constant(0), y)), 0.)


def test_in_function_while():
    np.testing.assert_allclose(_fprop_while(tf.constant(5), tf.constant(1.)), 10.)


def test_in_function_cond():
    np.testing.assert_allclose(_fprop_cond(tf.constant(5), tf.constant(1.)), 3.)
    np.testing.assert_allclose(_fprop_cond(tf.constant(0), tf.constant(1.)), 0.)


# -- HessianTests ------------------------------------------------------------------------------
def test_hessian_1d():
    m = 4
    rng = np.random.RandomState([1, 2, 3])
    mat_value = rng.randn(m, m).astype("float32")
    x_value = rng.randn(m).astype("float32")
    hess_value = mat_value + mat_value.T
    mat = tf.Variable(mat_value.astype(np.float64))

    def _f(x):
        return tf.reduce_sum(x[:, None] * mat * x[None, :])

    hessian_eager, = _forward_over_back_hessian(_f, [tf.constant(x_value.astype(np.float64))])
    np.testing.assert_allclose(hessian_eager, hess_value, rtol=1e-6)
    hessian_function, = tf.function(_forward_over_back_hessian)(
        _f, [tf.constant(x_value.astype(np.float64))])
    np.testing.assert_allclose(hessian_function, hess_value, rtol=1e-6)


def test_hessian_of_variables():
    model = tf.layers.Dense(1)
    input_value = tf.constant([[-0.5, 1.], [0.5, -1.]])
    model(input_value)
    target = tf.constant([[-1.], [2.]])

    def _loss(*unused_args):
        return tf.reduce_sum((model(input_value) - target) ** 2.)

    kernel_hess, bias_hess = _forward_over_back_hessian(_loss, [model.kernel, model.bias])
    assert list(kernel_hess.shape) == [3, 2, 1]
    assert list(bias_hess.shape) == [3, 1]
    full_hessian = tf.concat([tf.reshape(kernel_hess, [3, 2]), bias_hess], axis=1).numpy()
    np.testing.assert_allclose(full_hessian, full_hessian.T)
    # the loss is quadratic in (kernel, bias): its Hessian is 2 A^T A with A = [inputs, 1]
    a = np.hstack([input_value.numpy(), np.ones((2, 1))])
    np.testing.assert_allclose(full_hessian, 2 * a.T @ a, rtol=1e-12)
