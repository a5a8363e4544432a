"""Gradients at kinks, ties and extremes, with TensorFlow's conventions; and finite results where
the math is finite (no NaN from an unused branch, no stray NumPy RuntimeWarning)."""
import warnings

import numpy as np
import pytest

import tape


def grad(f, *values, **kw):
    xs = [tape.constant(v) for v in values]
    with tape.GradientTape() as t:
        t.watch(xs)
        y = f(*xs)
    g = t.gradient(y, xs, **kw)
    return [None if v is None else v.numpy() for v in g]


@pytest.fixture
def no_runtime_warnings():
    with warnings.catch_warnings():
        warnings.simplefilter("error", RuntimeWarning)
        yield


# -- ties and kinks (TensorFlow's choices) ----------------------------------------------------
def test_reduce_max_ties_share_the_gradient():
    # TF: the gradient is split evenly between the tied maxima
    np.testing.assert_allclose(grad(tape.reduce_max, [1.0, 3.0, 3.0])[0], [0.0, 0.5, 0.5])
    np.testing.assert_allclose(grad(tape.reduce_min, [2.0, 2.0, 3.0, 2.0])[0], [1 / 3, 1 / 3, 0, 1 / 3])
    np.testing.assert_allclose(grad(lambda a: tape.reduce_max(a, axis=1), [[1.0, 1.0], [0.0, 2.0]])[0],
                               [[0.5, 0.5], [0.0, 1.0]])


def test_maximum_minimum_ties_go_to_the_first_argument():
    # TF: x gets the gradient where x >= y (maximum) / x <= y (minimum)
    gx, gy = grad(tape.maximum, [1.0, 2.0, 3.0], [1.0, 1.0, 4.0])
    np.testing.assert_array_equal(gx, [1.0, 1.0, 0.0])
    np.testing.assert_array_equal(gy, [0.0, 0.0, 1.0])
    gx, gy = grad(tape.minimum, [1.0, 2.0, 3.0], [1.0, 1.0, 4.0])
    np.testing.assert_array_equal(gx, [1.0, 0.0, 1.0])
    np.testing.assert_array_equal(gy, [0.0, 1.0, 0.0])
    np.testing.assert_array_equal(grad(lambda a: tape.maximum(a, a), [1.0, -2.0])[0], [1.0, 1.0])


def test_relu_and_abs_at_zero():
    np.testing.assert_array_equal(grad(tape.nn.relu, [-1.0, 0.0, 2.0])[0], [0.0, 0.0, 1.0])
    np.testing.assert_array_equal(grad(tape.abs, [-1.0, 0.0, 2.0])[0], [-1.0, 0.0, 1.0])


def test_clip_by_value_passes_gradient_at_the_bounds():
    # TF: zero only strictly outside [min, max]
    np.testing.assert_array_equal(
        grad(lambda a: tape.clip_by_value(a, -1.0, 1.0), [-2.0, -1.0, 0.0, 1.0, 2.0])[0],
        [0.0, 1.0, 1.0, 1.0, 0.0])


# -- finite where the math is finite -----------------------------------------------------------
def test_pow_at_zero_base(no_runtime_warnings):
    gx, gy = grad(tape.pow, [0.0, 2.0], [2.0, 3.0])
    np.testing.assert_array_equal(gx, [0.0, 12.0])
    # d/dy x**y = x**y log x, taken as 0 at x = 0 (as TF does)
    np.testing.assert_allclose(gy, [0.0, 8.0 * np.log(2.0)])


def test_square_of_negative_base_needs_no_log(no_runtime_warnings):
    np.testing.assert_allclose(grad(lambda a: a ** 2, [-1.5, 0.0])[0], [-3.0, 0.0])
    np.testing.assert_allclose(grad(lambda a: a ** 3.0, [-2.0])[0], [12.0])
    np.testing.assert_allclose(grad(lambda a: tape.pow(a, 2), [-1.5])[0], [-3.0])


