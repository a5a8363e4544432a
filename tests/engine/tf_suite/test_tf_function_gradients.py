"""TensorFlow's tensorflow/python/eager/function_gradients_test.py, ported to ``import tape as tf``.

``tf.function`` in tape runs the Python function (SPEC: it must not change results), so these
tests check that gradients flow through it, nested, with variables, keyword arguments and None
outputs. Not ported: graph-mode ``gradients_impl.gradients``/sessions, concrete functions and
their output signatures, virtual CPU devices, IndexedSlices gradients of gather.
"""
import numpy as np
import pytest

import tape as tf
from _tf_port import gradients_function

_COS_DERIVATIVES = [np.cos, lambda x: -np.sin(x), lambda x: -np.cos(x), np.sin, np.cos]


def test_graph_mode_with_gradients():
    v = tf.Variable(1.0, name='v')

    @tf.function
    def step():
        with tf.GradientTape() as t:
            y = v * v
        return t.gradient(y, t.watched_variables())[0]

    assert step().numpy() == 2.0


@pytest.mark.parametrize("persistent", [True, False])
def test_symbolic_higher_order_under_tape(persistent):
    # gradients_impl.gradients inside the function becomes a persistent tape's repeated gradient
    @tf.function
    def f(x, order):
        with tf.GradientTape(persistent=True) as tape:
            tape.watch(x)
            y = tf.function(lambda: tf.cos(x))()
            for _ in range(order):
                y = tape.gradient(y, x)
        return y
    for order, expected in enumerate(_COS_DERIVATIVES):
        np.testing.assert_allclose(f(tf.constant(1.), order), expected(1.), rtol=1e-12)


def test_iterated_gradients_nested():
    def _grad(f):
        def _grad_function(primal):
            with tf.GradientTape() as tape:
                tape.watch(primal)
                primal_out = f(primal)
            return tape.gradient(primal_out, primal)
        return _grad_function

    @tf.function
    def _forward(x):
        return tf.cos(x)

    f = _forward
    traced_f = tf.function(f)
    one = tf.constant(1.)
    for expected in _COS_DERIVATIVES:
        np.testing.assert_allclose(f(one), expected(1.))
        np.testing.assert_allclose(traced_f(one), expected(1.))
        np.testing.assert_allclose(tf.function(f)(one), expected(1.))
        f = _grad(f)
        traced_f = tf.function(_grad(traced_f))


def test_iterated_gradients_nested_with_variable():
    def _grad(f):
        def _grad_function():
            with tf.GradientTape() as tape:
                primal_out = f()
            g, = tape.gradient(primal_out, tape.watched_variables())
            return g
        return _grad_function

    v = tf.Variable(2.)

    @tf.function
    def _forward():
        return tf.cos(v)

    f = _forward
    for expected in _COS_DERIVATIVES:
        np.testing.assert_allclose(f(), expected(2.))
        np.testing.assert_allclose(tf.function(f)(), expected(2.))
        f = _grad(f)


def test_iterated_gradients_persistent():
    @tf.function
    def _forward(z):
        return tf.cos(z)

    with tf.GradientTape(persistent=True) as tape:
        start = tf.constant(1.)
        tape.watch(start)
        x = _forward(start)
        for expected in _COS_DERIVATIVES:
            np.testing.assert_allclose(x, expected(1.))
            x = tape.gradient(x, start)


def test_higher_order_with_variable():
    v = tf.Variable(1.)

    @tf.function
    def _forward():
        return tf.cos(v)

    with tf.GradientTape(persistent=True) as tape:
        x = _forward()
        for expected in _COS_DERIVATIVES:
            np.testing.assert_allclose(x, expected(1.))
            x, = tape.gradient(x, tape.watched_variables())


def test_gradients_chained():
    @tf.function
    def _forward(z):
        return tf.cos(z)

    x = tf.constant(1.)
    with tf.GradientTape() as t:
        t.watch(x)
        y = _forward(x)
    with tf.GradientTape() as tt:
        doutputs = tf.constant(2.)
        tt.watch(doutputs)
        g = t.gradient(y, x, doutputs)
    np.testing.assert_allclose(g, -2. * np.sin(1.))
    np.testing.assert_allclose(tt.gradient(g, doutputs), -np.sin(1.))


