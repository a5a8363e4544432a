"""tape.grad, tape.value_and_grad and tape.elementwise_grad of plain NumPy functions, as
autograd's: values compared with finite differences (and autograd where it is installed)."""
import numpy as np
import pytest

import tape


def _fd(f, x, eps=1e-6):
    x = np.asarray(x, dtype=float)
    g = np.zeros_like(x)
    for i in np.ndindex(x.shape):
        e = np.zeros_like(x)
        e[i] = eps
        g[i] = (f(x + e) - f(x - e)) / (2 * eps)
    return g


def loss(w):
    return np.sum(np.tanh(w) ** 2) + np.std(w) * np.linalg.slogdet(np.outer(w, w) + np.eye(3))[1]


def test_grad_of_a_plain_numpy_function():
    w = np.array([0.3, -0.8, 1.1])
    g = tape.grad(loss)(w)
    np.testing.assert_allclose(np.asarray(g), _fd(loss, w), rtol=1e-6)


def test_value_and_grad_with_autograds_argnum():
    f = lambda x, y: np.sum(np.sin(x) * y)
    x, y = np.array([0.1, 0.2]), np.array([3.0, 4.0])
    value, g = tape.value_and_grad(f, argnum=1)(x, y)
    assert float(value) == pytest.approx(f(x, y))
    np.testing.assert_allclose(np.asarray(g), np.sin(x))


def test_elementwise_grad():
    x = np.linspace(-2, 2, 7)
    np.testing.assert_allclose(np.asarray(tape.elementwise_grad(np.tanh)(x)), 1 - np.tanh(x) ** 2,
                               rtol=1e-12)
    f = lambda x: np.sinc(x) * x
    np.testing.assert_allclose(np.asarray(tape.elementwise_grad(f)(x)),
                               [(f(v + 1e-6) - f(v - 1e-6)) / 2e-6 for v in x], rtol=1e-6)


def test_gradient_of_containers_has_their_structure():
    params = {"w": np.array([[1.0, 2.0], [3.0, 4.0]]), "b": [np.array(0.5), np.array([1.0, -1.0])]}

    def f(p):
        return np.sum(p["w"] ** 2) + p["b"][0] * 3.0 + np.dot(p["b"][1], p["b"][1])

    g = tape.grad(f)(params)
    assert set(g) == {"w", "b"} and isinstance(g["b"], list)
    np.testing.assert_allclose(np.asarray(g["w"]), 2 * params["w"])
    assert float(g["b"][0]) == 3.0
    np.testing.assert_allclose(np.asarray(g["b"][1]), [2.0, -2.0])


def test_second_derivative_by_nesting():
    f = lambda x: np.sin(x) * np.exp(x)
    d2 = tape.grad(tape.grad(f))(0.7)
    assert float(d2) == pytest.approx(2 * np.cos(0.7) * np.exp(0.7), rel=1e-12)


def test_agrees_with_autograd_where_installed():
    ag = pytest.importorskip("autograd")
    anp = pytest.importorskip("autograd.numpy")

    def make(np_):
        return lambda w: np_.sum(np_.tanh(w) ** 2) + np_.std(w) * np_.linalg.slogdet(
            np_.outer(w, w) + np_.eye(3))[1]

    w = np.array([0.3, -0.8, 1.1])
    np.testing.assert_allclose(np.asarray(tape.grad(make(np))(w)), ag.grad(make(anp))(w), rtol=1e-10)