def test_sigmoid_softplus_extremes(no_runtime_warnings):
    x = [-1000.0, -30.0, 0.0, 30.0, 1000.0]
    g = grad(tape.sigmoid, x)[0]
    assert np.all(np.isfinite(g))
    np.testing.assert_allclose(g[2], 0.25)
    np.testing.assert_allclose(g[[0, 4]], [0.0, 0.0], atol=1e-300)
    g = grad(tape.nn.softplus, x)[0]
    assert np.all(np.isfinite(g))
    np.testing.assert_allclose(g[1:4], 1 / (1 + np.exp(-np.array(x[1:4]))), rtol=1e-12)
    np.testing.assert_allclose(g[[0, 2, 4]], [0.0, 0.5, 1.0], atol=1e-300)
    np.testing.assert_allclose(tape.nn.softplus(tape.constant(1000.0)).numpy(), 1000.0)


def test_softmax_and_logsumexp_large_logits(no_runtime_warnings):
    x = [1000.0, 0.0, -1000.0]
    g = grad(lambda a: tape.nn.log_softmax(a)[0], x)[0]
    np.testing.assert_allclose(g, [0.0, 0.0, 0.0], atol=1e-300)
    s = tape.nn.softmax(tape.constant(x)).numpy()
    np.testing.assert_allclose(s, [1.0, 0.0, 0.0])
    g = grad(tape.reduce_logsumexp, x)[0]
    np.testing.assert_allclose(g, [1.0, 0.0, 0.0])


def test_where_does_not_leak_nan_from_the_unused_branch_forward():
    # the classic pitfall: where(x > 0, sqrt(x), 0) -- the gradient of the unused branch is
    # multiplied by zero. TF gives NaN here too (0 * inf); we only require the chosen
    # branch to be right where it is chosen.
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        g = grad(lambda a: tape.where(a > 0.0, tape.sqrt(tape.abs(a) + 1.0), a * 0.0), [4.0, -1.0])[0]
    np.testing.assert_allclose(g[0], 0.5 / np.sqrt(5.0))


# -- accumulation and reuse ---------------------------------------------------------------------
def test_gradient_accumulates_over_many_uses():
    x = tape.constant(1.1)
    with tape.GradientTape() as t:
        t.watch(x)
        y = x
        for _ in range(9):
            y = y * x            # x ** 10
        y = y + x + x
    np.testing.assert_allclose(t.gradient(y, x).numpy(), 10 * 1.1 ** 9 + 2, rtol=1e-12)


def test_diamond_graph():
    x = tape.constant(0.3)
    with tape.GradientTape() as t:
        t.watch(x)
        a = tape.sin(x)
        b = tape.cos(x)
        y = a * b + a
    np.testing.assert_allclose(t.gradient(y, x).numpy(), np.cos(0.6) + np.cos(0.3), rtol=1e-12)


def test_multiple_outputs_op_partial_use():
    x = tape.constant(np.arange(6.0).reshape(3, 2))
    with tape.GradientTape() as t:
        t.watch(x)
        rows = tape.unstack(x)
        y = rows[2] * 2.0          # rows 0 and 1 unused
    np.testing.assert_array_equal(t.gradient(y, x).numpy(), [[0, 0], [0, 0], [2, 2]])


def test_split_gradient():
    x = tape.constant(np.arange(6.0))
    with tape.GradientTape() as t:
        t.watch(x)
        a, b, c = tape.split(x, 3)
        y = tape.reduce_sum(a) + 3.0 * tape.reduce_sum(c)
    np.testing.assert_array_equal(t.gradient(y, x).numpy(), [1, 1, 0, 0, 3, 3])


# -- variables in control flow and functions ------------------------------------------------------
def test_while_loop_with_captured_variable():
    v = tape.Variable(1.5)
    with tape.GradientTape() as t:
        _, acc = tape.while_loop(lambda i, a: i < 3, lambda i, a: (i + 1, a * v),
                                 (tape.constant(0), tape.constant(1.0)))
    np.testing.assert_allclose(t.gradient(acc, v).numpy(), 3 * 1.5 ** 2)


def test_cond_with_python_bool_and_variables():
    v = tape.Variable(2.0)
    with tape.GradientTape() as t:
        y = tape.cond(True, lambda: v * v, lambda: v)
    np.testing.assert_allclose(t.gradient(y, v).numpy(), 4.0)


