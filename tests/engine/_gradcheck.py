"""An independent numerical gradient checker for the test suite.

Written apart from ``tape.engine.testing.check_grads`` on purpose: the per-op tests should not
trust engine code to check the engine. Only the public API is used (GradientTape, constant,
reduce_sum).

``check(f, args, order=2)``: ``f`` maps float64 tensors to a tensor of any shape. It is reduced
to a scalar with fixed random output weights; then, for each argument separately, the tape's
gradient (projected on a random direction) is compared with a fourth-order central difference.
For ``order=2`` the same is done, recursively, for the function ``x -> <grad f(x), u>``
computed with a nested GradientTape, so the outer tape differentiates the inner backward pass.
"""
from __future__ import annotations

import numpy as np

import tape

EPS = 1e-3
RTOL = 1e-6
ATOL = 1e-8


def _tensors(arrays):
    return [tape.constant(a) for a in arrays]


def _stencil(fun, arrays, i, v, eps):
    """Fourth-order central difference of ``fun`` (arrays -> float) along v in argument i."""
    def at(h):
        moved = list(arrays)
        moved[i] = arrays[i] + h * v
        return fun(moved)
    return (-at(2 * eps) + 8 * at(eps) - 8 * at(-eps) + at(-2 * eps)) / (12 * eps)


def _check_level(F, arrays, order, level, connected, rng, eps, rtol, atol, label):
    """F: tensors -> scalar tensor. Checks its gradient, then recurses for higher orders."""
    def as_float(arrs):
        return float(np.asarray(F(*_tensors(arrs))))

    xs = _tensors(arrays)
    with tape.GradientTape() as t:
        t.watch(xs)
        y = F(*xs)
    grads = t.gradient(y, xs)
    assert isinstance(grads, list) and len(grads) == len(xs), \
        f"{label}: gradient of a list of sources is not a list of the same length: {grads!r}"
    for i, (g, a) in enumerate(zip(grads, arrays)):
        v = rng.standard_normal(a.shape)
        numeric = _stencil(as_float, arrays, i, v, eps)
        if g is None:
            assert not connected, f"{label}: order {level} gradient for argument {i} is None"
            analytic = 0.0
        else:
            assert tuple(g.shape) == a.shape, \
                f"{label}: order {level} gradient for argument {i} has shape {tuple(g.shape)}, " \
                f"expected {a.shape}"
            assert g.dtype == tape.float64, \
                f"{label}: order {level} gradient for argument {i} has dtype {g.dtype.name}"
            analytic = float(np.sum(np.asarray(g) * v))
        scale = max(1.0, abs(numeric))
        assert abs(analytic - numeric) <= atol + rtol * scale, \
            f"{label}: order {level} derivative along a random direction in argument {i}: " \
            f"tape gives {analytic!r}, central differences give {numeric!r}"

    if level < order:
        dirs = [rng.standard_normal(a.shape) for a in arrays]

        def G(*xs):
            with tape.GradientTape() as inner:
                inner.watch(list(xs))
                y = F(*xs)
            gs = inner.gradient(y, list(xs))
            total = tape.constant(0.0)
            for g, d in zip(gs, dirs):
                if g is not None:
                    total = total + tape.reduce_sum(g * tape.constant(d))
            return total
        _check_level(G, arrays, order, level + 1, False, rng, eps, rtol, atol, label)


def check(f, args, order=2, *, seed=0, eps=EPS, rtol=RTOL, atol=ATOL, label=None, connected=True):
    """Assert that tape derivatives of ``f`` up to ``order`` agree with central differences.

    ``connected``: the first-order gradient of every argument must not be None.
    """
    rng = np.random.default_rng(seed)
    arrays = [np.array(a, dtype=np.float64) for a in args]
    out = f(*_tensors(arrays))
    w = tape.constant(rng.standard_normal(tuple(out.shape)))
    label = label or getattr(f, "__name__", "f")

    def F(*xs):
        return tape.reduce_sum(f(*xs) * w)
    _check_level(F, arrays, order, 1, connected, rng, eps, rtol, atol, label)


