"""The custom_gradient and recompute_grad parts of TensorFlow's
tensorflow/python/ops/gradients_test.py (CustomGradientTest, VariablesGradientTest), ported to
``import tape as tf``; plus the argument-nest cases TensorFlow documents for custom_gradient
(nests of tensors as arguments, ``()`` arguments, methods) and complex results.

Graph-mode ``gradients.gradients`` calls become GradientTape calls; inside a gradient function
(where TensorFlow re-differentiates the graph) the closed form of the layer's gradient is used.
"""
import functools

import numpy as np
import pytest

import tape as tf
from _tf_port import check_gradients


def test_custom_gradient_trivial():
    @tf.custom_gradient
    def my_identity(x):
        def grad(dy):
            return [3 * dy]
        return x, grad

    x = tf.constant(3.)
    with tf.GradientTape() as t:
        t.watch(x)
        y = my_identity(my_identity(x))
    assert t.gradient(y, x).numpy() == 9.


def test_custom_gradient():
    @tf.custom_gradient
    def my_multiply(x1, x2):
        result = x1 * x2

        def grad(dy):
            return [dy * x1, dy * x2]      # switched on purpose
        return result, grad

    x1, x2 = tf.constant(3.), tf.constant(5.)
    with tf.GradientTape() as t:
        t.watch([x1, x2])
        y = my_multiply(x1, x2)
    assert [g.numpy() for g in t.gradient(y, [x1, x2])] == [3., 5.]


def test_custom_gradient_class():
    class Model:
        @tf.custom_gradient
        def multiply(self, x1, x2):
            result = x1 * x2
            return result, lambda dy: (dy * x1, dy * x2)

    x1, x2 = tf.constant(3.), tf.constant(5.)
    m = Model()
    with tf.GradientTape() as t:
        t.watch([x1, x2])
        y = m.multiply(x1, x2)
    assert [g.numpy() for g in t.gradient(y, [x1, x2])] == [3., 5.]
    assert Model.multiply.__name__ == "multiply"


def test_custom_gradient_errors():
    @tf.custom_gradient
    def f(x):
        def grad(_):
            raise RuntimeError("x")
        return x, grad

    x = tf.constant(1.0)
    with tf.GradientTape() as t:
        t.watch(x)
        y = f(x)
    with pytest.raises(RuntimeError):
        t.gradient(y, x)


def _dense_input_grad(layer, out_grad):
    kernel, = layer.variables
    return tf.matmul(out_grad, tf.transpose(kernel))


def _custom_dense(layer, call, var_grad):
    """TensorFlow's F: ``call(x)`` under custom_gradient; its grad_fn gives the layer's input
    gradient (TF re-differentiates its graph there) and ``var_grad`` for the one variable read."""
    @tf.custom_gradient
    def f(x):
        out = call(x)

        def grad(out_grad, variables=None):
            assert len(variables) == 1 and variables[0] is layer.variables[0]
            return _dense_input_grad(layer, out_grad), [var_grad]
        return out, grad
    return f


def test_custom_gradient_with_variables():
    layer = tf.layers.Dense(3, use_bias=False)
    f = _custom_dense(layer, layer, tf.ones((4, 3)))
    x = tf.ones((2, 4))
    with tf.GradientTape() as t:
        t.watch(x)
        y = f(x)
    all_vars = layer.variables
    assert len(all_vars) == 1
    grads = t.gradient(y, [x, all_vars[0]])
    assert all(g is not None for g in grads)
    assert float(tf.reduce_sum(grads[1])) == 12.
    np.testing.assert_allclose(grads[0], np.ones((2, 3)) @ all_vars[0].numpy().T)


def test_custom_gradient_with_variables_no_false_positives():
    layers = [tf.layers.Dense(3, use_bias=False) for _ in range(4)]
    f = _custom_dense(layers[3], lambda x: layers[3](x), tf.ones((3, 3)))
    with tf.GradientTape() as t:
        a = tf.ones((2, 4))
        b = layers[0](a)
        c = layers[1](b)
        x = layers[2](b) + c
        y = f(x)
    all_vars = [lay.variables[0] for lay in layers]
    grads = t.gradient(y, [x] + all_vars)
    assert all(g is not None for g in grads)
    assert float(tf.reduce_sum(grads[-1])) == 9.


