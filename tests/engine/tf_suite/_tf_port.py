"""Helpers for the ports of TensorFlow's own gradient tests to ``import tape as tf``.

TensorFlow's tests lean on a few internal helpers (``backprop.gradients_function``,
``gradient_checker_v2.compute_gradient``, forwardprop's ``_jvp``/``_jacfwd``). They are
re-expressed here with the public API only, and the numerical Jacobian is an independent
central difference on NumPy arrays, so the checks do not trust the engine to check itself.
"""
from __future__ import annotations

import numpy as np

import tape as tf


def gradients_function(f, params=None):
    """``backprop.gradients_function``: a function returning d f / d args (those in ``params``)."""
    def grads(*args, dy=None):
        args = [a if isinstance(a, tf.Tensor) else tf.constant(a) for a in args]
        # as TensorFlow's helper does: the same tensor passed twice is two separate inputs
        args = [tf.identity(a) if any(a is b for b in args[:i]) else a for i, a in enumerate(args)]
        with tf.GradientTape() as t:
            t.watch(args)
            y = f(*args)
        wanted = [args[i] for i in (params if params is not None else range(len(args)))]
        return t.gradient(y, wanted, output_gradients=dy)
    return grads


def numeric_jacobian(f, xs, delta=1e-4):
    """Central-difference Jacobians of ``f(*xs)`` (flattened output) w.r.t. each x: [y.size, x.size]."""
    arrays = [np.array(np.asarray(x), dtype=float) for x in xs]
    jacs = []
    for i, a in enumerate(arrays):
        cols = []
        for k in range(a.size):
            def at(h):
                moved = [b.copy() for b in arrays]
                moved[i].reshape(-1)[k] += h
                return np.asarray(f(*[tf.constant(m) for m in moved]), dtype=float).reshape(-1)
            cols.append((at(delta) - at(-delta)) / (2 * delta))
        jacs.append(np.stack(cols, axis=1))
    return jacs


def backward_jacobian(f, xs):
    """The reverse-mode Jacobians [y.size, x.size] of ``f(*xs)``, one per x."""
    xs = [tf.constant(np.asarray(x, dtype=float)) for x in xs]
    with tf.GradientTape(persistent=True) as t:
        t.watch(xs)
        y = tf.reshape(f(*xs), [-1])
    out = []
    for x in xs:
        j = t.jacobian(y, x, unconnected_gradients="zero")
        out.append(np.asarray(j).reshape(y.shape[0], -1))
    return out


def forward_jacobian(f, xs):
    """The forward-mode Jacobians [y.size, x.size] (one accumulator per input element)."""
    xs = [tf.constant(np.asarray(x, dtype=float)) for x in xs]
    out = []
    for i, x in enumerate(xs):
        cols = []
        for k in range(int(np.prod(x.shape))):
            tangents = [tf.zeros_like(z) for z in xs]
            tangents[i] = tf.reshape(tf.one_hot(k, int(np.prod(x.shape)), dtype=tf.float64), x.shape)
            with tf.ForwardAccumulator(xs, tangents) as acc:
                y = f(*xs)
            cols.append(np.asarray(acc.jvp(y, unconnected_gradients="zero")).reshape(-1))
        out.append(np.stack(cols, axis=1))
    return out


def grad_of(f, argnums=0):
    """forwardprop_test's ``_grad``: x -> d f / d x[argnums] (zeros when unconnected)."""
    def g(*params):
        with tf.GradientTape() as t:
            t.watch(params)
            out = f(*params)
        return t.gradient(out, params[argnums], unconnected_gradients="zero")
    return g


def check_gradients(f, primals, order, delta=1e-3, rtol=1e-2, atol=1e-6, forward=True):
    """forwardprop_test's ``_test_gradients``: reverse (and forward) Jacobians of f and of its
    gradients up to ``order`` agree with central differences and with each other."""
    if order > 1:
        check_gradients(grad_of(f), primals, order - 1, delta, rtol, atol, forward)
    num = numeric_jacobian(f, primals, delta)
    back = backward_jacobian(f, primals)
    for n, b in zip(num, back):
        np.testing.assert_allclose(b, n, rtol=rtol, atol=atol)
    if forward:
        fwd = forward_jacobian(f, primals)
        for n, fw, b in zip(num, fwd, back):
            np.testing.assert_allclose(fw, n, rtol=rtol, atol=atol)
            np.testing.assert_allclose(fw, b, rtol=1e-6, atol=1e-6)


def max_gradient_error(f, xs, delta=1e-4):
    """``gradient_checker_v2.max_error(*compute_gradient(f, xs))``."""
    num = numeric_jacobian(f, xs, delta)
    back = backward_jacobian(f, xs)
    return max(float(np.max(np.abs(n - b))) if n.size else 0.0 for n, b in zip(num, back))
