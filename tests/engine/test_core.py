"""Core engine behaviour: recording, nesting, Jacobian sweeps, NumPy dispatch."""
import numpy as np
import pytest

import tape
from tape.engine import tape as tape_module
from tape.engine.testing import check_grads


def fd(f, x, eps=1e-6):
    return (f(x + eps) - f(x - eps)) / (2 * eps)


def test_polynomial_gradient_matches_finite_difference():
    poly = lambda v: 2 * v**3 + 4 * v**2 + 5 * v + 6
    x = tape.Variable(0.5)
    with tape.GradientTape() as t:
        y = poly(x)
    assert float(t.gradient(y, x)) == pytest.approx(fd(poly, 0.5), rel=1e-9)


def test_third_derivative_through_nested_tapes():
    x = tape.constant(0.7)
    with tape.GradientTape() as t3:
        t3.watch(x)
        with tape.GradientTape() as t2:
            t2.watch(x)
            with tape.GradientTape() as t1:
                t1.watch(x)
                y = tape.sin(x) * tape.exp(x)
            d1 = t1.gradient(y, x)
        d2 = t2.gradient(d1, x)
    d3 = t3.gradient(d2, x)
    # d^3/dx^3 sin(x) e^x = 2 e^x (cos x - sin x)
    assert float(d3) == pytest.approx(2 * np.exp(0.7) * (np.cos(0.7) - np.sin(0.7)), rel=1e-12)


@pytest.mark.parametrize("f,shapes", [
    (lambda a, b: a * b + a / (b + 3.0), [(2, 3), (1, 3)]),
    (lambda a, b: tape.matmul(a, b), [(2, 3), (3, 4)]),
    (lambda a: tape.reduce_logsumexp(a, axis=1), [(3, 4)]),
    (lambda a: tape.linalg.norm(a, axis=0), [(3, 4)]),
])
def test_check_grads_second_order(f, shapes):
    rng = np.random.default_rng(1)
    check_grads(f, [rng.uniform(0.5, 1.5, s) for s in shapes], order=2)


def test_jacobian_is_one_sweep():
    rng = np.random.default_rng(0)
    A = tape.constant(rng.standard_normal((200, 5)))
    x = tape.constant(rng.standard_normal(5))
    with tape.GradientTape() as t:
        t.watch(x)
        y = tape.tanh(tape.linalg.matmul(A, x))
    before = tape_module.sweep_count
    J = t.jacobian(y, x)
    assert tape_module.sweep_count - before == 1
    expected = (1 - np.tanh(A.numpy() @ x.numpy()) ** 2)[:, None] * A.numpy()
    np.testing.assert_allclose(J.numpy(), expected, rtol=1e-12)


def test_numpy_functions_are_recorded():
    x = tape.constant(np.array([0.2, 0.4]))
    with tape.GradientTape() as t:
        t.watch(x)
        y = np.sum(np.sin(x) * np.exp(x))
    g = t.gradient(y, x).numpy()
    xv = x.numpy()
    np.testing.assert_allclose(g, np.exp(xv) * (np.sin(xv) + np.cos(xv)), rtol=1e-12)


def test_repr_matches_spec():
    assert repr(tape.constant(16.0)) == "tape.Tensor(16.0, shape=(), dtype=float64)"
    assert repr(tape.Variable(3.0, name="x0")) == \
        "tape.Variable('x0:0', shape=(), dtype=float64, numpy=3.0)"
