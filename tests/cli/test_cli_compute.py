"""The numeric core of the CLI: batched partials, Jacobians, component bookkeeping."""
from __future__ import annotations

import math

import numpy as np
import pytest

import tape
from tape.calculus import derivatives
from tape.calculus.derivatives import Component


def test_multisets_are_lexicographic_and_distinct():
    assert derivatives.multisets(2, 2) == [(0, 0), (0, 1), (1, 1)]
    assert len(derivatives.multisets(3, 3)) == math.comb(5, 3)


def test_components_flatten_vectors_in_wrt_order():
    comps = derivatives.components(["x", "w"], ["w", "x"], {"x": None, "w": 2})
    assert [c.label for c in comps] == ["w[0]", "w[1]", "x"]


def test_batched_partials_are_each_points_own():
    # f(x, y) = x^3 y^2 at 50 points, all partials up to order 3 against closed forms
    rng = np.random.default_rng(0)
    x, y = rng.normal(size=50), rng.normal(size=50)
    comps = [Component("x", 0, None), Component("y", 1, None)]
    value, parts = derivatives.partials(lambda a, b: a ** 3 * b ** 2, [x, y], comps, 3)
    np.testing.assert_allclose(value, x ** 3 * y ** 2)
    np.testing.assert_allclose(parts[(0, 0, 0)], 6 * y ** 2)
    np.testing.assert_allclose(parts[(0, 0, 1)], 12 * x * y)
    np.testing.assert_allclose(parts[(0, 1, 1)], 6 * x ** 2)
    np.testing.assert_allclose(parts[(1, 1, 1)], 0 * x, atol=0)


def test_taylor_mode_and_nested_tapes_agree():
    if not hasattr(tape, "derivative"):
        pytest.skip("tape.derivative not in the engine yet")
    x = np.linspace(-1, 1, 7)
    comp = Component("x", 0, None)
    f = lambda t: tape.sin(t) * tape.exp(t)  # noqa: E731
    taylor = derivatives.single_derivative(f, [x], comp, 4)
    assert taylor is not None
    _, nested = derivatives.partials(f, [x], [comp], 4)
    np.testing.assert_allclose(taylor[1][(0, 0, 0, 0)], nested[(0, 0, 0, 0)], rtol=1e-10)


def test_jacobian_of_batched_vector_function():
    r, th = np.array([1.0, 2.0]), np.array([0.0, 0.5])
    comps = [Component("r", 0, None), Component("th", 1, None)]
    fn = lambda a, b: tape.stack([a * tape.cos(b), a * tape.sin(b)], axis=-1)  # noqa: E731
    value, jac = derivatives.jacobian(fn, [r, th], comps)
    assert value.shape == (2, 2) and jac.shape == (2, 2, 2)
    np.testing.assert_allclose(jac[1], [[math.cos(0.5), -2 * math.sin(0.5)],
                                        [math.sin(0.5), 2 * math.cos(0.5)]])