def test_custom_gradient_with_variables_eager():
    layer = tf.layers.Dense(4, use_bias=False)

    @tf.custom_gradient
    def f(x):
        out = layer(x)

        def grad(out_grad, variables=None):
            del out_grad
            assert len(variables) == 1
            return tf.ones((3, 2)), [tf.ones((2, 4))]
        return out, grad

    x = tf.ones((3, 2)) + 2.
    with tf.GradientTape() as tape:
        tape.watch(x)
        y = f(x)
    w, = layer.variables
    dx, dw = tape.gradient(y, [x, w])
    assert float(tf.reduce_sum(dx)) == 6.
    assert float(tf.reduce_sum(dw)) == 8.


def test_with_numpy_inputs():
    @tf.custom_gradient
    def f(x):
        def grad(_):
            return (None, None)
        return x, grad

    x = np.ones((3, 2), dtype=np.float32)
    np.testing.assert_array_equal(np.asarray(f(x)), x)


def test_recursive_custom_gradient():
    layer = tf.layers.Dense(3, use_bias=False)
    f = _custom_dense(layer, layer, tf.ones((4, 3)))
    double_f = _custom_dense(layer, f, tf.ones((4, 3)))
    x = tf.ones((2, 4))
    with tf.GradientTape() as t:
        t.watch(x)
        y = double_f(x)
    grads = t.gradient(y, [x, layer.variables[0]])
    assert all(g is not None for g in grads)
    assert float(tf.reduce_sum(grads[1])) == 12.


# -- VariablesGradientTest: recompute_grad -----------------------------------------------------
def _fn_variables_gradient(inputs, test_fn, vars_to_grad):
    test_fn_re = tf.recompute_grad(test_fn)
    with tf.GradientTape(persistent=True) as tape:
        tape.watch(vars_to_grad)
        out_re = test_fn_re(inputs, vars_to_grad)
        out = test_fn(inputs, vars_to_grad)
    return tape.gradient(out_re, vars_to_grad), tape.gradient(out, vars_to_grad)


def test_custom_gradient_recompute_grad_higher_order():
    @tf.recompute_grad
    def f(x):
        return tf.reduce_prod(tf.tanh(x) ** 2)

    check_gradients(f, [tf.constant([1.])], order=3, forward=False)


def test_fn_recompute():
    def test_fn(inputs, input_vars):
        return inputs * input_vars

    def test_fn_seq(inputs, input_vars):
        return (inputs * input_vars, inputs * input_vars * 2.0)

    test_var = tf.Variable(np.ones([10]), name="test_var")
    test_input = tf.constant(np.ones((10, 10)))
    for fn in (test_fn, test_fn_seq):
        for wrt in (test_input, test_var):
            grads_re, grads = _fn_variables_gradient(test_input, fn, wrt)
            np.testing.assert_allclose(grads_re, grads)
            assert grads is not None


def test_fn_recompute_same_tensor():
    def test_fn_mul(x, y):
        return x * y

    def test_fn_single_var(x, y):
        return x

    x = tf.ones((10,))
    for fn in (test_fn_mul, test_fn_single_var):
        grads_re, grads = _fn_variables_gradient(x, fn, x)
        np.testing.assert_allclose(grads_re, grads)


def test_recompute_grad_keeps_the_wrapped_function():
    def f(x):
        """Doc."""
        return x * x
    g = tf.recompute_grad(f)
    assert g.__wrapped__ is f and g.__name__ == "f" and g.__doc__ == "Doc."


# -- arguments as nests (TensorFlow's custom_gradient semantics) -------------------------------
def test_nest_arguments_tensors_inside_are_inputs():
    @tf.custom_gradient
    def f(pair, scale):
        a, b = pair
        def grad(dy):
            return (dy * b * 10.0, dy * a * 100.0), dy * 0.5
        return a * b * scale, grad

    a, b, s = tf.constant(2.0), tf.constant(3.0), tf.constant(4.0)
    with tf.GradientTape() as t:
        t.watch([a, b, s])
        y = f((a, b), s)
    assert float(y) == 24.0
    ga, gb, gs = t.gradient(y, [a, b, s])
    assert [float(ga), float(gb), float(gs)] == [30.0, 200.0, 0.5]


def test_empty_tuple_argument_passes_through():
    seen = []

    @tf.custom_gradient
    def f(x, extra):
        seen.append(extra)
        def grad(dy):
            return dy * 3.0, ()
        return x * 2.0, grad

    x = tf.constant(1.5)
    with tf.GradientTape() as t:
        t.watch(x)
        y = f(x, ())
    assert seen == [()] and float(y) == 3.0
    assert float(t.gradient(y, x)) == 3.0