def _numeric_jacobian(fun, arrays, i, eps):
    """d fun(arrays) / d arrays[i] by central differences: shape out.shape + arrays[i].shape."""
    a = arrays[i]
    cols = []
    for k in range(a.size):
        e = np.zeros(a.size)
        e[k] = 1.0
        cols.append(_stencil(fun, arrays, i, e.reshape(a.shape), eps))
    out_shape = np.shape(cols[0]) if cols else ()
    return np.stack(cols, axis=-1).reshape(out_shape + a.shape) if cols else np.zeros(out_shape + a.shape)


def check_jacobian(f, args, *, hessian=True, seed=0, eps=EPS, rtol=RTOL, atol=1e-7, label=None):
    """Compare ``GradientTape.jacobian`` (vectorized: batched cotangents through every rule) with
    central differences and, with ``hessian``, the Jacobian of the gradient taken by an outer tape
    (batched cotangents through the gradient rules' own ops) with differences of the gradient."""
    label = label or getattr(f, "__name__", "f")
    arrays = [np.array(a, dtype=np.float64) for a in args]

    def value(arrs):
        return np.asarray(f(*_tensors(arrs)), dtype=np.float64)

    xs = _tensors(arrays)
    with tape.GradientTape() as t:
        t.watch(xs)
        y = f(*xs)
    jac = t.jacobian(y, xs, unconnected_gradients=tape.UnconnectedGradients.ZERO)
    for i, (j, a) in enumerate(zip(jac, arrays)):
        want = _numeric_jacobian(value, arrays, i, eps)
        assert tuple(j.shape) == want.shape, \
            f"{label}: jacobian for argument {i} has shape {tuple(j.shape)}, expected {want.shape}"
        np.testing.assert_allclose(np.asarray(j), want, rtol=rtol, atol=atol,
                                   err_msg=f"{label}: jacobian for argument {i}")
    if not hessian:
        return
    rng = np.random.default_rng(seed)
    w = tape.constant(rng.standard_normal(tuple(y.shape)))

    def grads_at(arrs_or_tensors, outer=None):
        ts = arrs_or_tensors
        with tape.GradientTape() as inner:
            inner.watch(ts)
            s = tape.reduce_sum(f(*ts) * w)
        return inner.gradient(s, ts, unconnected_gradients=tape.UnconnectedGradients.ZERO)

    xs = _tensors(arrays)
    with tape.GradientTape(persistent=True) as outer:
        outer.watch(xs)
        gs = grads_at(xs)
    for i, g in enumerate(gs):
        hs = outer.jacobian(g, xs, unconnected_gradients=tape.UnconnectedGradients.ZERO)
        for k, h in enumerate(hs):
            def gi(arrs, i=i):
                return np.asarray(grads_at(_tensors(arrs))[i], dtype=np.float64)
            want = _numeric_jacobian(gi, arrays, k, eps)
            assert tuple(h.shape) == want.shape, \
                f"{label}: hessian block ({i}, {k}) has shape {tuple(h.shape)}, expected {want.shape}"
            np.testing.assert_allclose(np.asarray(h), want, rtol=1e-5, atol=1e-6,
                                       err_msg=f"{label}: hessian block ({i}, {k})")


def fd_jacobian(f, x, eps=1e-6):
    """Central-difference Jacobian of ``f`` (tensor -> tensor) at ``x``: shape y.shape + x.shape."""
    import tape as tf
    x = np.asarray(x, dtype=float)
    y = np.asarray(f(tf.constant(x)))
    J = np.zeros(y.shape + x.shape)
    for i in np.ndindex(x.shape):
        e = np.zeros(x.shape)
        e[i] = eps
        J[(Ellipsis,) + i] = (np.asarray(f(tf.constant(x + e))) - np.asarray(f(tf.constant(x - e)))) / (2 * eps)
    return J
