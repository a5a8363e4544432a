"""Property tests: gradients of broadcasting binary ops on random shapes, against closed forms."""
import numpy as np
import pytest

hypothesis = pytest.importorskip("hypothesis")
from hypothesis import given, settings, strategies as st  # noqa: E402
from hypothesis.extra import numpy as hnp  # noqa: E402

import tape  # noqa: E402

# d/dx, d/dy of f(x, y), elementwise on the broadcast shape
RULES = {
    "add": (tape.add, lambda x, y: np.ones_like(x * y), lambda x, y: np.ones_like(x * y)),
    "subtract": (tape.subtract, lambda x, y: np.ones_like(x * y), lambda x, y: -np.ones_like(x * y)),
    "multiply": (tape.multiply, lambda x, y: y + 0 * x, lambda x, y: x + 0 * y),
    "divide": (tape.divide, lambda x, y: 1 / y + 0 * x, lambda x, y: -x / y ** 2),
    "pow": (tape.pow, lambda x, y: y * x ** (y - 1), lambda x, y: x ** y * np.log(x)),
}


def _unbroadcast(g, shape):
    while g.ndim > len(shape):
        g = g.sum(axis=0)
    for i, n in enumerate(shape):
        if n == 1 and g.shape[i] != 1:
            g = g.sum(axis=i, keepdims=True)
    return g


@settings(max_examples=60, deadline=None)
@given(shapes=hnp.mutually_broadcastable_shapes(num_shapes=2, max_dims=3, max_side=3),
       name=st.sampled_from(sorted(RULES)), seed=st.integers(0, 2 ** 16))
def test_broadcasting_binary_gradients(shapes, name, seed):
    rng = np.random.default_rng(seed)
    sx, sy = shapes.input_shapes
    x = rng.uniform(0.5, 2.0, sx)
    y = rng.uniform(0.5, 2.0, sy) * (1 if name == "pow" else rng.choice([-1, 1], size=sy))
    op, dx, dy = RULES[name]
    w = rng.standard_normal(shapes.result_shape)
    tx, ty = tape.constant(x), tape.constant(y)
    with tape.GradientTape() as t:
        t.watch([tx, ty])
        out = op(tx, ty)
    assert tuple(out.shape) == shapes.result_shape
    gx, gy = t.gradient(out, [tx, ty], output_gradients=tape.constant(w))
    assert tuple(gx.shape) == tuple(sx) and tuple(gy.shape) == tuple(sy)
    np.testing.assert_allclose(np.asarray(gx), _unbroadcast(w * dx(x, y), sx), rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(np.asarray(gy), _unbroadcast(w * dy(x, y), sy), rtol=1e-10, atol=1e-12)


@settings(max_examples=40, deadline=None)
@given(x=hnp.arrays(np.float64, hnp.array_shapes(min_dims=1, max_dims=3, max_side=4),
                    elements=st.floats(-3, 3)),
       data=st.data())
def test_reduce_sum_and_mean_gradients(x, data):
    axis = data.draw(st.one_of(st.none(), st.integers(-x.ndim, x.ndim - 1)))
    keepdims = data.draw(st.booleans())
    t = tape.constant(x)
    with tape.GradientTape(persistent=True) as g:
        g.watch(t)
        s = tape.reduce_sum(t, axis=axis, keepdims=keepdims)
        m = tape.reduce_mean(t, axis=axis, keepdims=keepdims)
    np.testing.assert_allclose(np.asarray(s), np.sum(x, axis=axis, keepdims=keepdims), atol=1e-12)
    np.testing.assert_array_equal(np.asarray(g.gradient(s, t)), np.ones_like(x))
    n = x.size if axis is None else x.shape[axis]
    np.testing.assert_allclose(np.asarray(g.gradient(m, t)), np.full(x.shape, 1.0 / n), rtol=1e-12)
