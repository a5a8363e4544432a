"""NumPy functions on tape tensors are recorded like tape ops (SPEC section 2, beyond TF)."""
import warnings

import numpy as np
import pytest

import tape
from _gradcheck import check

rng = np.random.default_rng(7)


def U(shape, lo=-1.5, hi=1.5):
    return rng.uniform(lo, hi, shape)


def test_np_sin_is_recorded():
    x = tape.constant([0.3, 1.2])
    with tape.GradientTape() as t:
        t.watch(x)
        y = np.sin(x)
    assert isinstance(y, tape.Tensor)
    np.testing.assert_allclose(y.numpy(), np.sin([0.3, 1.2]))
    np.testing.assert_allclose(t.gradient(y, x).numpy(), np.cos([0.3, 1.2]))


def test_numpy_code_on_variables():
    w = tape.Variable([[1.0, 2.0], [3.0, 4.0]])
    with tape.GradientTape() as t:
        y = np.sum(np.exp(w) * w)
    np.testing.assert_allclose(t.gradient(y, w).numpy(), np.exp(w.numpy()) * (1 + w.numpy()))


NUMPY_CASES = {
    "np.sin": (lambda a: np.sin(a), [(2, 3)]),
    "np.cos": (lambda a: np.cos(a), [(3,)]),
    "np.exp": (lambda a: np.exp(a), [(2, 3)]),
    "np.log": (lambda a: np.log(a * a + 1.0), [(2, 3)]),
    "np.sqrt": (lambda a: np.sqrt(a * a + 0.5), [(3,)]),
    "np.tanh": (lambda a: np.tanh(a), [(3,)]),
    "np.square": (lambda a: np.square(a), [(3,)]),
    "np.power": (lambda a: np.power(a * a + 0.5, 1.5), [(3,)]),
    "np.maximum": (lambda a, b: np.maximum(a, b + 3.0), [(2, 3), (3,)]),
    "np.sum": (lambda a: np.sum(a), [(2, 3)]),
    "np.sum axis": (lambda a: np.sum(a, axis=0), [(2, 3)]),
    "np.sum keepdims": (lambda a: np.sum(a, axis=1, keepdims=True), [(2, 3)]),
    "np.mean": (lambda a: np.mean(a), [(2, 3)]),
    "np.mean axis": (lambda a: np.mean(a, axis=1), [(2, 3)]),
    "np.prod": (lambda a: np.prod(a * 0.5 + 1.0, axis=0), [(2, 3)]),
    "np.dot vec": (lambda a, b: np.dot(a, b), [(3,), (3,)]),
    "np.dot mat": (lambda a, b: np.dot(a, b), [(2, 3), (3, 2)]),
    "np.matmul": (lambda a, b: np.matmul(a, b), [(2, 3), (3, 4)]),
    "ndarray @ tensor": (lambda a: np.ones((2, 3)) @ a, [(3, 2)]),
    "np.where": (lambda a, b: np.where(np.array([True, False, True]), a, b), [(2, 3), (3,)]),
    "np.clip": (lambda a: np.clip(a * 3.0 + 0.05, -1.0, 1.0), [(2, 3)]),
    "np.reshape": (lambda a: np.reshape(a, (3, 2)), [(2, 3)]),
    "np.transpose": (lambda a: np.transpose(a), [(2, 3)]),
    "np.concatenate": (lambda a, b: np.concatenate([a, b], axis=0), [(2, 3), (1, 3)]),
    "np.stack": (lambda a, b: np.stack([a, b], axis=1), [(2, 3), (2, 3)]),
    "np.abs": (lambda a: np.abs(a + 3.0), [(3,)]),
    "ndarray * tensor": (lambda a: np.arange(3.0) * a, [(2, 3)]),
    "tensor - ndarray": (lambda a: (a - np.arange(3.0)) ** 2, [(2, 3)]),
}


@pytest.mark.parametrize("name", sorted(NUMPY_CASES))
def test_numpy_function_gradients(name):
    f, shapes = NUMPY_CASES[name]
    args = [U(s) for s in shapes]
    if name == "np.clip":
        args = [np.where(np.abs(np.abs(a * 3.0 + 0.05) - 1.0) < 0.1, a + 0.2, a) for a in args]
    out = f(*[tape.constant(a) for a in args])
    assert isinstance(out, tape.Tensor), type(out)
    np.testing.assert_allclose(out.numpy(), f(*args), rtol=1e-12)
    check(f, args, label=name)


def test_numpy_function_without_rule_raises_while_recording():
    x = tape.constant([0.3, 0.7])
    with tape.GradientTape() as t:
        t.watch(x)
        for call in (lambda: np.i0(x), lambda: np.i0(x * 2.0)):
            with pytest.raises(tape.NotDifferentiableError, match="numpy.i0 is not differentiable") as err:
                call()
            assert "tape.stop_gradient(x) or x.numpy()" in str(err.value)
        assert isinstance(err.value, TypeError)
        # a constant on purpose, as the message says
        y = np.i0(tape.stop_gradient(x))
        z = tape.reduce_sum(y * x)
    np.testing.assert_allclose(t.gradient(z, x).numpy(), np.i0([0.3, 0.7]))


def test_a_ufunc_without_rule_raises_too():
    x = tape.constant([0.3, 0.7])
    with tape.GradientTape() as t:
        t.watch(x)
        with pytest.raises(tape.NotDifferentiableError, match="numpy.nextafter"):
            np.nextafter(x, 1.0)