def test_function_with_captured_variable_and_python_args():
    v = tape.Variable(3.0)

    @tape.function
    def f(x, power):
        return v * x ** power

    x = tape.constant(2.0)
    for power in (1, 2, 3):
        with tape.GradientTape() as t:
            t.watch(x)
            y = f(x, power)
        gx, gv = t.gradient(y, [x, v])
        np.testing.assert_allclose(gx.numpy(), 3.0 * power * 2.0 ** (power - 1))
        np.testing.assert_allclose(gv.numpy(), 2.0 ** power)
    v.assign(5.0)                         # a traced function must see the new value
    np.testing.assert_allclose(f(x, 1).numpy(), 10.0)


def test_custom_gradient_two_inputs():
    @tape.custom_gradient
    def mul(a, b):
        def grad(dy):
            return dy * b * 10.0, dy * a * 100.0
        return a * b, grad

    a, b = tape.constant(2.0), tape.constant(3.0)
    with tape.GradientTape() as t:
        t.watch([a, b])
        y = mul(a, b)
    ga, gb = t.gradient(y, [a, b])
    np.testing.assert_allclose([float(ga), float(gb)], [30.0, 200.0])


def test_custom_gradient_with_variables():
    v = tape.Variable(2.0)

    @tape.custom_gradient
    def scale(x):
        y = x * v

        def grad(dy, variables=None):
            assert variables is not None and len(variables) == 1 and variables[0] is v
            return dy * v, [dy * x * 7.0]
        return y, grad

    x = tape.constant(3.0)
    with tape.GradientTape() as t:
        t.watch(x)
        y = scale(x)
    gx, gv = t.gradient(y, [x, v])
    np.testing.assert_allclose([float(gx), float(gv)], [2.0, 21.0])


def test_custom_gradient_with_a_variable_passed_as_its_argument():
    # As in TensorFlow, a variable passed in is an input: grad_fn needs no `variables` keyword
    # and its result for that input is the variable's gradient.
    @tape.custom_gradient
    def triple(x):
        def grad(dy):
            return dy * 3.0
        return x * 3.0, grad

    v = tape.Variable([0.5, -1.5])
    with tape.GradientTape() as t:
        y = tape.reduce_sum(triple(v) * v)
    got = t.gradient(y, v).numpy()
    # d/dv sum(triple(v) * v) = 3 * v (through grad_fn) + triple(v) (through the product)
    np.testing.assert_allclose(got, 3.0 * v.numpy() + 3.0 * v.numpy(), rtol=1e-15)


# -- Jacobian options -----------------------------------------------------------------------------
@pytest.mark.parametrize("kw", [dict(parallel_iterations=2), dict(experimental_use_pfor=False),
                                dict(parallel_iterations=1, experimental_use_pfor=False)])
def test_jacobian_options_agree(kw):
    x = tape.constant(np.linspace(0.1, 0.9, 5))
    with tape.GradientTape(persistent=True) as t:
        t.watch(x)
        y = tape.sin(x) * tape.reduce_sum(x)
    want = t.jacobian(y, x).numpy()
    np.testing.assert_allclose(t.jacobian(y, x, **kw).numpy(), want, rtol=1e-14)


def test_batch_jacobian_options_agree():
    x = tape.constant(np.arange(1.0, 7.0).reshape(3, 2))
    with tape.GradientTape(persistent=True) as t:
        t.watch(x)
        y = x * tape.reduce_sum(x, axis=1, keepdims=True)
    want = t.batch_jacobian(y, x).numpy()
    assert want.shape == (3, 2, 2)
    xs = x.numpy()
    for b in range(3):
        np.testing.assert_allclose(want[b], np.diag([xs[b].sum()] * 2) + xs[b][:, None])
    np.testing.assert_allclose(t.batch_jacobian(y, x, experimental_use_pfor=False).numpy(), want)


def test_jacobian_of_a_scalar_and_of_a_variable():
    v = tape.Variable([1.0, 2.0])
    with tape.GradientTape() as t:
        y = tape.reduce_sum(v * v)
    j = t.jacobian(y, v)
    assert j.shape == (2,)
    np.testing.assert_allclose(j.numpy(), [2.0, 4.0])


def test_persistent_reset_and_reuse():
    x = tape.constant(2.0)
    with tape.GradientTape(persistent=True) as t:
        t.watch(x)
        y = x * x
    np.testing.assert_allclose(t.gradient(y, x).numpy(), 4.0)
    t.reset()
    assert t.gradient(y, x) is None
    with t:
        t.watch(x)
        z = x * x * x
    np.testing.assert_allclose(t.gradient(z, x).numpy(), 12.0)