def test_defun_cond_gradient():
    @tf.function
    def f(x):
        return tf.cond(x > 0.5, lambda: 2 * x, lambda: 3 * x)

    with tf.GradientTape() as t:
        x = tf.constant(1.0)
        t.watch(x)
        y = f(x)
    assert t.gradient(y, x).numpy() == 2.0


def test_graph_loop_gradient():
    @tf.function
    def f(x):
        return tf.while_loop(lambda _, i: i < 2, lambda x, i: (2 * x, i + 1), [x, 0])[0]

    with tf.GradientTape() as t:
        x = tf.constant(1.0)
        t.watch(x)
        y = f(x)
    assert t.gradient(y, x).numpy() == 4.0


def test_graph_loop_gradient_eager():
    # testGraphLoopGradientInsideSession, with the placeholder fed as a watched constant
    x = tf.constant(2.0)

    @tf.function
    def f():
        return tf.while_loop(lambda n: n < 10, lambda n: n * x, [tf.constant(2.0)])

    with tf.GradientTape() as t:
        t.watch(x)
        loop = f()
    assert t.gradient(loop, x).numpy() == 24.0


def test_defun_differentiable_twice():
    v = tf.Variable(1.0)

    @tf.function
    def f():
        return v * v

    for _ in range(2):          # testDefunDifferentiable / testDefunCanBeDifferentiatedTwice
        with tf.GradientTape() as t:
            y = f()
        assert t.gradient(y, v).numpy() == 2.0


def test_defun_call_backprop():
    @tf.function
    def f(x):
        return tf.add(x, x)

    @tf.function
    def g(x):
        return gradients_function(f, [0])(x)[0]

    assert g(tf.constant(2.)).numpy() == 2


def test_defun_call_backprop_using_same_object_for_multiple_arguments():
    @tf.function
    def g(x):
        return gradients_function(tf.multiply, [0, 1])(x, x)

    def np_g(x):
        return [d.numpy() for d in g(x)]

    assert np_g(tf.constant(1.)) == [1., 1.]
    assert np_g(1.) == [1., 1.]


def test_gradient_tensor_conversion_with_defun():
    three = tf.Variable(3.0, name='v')

    @tf.function
    def f(x):
        return tf.add(x, three)

    with tf.GradientTape() as t:
        y = f(tf.constant(1.0))
    assert t.gradient(y, three).numpy() == 1.0


def test_gradient():
    matmul = tf.function(tf.matmul)
    t = tf.constant([[1.0, 2.0], [3.0, 4.0]])
    grad_t, = gradients_function(lambda x: matmul(x, x, transpose_a=True), [0])(t)
    np.testing.assert_array_equal(grad_t, [[6, 6], [14, 14]])


def test_gradient_in_function():
    @tf.function
    def f(x):
        return gradients_function(lambda y: y * y, [0])(x)[0]

    assert f(tf.constant(1.0)).numpy() == 2.0
    assert f(x=tf.constant(1.0)).numpy() == 2.0     # testGradientInFunctionWithKeywordArguments


def test_gradient_of_gather_with_defun():
    v = tf.Variable([0.0, 1.0, 2.0])

    def sum_gather():
        return tf.reduce_sum(tf.gather(v, [1, 2]))

    grads = []
    for fn in (sum_gather, tf.function(sum_gather)):
        with tf.GradientTape() as t:
            y = fn()
        grads.append(t.gradient(y, t.watched_variables()))
    assert len(grads[0]) == len(grads[1]) == 1
    np.testing.assert_array_equal(grads[0][0], grads[1][0])
    np.testing.assert_array_equal(grads[0][0], [0.0, 1.0, 1.0])