def test_untracked_tensors_go_through_numpy_functions_without_rule():
    x, other = tape.constant([0.3, 0.7]), tape.constant([1.0, 2.0])
    with tape.GradientTape() as t:
        t.watch(x)
        np.testing.assert_allclose(np.asarray(np.i0(other)), np.i0([1.0, 2.0]))


def test_numpy_function_without_rule_does_not_warn_outside_recording():
    x = tape.constant([0.3, 0.7])
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        y = np.i0(x)
    np.testing.assert_allclose(np.asarray(y), np.i0([0.3, 0.7]))


def test_np_mean_of_tutorial_is_recorded_in_float32():
    x = tape.Variable([[1.0, 2.0], [3.0, 4.0]], dtype=tape.float32)
    with tape.GradientTape() as t:
        y = tape.reduce_mean(np.mean(x ** 2, axis=0), axis=0)
    g = t.gradient(y, x)
    assert g.dtype == tape.float32
    np.testing.assert_allclose(g.numpy(), x.numpy() / 2, rtol=1e-6)


def test_numpy_interop_second_order():
    x = tape.constant(0.8)
    with tape.GradientTape() as t2:
        t2.watch(x)
        with tape.GradientTape() as t1:
            t1.watch(x)
            y = np.exp(np.sin(x))
        dy = t1.gradient(y, x)
    d2y = t2.gradient(dy, x)
    v = 0.8
    np.testing.assert_allclose(float(dy), np.exp(np.sin(v)) * np.cos(v), rtol=1e-12)
    np.testing.assert_allclose(float(d2y), np.exp(np.sin(v)) * (np.cos(v) ** 2 - np.sin(v)), rtol=1e-12)


def test_np_asarray_gives_the_values():
    t = tape.constant([[1.0, 2.0]])
    a = np.asarray(t)
    assert isinstance(a, np.ndarray) and a.tolist() == [[1.0, 2.0]]
    assert np.array(t, dtype=np.float32).dtype == np.float32


# -- in-place NumPy operations on plain arrays ------------------------------------------------
# `a += x` with `a` an ndarray is np.add(a, x, out=a): NumPy writes the values into `a`.
INPLACE = {
    "+=": lambda a, x: a.__iadd__(x), "-=": lambda a, x: a.__isub__(x),
    "*=": lambda a, x: a.__imul__(x), "/=": lambda a, x: a.__itruediv__(x),
    "**=": lambda a, x: a.__ipow__(x),
}


@pytest.mark.parametrize("op", INPLACE)
def test_inplace_op_on_an_array_says_what_happened_and_how_to_stay_on_the_tape(op):
    x = tape.constant([2.0, 3.0])
    a = np.array([1.0, 4.0])
    with tape.GradientTape() as t:
        t.watch(x)
        with pytest.raises(tape.NotDifferentiableError) as err:
            INPLACE[op](a, x)
    message = str(err.value)
    plain = op[:-1]
    assert message.startswith("in-place NumPy operation"), message
    assert f"`a {op} x` on a NumPy array `a`" in message, message
    assert "constant" in message, message
    assert f"`a = a {plain} x`" in message and "tape.constant(a)" in message, message
    assert "__call__" not in message
    np.testing.assert_allclose(a, [1.0, 4.0])          # left as it was


@pytest.mark.parametrize("call, named", [
    (lambda x, a: np.sin(x, out=a), "np.sin"),
    # not `a += x`: the output is not the first input
    (lambda x, a: np.add(x, 1.0, out=a), "np.add"),
    (lambda x, a: np.add.accumulate(x, out=a), "np.add.accumulate"),
])
def test_ufunc_with_out_names_the_call(call, named):
    x = tape.constant([0.5, 1.0])
    a = np.zeros(2)
    with tape.GradientTape() as t:
        t.watch(x)
        with pytest.raises(tape.NotDifferentiableError) as err:
            call(x, a)
    message = str(err.value)
    assert f"`{named}(..., out=a)` on a NumPy array `a`" in message, message
    assert f"`a = {named}(...)`" in message, message


def test_the_suggested_fixes_stay_on_the_tape_without_a_warning():
    x = tape.constant([2.0, 3.0])
    with tape.GradientTape(persistent=True) as t:
        t.watch(x)
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            a = np.array([1.0, 4.0])
            a = a + x
            b = tape.constant(np.array([1.0, 4.0]))
            b += x                                        # a tensor: rebinds b to b + x
        ya, yb = tape.reduce_sum(a * x), tape.reduce_sum(b * x)
    # d/dx sum((c + x) x) = c + 2x
    np.testing.assert_allclose(t.gradient(ya, x).numpy(), [5.0, 10.0])
    np.testing.assert_allclose(t.gradient(yb, x).numpy(), [5.0, 10.0])


def test_inplace_op_without_a_tape_does_not_warn():
    x = tape.constant([2.0, 3.0])
    a = np.ones(2)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        a += x
        np.sin(x, out=a)
    np.testing.assert_allclose(a, np.sin([2.0, 3.0]))


def test_ufunc_at_cannot_change_a_tensor():
    x = tape.constant([1.0, 2.0])
    with pytest.raises(TypeError, match="immutable"):
        np.add.at(x, [0], 5.0)
    np.testing.assert_array_equal(x.numpy(), [1.0, 2.0])


def test_np_ndim_and_shape_of_a_tensor_do_not_warn():
    x = tape.constant([[1.0, 2.0]])
    with tape.GradientTape() as t:
        t.watch(x)
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            assert np.ndim(x) == 2 and np.shape(x) == (1, 2)