# -- forward precision over wide ranges (relative error, float64) ---------------------------------
def _sigmoid_ref(x):
    x = np.asarray(x, dtype=float)
    e = np.exp(-np.abs(x))
    return np.where(x >= 0, 1 / (1 + e), e / (1 + e))


@pytest.mark.parametrize("name, op, ref, xs", [
    ("sigmoid", tape.sigmoid, _sigmoid_ref, [-700.0, -40.0, -30.0, -5.0, 0.0, 5.0, 40.0]),
    ("nn.sigmoid", tape.nn.sigmoid, _sigmoid_ref, [-700.0, -40.0, -30.0, 0.0, 40.0]),
    ("softplus", tape.softplus, lambda x: np.logaddexp(0.0, x), [-700.0, -40.0, -1.0, 0.0, 40.0, 700.0]),
    ("expm1", tape.expm1, np.expm1, [-1e-12, 1e-10, 0.5]),
    ("log1p", tape.log1p, np.log1p, [-1e-12, 1e-10, 0.5]),
    ("erf", tape.erf, np.vectorize(__import__("math").erf), [-1e-10, 1e-8, 0.5, 3.0]),
], ids=["sigmoid", "nn.sigmoid", "softplus", "expm1", "log1p", "erf"])
def test_forward_relative_precision(name, op, ref, xs):
    got = op(tape.constant(xs)).numpy()
    np.testing.assert_allclose(got, ref(np.array(xs)), rtol=1e-12, atol=0, err_msg=name)


def test_sigmoid_gradient_relative_precision():
    xs = np.array([-40.0, -30.0, 30.0])
    s = _sigmoid_ref(xs)
    np.testing.assert_allclose(grad(tape.sigmoid, xs)[0], s * _sigmoid_ref(-xs), rtol=1e-12)  # exact: no 1 - s
    np.testing.assert_allclose(grad(tape.nn.softplus, xs)[0], s, rtol=1e-12)


# -- complex gradients: TensorFlow's convention --------------------------------------------------
def test_complex_gradient_follows_tensorflow_convention():
    # TF returns the conjugate of the holomorphic derivative for upstream 1 (its Mul rule is
    # grad * conj(y)), i.e. dL/dx + i dL/dy for a real L(x + iy). For L = Re(z**2) = x**2 - y**2
    # at z = 1 + 1j: 2x - 2y i = 2 - 2j.
    z = tape.constant(np.array([1 + 1j]))
    with tape.GradientTape() as t:
        t.watch(z)
        loss = tape.math.real(z * z)
    np.testing.assert_allclose(t.gradient(loss, z).numpy(), [2 - 2j])


# -- small API details a TF user relies on ---------------------------------------------------------
def test_numpy_result_does_not_alias_the_tensor():
    # TF: numpy() is "a copy of the contents of this Tensor"; writing to it must not change the
    # (immutable) tensor or what a tape recorded
    x = tape.constant([1.0, 2.0])
    a = x.numpy()
    try:
        a[0] = 100.0
    except ValueError:
        pass                       # a read-only view is fine too
    assert x.numpy()[0] == 1.0


def test_tensorshape_compares_to_lists():
    s = tape.constant(np.zeros((2, 3))).shape
    assert s == (2, 3)
    assert s == [2, 3]
    assert s.as_list() == [2, 3]
    assert str(s) == "(2, 3)"


def test_python_numbers_keep_their_sign_and_type_after_caching():
    # Python numbers become cached constant tensors; 0.0 == -0.0 and 2 == 2.0 must not share one
    # where the result differs.
    x = tape.constant(1.0)
    assert np.signbit((x * 0.0).numpy()) == False  # noqa: E712
    assert np.signbit((x * -0.0).numpy()) == True  # noqa: E712
    assert (x * 0).numpy() == 0 and np.signbit((x * -0.0).numpy())
    i = tape.constant(3)
    assert (i * 2).dtype == tape.int64 and (i * 2.0).dtype == tape.float64
    assert (i * 2).dtype == tape.int64
    assert np.signbit((i * -0.0).numpy()) and not np.signbit((i * 0.0).numpy())
    assert (x * (2 + 0j)).dtype == tape.complex128 and (x * 2).dtype == tape.float64