def test_tuple_of_tensor_and_empty_tuple():
    @tf.custom_gradient
    def f(arg):
        x, nothing = arg
        assert nothing == ()
        def grad(dy):
            return (dy * 5.0, ())
        return x * x, grad

    x = tf.constant(2.0)
    with tf.GradientTape() as t:
        t.watch(x)
        y = f((x, ()))
    assert float(y) == 4.0 and float(t.gradient(y, x)) == 5.0


def test_non_tensor_leaves_pass_through_unchanged():
    marker = object()

    @tf.custom_gradient
    def f(x, options):
        assert options["tag"] is marker and options["n"] == 2
        def grad(dy):
            return dy * 7.0, {"n": None, "tag": None}
        return x * options["n"], grad

    x = tf.constant(1.0)
    with tf.GradientTape() as t:
        t.watch(x)
        y = f(x, {"tag": marker, "n": 2})
    assert float(y) == 2.0 and float(t.gradient(y, x)) == 7.0


def test_wrong_number_of_gradients_for_a_nest():
    @tf.custom_gradient
    def f(pair):
        a, b = pair
        def grad(dy):
            return [dy]              # two leaves, one gradient
        return a * b, grad

    a, b = tf.constant(2.0), tf.constant(3.0)
    with tf.GradientTape() as t:
        t.watch([a, b])
        y = f([a, b])
    with pytest.raises(ValueError, match="2 inputs"):
        t.gradient(y, [a, b])


def test_nest_outputs_get_one_cotangent_each():
    @tf.custom_gradient
    def f(x):
        def grad(d_first, d_second):
            return d_first * 2.0 + d_second * 3.0
        return {"first": x * 2.0, "second": x * 3.0}, grad

    x = tf.constant(1.0)
    with tf.GradientTape() as t:
        t.watch(x)
        out = f(x)
        y = out["first"] + 10.0 * out["second"]
    assert float(t.gradient(y, x)) == 2.0 + 30.0


# -- complex values through custom_gradient ----------------------------------------------------
def test_complex_custom_gradient_matches_the_builtin_rule():
    @tf.custom_gradient
    def square(z):
        def grad(dy):
            return dy * tf.math.conj(2.0 * z)     # TF's convention: grad = dy * conj(f'(z))
        return z * z, grad

    z = tf.constant([1.0 + 2.0j, -0.5 + 0.25j])
    with tf.GradientTape(persistent=True) as t:
        t.watch(z)
        mine = tf.reduce_sum(tf.math.real(square(z) * tf.math.conj(square(z))))
        ref = tf.reduce_sum(tf.math.real((z * z) * tf.math.conj(z * z)))
    np.testing.assert_allclose(t.gradient(mine, z), t.gradient(ref, z), rtol=1e-12)
    # |z^2|^2 = |z|^4: its TF gradient is 2 * d/dconj(z) = 4 |z|^2 z
    zv = z.numpy()
    np.testing.assert_allclose(t.gradient(mine, z), 4 * np.abs(zv) ** 2 * zv, rtol=1e-12)


def test_real_gradient_for_a_complex_input_becomes_complex():
    @tf.custom_gradient
    def real_part(z):
        def grad(dy):
            return dy                # real: d Re(z) / d z taken as dy + 0j
        return tf.math.real(z), grad

    z = tf.constant([1.0 + 2.0j])
    with tf.GradientTape() as t:
        t.watch(z)
        y = tf.reduce_sum(real_part(z))
    g = t.gradient(y, z)
    assert g.dtype == tf.complex128
    np.testing.assert_array_equal(g.numpy(), [1.0 + 0.0j])


def test_complex_gradient_for_a_real_input_keeps_its_real_part():
    @tf.custom_gradient
    def f(x):
        def grad(dy):
            return tf.cast(dy, tf.complex128) * (2.0 + 5.0j)
        return x * 2.0, grad

    x = tf.constant([1.0, 2.0])
    with tf.GradientTape() as t:
        t.watch(x)
        y = tf.reduce_sum(f(x))
    g = t.gradient(y, x)
    assert g.dtype == tf.float64
    np.testing.assert_array_equal(g.numpy(), [2.0, 2.0])


def test_keyword_arguments_pass_through_without_gradient():
    def scaled(x, k):
        return x * k, lambda dy: dy * k
    f = tf.custom_gradient(functools.partial(scaled, k=3.0))
    x = tf.constant(2.0)
    with tf.GradientTape() as t:
        t.watch(x)
        y = f(x)
    assert float(t.gradient(y, x)) == 3.0