def test_differentiable_function_none_outputs():
    @tf.function
    def my_function(x):
        return x, None

    g = gradients_function(lambda x: my_function(x)[0], [0])(tf.constant(0.0))
    assert g[0].numpy() == 1.

    @tf.function
    def foo(a):
        return None, a * a

    x = tf.constant(5.0)
    with tf.GradientTape() as tp:
        tp.watch(x)
        none, r = foo(x)
    g = tp.gradient(r, x)
    assert none is None
    assert r.numpy() == 25.0
    assert g.numpy() == 2 * 5.0


def test_nested_differentiable_function():
    @tf.function
    def inner_fn(a, b):
        return a * tf.add(a, b)

    @tf.function
    def outer_fn(x):
        return inner_fn(x, 1.0)

    x = tf.constant(5.0)
    with tf.GradientTape() as tp:
        tp.watch(x)
        result = outer_fn(x)
    assert tp.gradient(result, x).numpy() == 2 * 5.0 + 1.0


def _nested_fns(b_value=1.0, b_var=None):
    @tf.function
    def inner_inner_fn(a, b):
        return tf.add(a, b)

    @tf.function
    def inner_fn(a, b):
        return inner_inner_fn(a, b)

    @tf.function
    def middle_fn(a, b):
        return a * inner_fn(a, b)

    @tf.function
    def outer_fn(x):
        return middle_fn(x, b_var if b_var is not None else b_value)

    return inner_fn, middle_fn, outer_fn


def test_deeply_nested_differentiable_function():
    _, _, outer_fn = _nested_fns()
    x = tf.constant(5.0)
    with tf.GradientTape() as tp:
        tp.watch(x)
        result = outer_fn(x)
    assert tp.gradient(result, x).numpy() == 2 * 5.0 + 1.0


def test_deeply_nested_differentiable_function_with_multiple_grad_calls():
    inner_fn, middle_fn, outer_fn = _nested_fns(3.0)
    x = tf.constant(5.0)
    assert outer_fn(x).numpy() == 5.0 * (5.0 + 3.0)
    with tf.GradientTape() as tp:
        tp.watch(x)
        result = outer_fn(x)
    assert tp.gradient(result, x).numpy() == 2 * 5.0 + 3.0
    assert outer_fn(x).numpy() == 5.0 * (5.0 + 3.0)
    assert middle_fn(3.0, x).numpy() == 3.0 * (3.0 + 5.0)
    with tf.GradientTape() as tp:
        tp.watch(x)
        result = outer_fn(x)
    assert tp.gradient(result, x).numpy() == 2 * 5.0 + 3.0
    y = tf.constant(4.0)
    with tf.GradientTape() as tp:
        tp.watch(y)
        result = outer_fn(y)
    assert tp.gradient(result, y).numpy() == 2 * 4.0 + 3.0
    with tf.GradientTape() as tp:
        tp.watch(y)
        result = inner_fn(y, y)
    assert tp.gradient(result, y).numpy() == 2.0


@pytest.mark.parametrize("depth", [1, 2, 3])
def test_deeply_nested_differentiable_function_gradient_tape_in_defun(depth):
    # ...GradientTapeInDefun / ...GradientTapeInNestedDefun / ...GradientTapeInMultNestedDefun
    _, middle_fn, _ = _nested_fns()

    @tf.function
    def almost_outer_fn(x):
        with tf.GradientTape() as tp:
            tp.watch(x)
            result = middle_fn(x, 1.0)
        return tp.gradient(result, x)

    fn = almost_outer_fn
    for _ in range(depth - 1):
        fn = tf.function(lambda x, inner=fn: inner(x))
    assert fn(tf.constant(5.0)).numpy() == 2 * 5.0 + 1.0


def test_deeply_nested_differentiable_function_with_variable():
    var = tf.Variable(tf.constant(1.0))
    _, _, outer_fn = _nested_fns(b_var=var)
    x = tf.constant(5.0)
    with tf.GradientTape() as tp:
        tp.watch(x)
        result = outer_fn(x)
    assert tp.gradient(result, x).numpy() == 2 * 5.0 + 1.0


