"""tape.pointwise_partials: every point's value and partials up to an order, in one set of
sweeps over a batch of points, checked against per-point transforms and finite differences."""
from __future__ import annotations

import numpy as np
import pytest

import tape

XS = np.array([0.5, -1.25, 2.0])
YS = np.array([3.0, 0.75, -2.5])


def f(x, y):
    return x * x * y + tape.sin(x) * tape.exp(y * 0.1)


def one_point(x, y):
    return x * x * y + np.sin(x) * np.exp(y * 0.1)


def test_first_and_second_partials_match_each_points_own_hessian():
    levels = tape.pointwise_partials(f, [XS, YS], [(0, None), (1, None)], order=2)
    assert [sorted(level) for level in levels] == [[()], [(0,), (1,)],
                                                   [(0, 0), (0, 1), (1, 1)]]
    np.testing.assert_allclose(levels[0][()], one_point(XS, YS), rtol=1e-15)
    for i in range(len(XS)):
        point = tape.constant([XS[i], YS[i]])
        g = tape.grad(lambda p: f(p[0], p[1]))(point).numpy()
        h = tape.hessian(lambda p: f(p[0], p[1]))(point).numpy()
        np.testing.assert_allclose([levels[1][(0,)][i], levels[1][(1,)][i]], g, rtol=1e-13)
        np.testing.assert_allclose([levels[2][(0, 0)][i], levels[2][(0, 1)][i],
                                    levels[2][(1, 1)][i]], [h[0, 0], h[0, 1], h[1, 1]],
                                   rtol=1e-13)


def test_first_partials_match_finite_differences():
    levels = tape.pointwise_partials(f, [XS, YS], [(1, None)], order=1)
    h = 1e-6
    want = (one_point(XS, YS + h) - one_point(XS, YS - h)) / (2 * h)
    np.testing.assert_allclose(levels[1][(0,)], want, rtol=1e-8)


def test_a_column_of_a_matrix_argument_and_an_unconnected_component():
    w = np.array([[1.0, 2.0], [3.0, -1.0], [0.5, 0.25]])

    def g(w, x):
        return w[:, 0] * w[:, 1] ** 2 + 0.0 * x

    levels = tape.pointwise_partials(g, [w, XS], [(0, 1), (0, 0), (1, None)], order=1)
    np.testing.assert_allclose(levels[1][(0,)], 2 * w[:, 0] * w[:, 1])
    np.testing.assert_allclose(levels[1][(1,)], w[:, 1] ** 2)
    np.testing.assert_array_equal(levels[1][(2,)], np.zeros(3))


def test_order_zero_is_the_value_alone_and_a_bad_order_is_refused():
    levels = tape.pointwise_partials(f, [XS, YS], [(0, None)], order=0)
    assert len(levels) == 1
    np.testing.assert_allclose(levels[0][()], one_point(XS, YS))
    for order in (-1, 1.5, True):
        with pytest.raises(ValueError, match="order must be a non-negative integer"):
            tape.pointwise_partials(f, [XS, YS], [(0, None)], order=order)