def test_deeply_nested_differentiable_function_with_variable_multiple_grad_calls():
    v = tf.Variable(tf.constant(3.0))

    @tf.function
    def inner_fn(a, b):
        return tf.add(a, b)

    @tf.function
    def middle_fn(a, b):
        return tf.multiply(a, inner_fn(a, b))

    @tf.function
    def outer_fn(x):
        return middle_fn(x, v)

    def grad_at(fn, z):
        with tf.GradientTape() as tp:
            tp.watch(z)
            result = fn(z)
        return tp.gradient(result, z).numpy()

    x = tf.constant(5.0)
    assert outer_fn(x).numpy() == 5.0 * (5.0 + 3.0)
    assert grad_at(outer_fn, x) == 2 * 5.0 + 3.0
    assert outer_fn(x).numpy() == 5.0 * (5.0 + 3.0)
    assert middle_fn(v, x).numpy() == 3.0 * (3.0 + 5.0)
    assert grad_at(outer_fn, x) == 2 * 5.0 + 3.0
    y = tf.constant(4.0)
    assert grad_at(outer_fn, y) == 2 * 4.0 + 3.0
    v.assign(tf.constant(1.5))
    assert grad_at(outer_fn, y) == 2 * 4.0 + 1.5
    assert grad_at(lambda z: inner_fn(z, v), y) == 1.0


def test_nested_differentiable_function_none_outputs():
    @tf.function
    def foo(a, b):
        return None, a * tf.add(a, b), None, 2 * a

    @tf.function
    def bar(x):
        return foo(x, 1.0)

    x = tf.constant(5.0)
    with tf.GradientTape(persistent=True) as tp:
        tp.watch(x)
        none1, r1, none2, r2 = bar(x)
    assert r1.numpy() == 30.0 and r2.numpy() == 10.0
    assert none1 is None and none2 is None
    assert tp.gradient(r1, x).numpy() == 2 * 5.0 + 1.0
    assert tp.gradient(r2, x).numpy() == 2.0


def test_gradient_with_keyword_arguments():
    matmul = tf.function(tf.matmul)
    t = tf.constant([[1.0, 2.0], [3.0, 4.0]])
    grad_t, = gradients_function(lambda x: matmul(a=x, b=x, transpose_a=True), [0])(t)
    np.testing.assert_array_equal(grad_t, [[6, 6], [14, 14]])
    with tf.GradientTape(persistent=True) as tape:
        tape.watch(t)
        one = matmul(t, b=t, transpose_a=True)
        two = matmul(b=t, a=t, transpose_a=True)
        three = matmul(a=t, b=t, transpose_a=True)
    for output in [one, two, three]:
        np.testing.assert_array_equal(tape.gradient(output, t), [[6, 6], [14, 14]])


def test_backward_none():
    model = tf.Variable(1.0, name='model')
    count = tf.Variable(0)

    @tf.function
    def forward_pass(value):
        count.assign_add(1)
        residuals = value - model
        loss = 0.5 * tf.reduce_mean(tf.pow(residuals, 2))
        return loss, count        # count is an integer: its gradient is None

    with tf.GradientTape() as t:
        loss, _ = forward_pass(tf.constant([7.0]))
    assert tf.nest.flatten(t.gradient(loss, model).numpy()) == [-6.0]


def test_function_outputs_are_tensors():
    @tf.function
    def f(x):
        return 2.0, (x, 3)

    two, (x, three) = f(tf.constant(1.0))
    assert isinstance(two, tf.Tensor) and two.numpy() == 2.0
    assert isinstance(three, tf.Tensor) and three.numpy() == 3


def test_python_number_branch_has_zero_gradient():
    # TF's autograph makes `if k > 1: ret = 3. * y else: ret = 0.` a cond: d ret / d y is 0
    @tf.function
    def has_cond(k, y):
        if k > 1:
            ret = 3. * y
        else:
            ret = 0.
        return ret

    y = tf.constant(1.)
    with tf.GradientTape(persistent=True) as t:
        t.watch(y)
        taken = has_cond(tf.constant(5), y)
        not_taken = has_cond(tf.constant(0), y)
    assert t.gradient(taken, y).numpy() == 3.
    assert t.gradient(not_taken, y).numpy() == 0.
    assert not_taken.numpy() == 0.
