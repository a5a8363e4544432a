"""Gradients that reuse buffers (W3 of the benchmarks) give the same numbers and touch nothing else.

The first-order sweep adds the third and later cotangents of one input in place into the sum it
made itself; rules multiply in place into temporaries they just made, and skip a multiplication
by the broadcast 1 that ``reduce_sum`` hands down. Each test checks the gradient against
finite differences or the closed form, and that the forward values, seeds and other results the
in-place work could reach are unchanged.
"""
import numpy as np
import pytest

import tape as tf

RNG = np.random.default_rng(17)


def central_difference(f, x, eps=1e-6):
    """d sum(f(x)) / dx elementwise for an elementwise f (one evaluation per side)."""
    return (f(x + eps) - f(x - eps)) / (2 * eps)


def grad_of(f, x_np, **kw):
    x = tf.constant(x_np)
    with tf.GradientTape(**kw) as t:
        t.watch(x)
        y = tf.reduce_sum(f(x))
    return t.gradient(y, x).numpy()


def test_many_terms_of_one_input_leave_forward_values_alone():
    # x * c with the sum's broadcast-1 cotangent hands back c itself as x's first term: the
    # sweep must not add the later terms into c
    x_np, c_np = RNG.standard_normal(1000), RNG.standard_normal(1000)
    c = tf.constant(c_np)
    kept = c_np.copy()
    got = grad_of(lambda x: x * c + x * c + x * c + x * c, x_np)
    np.testing.assert_array_equal(c.numpy(), kept)
    np.testing.assert_array_equal(got, ((kept + kept) + kept) + kept)


def test_a_users_seed_is_not_added_into():
    x = tf.constant(RNG.standard_normal(50))
    seed = RNG.standard_normal(50)
    kept = seed.copy()
    with tf.GradientTape() as t:
        t.watch(x)
        y = x + x + x           # AddV2 passes the seed itself to both inputs
    got = t.gradient(y, x, output_gradients=tf.constant(seed)).numpy()
    np.testing.assert_array_equal(seed, kept)
    np.testing.assert_array_equal(got, (kept + kept) + kept)


def test_a_source_whose_sum_flows_on_keeps_its_own_gradient():
    # u's cotangent (a sum the sweep made) is handed to identity, which passes it to x as x's
    # first term; x's later terms must go to a new array, not into u's gradient
    x = tf.constant(RNG.standard_normal(200))
    c = [tf.constant(RNG.standard_normal(200)) for _ in range(4)]
    with tf.GradientTape() as t:
        t.watch(x)
        early = x * c[3]                        # recorded before u: swept after it
        u = tf.identity(x)
        y = tf.reduce_sum(u * c[0] + u * c[1] + u * c[2] + early)
    gu, gx = t.gradient(y, [u, x])
    cs = [v.numpy() for v in c]
    want_u = cs[2] + cs[1] + cs[0]
    np.testing.assert_allclose(gu.numpy(), want_u, rtol=1e-15)
    np.testing.assert_allclose(gx.numpy(), want_u + cs[3], rtol=1e-15)


@pytest.mark.parametrize("persistent", [False, True])
def test_w3_gradient_matches_finite_differences_and_the_closed_form(persistent):
    x_np = RNG.standard_normal(4000) * 2
    f = lambda x, ns: ns.sin(x) * ns.exp(-x ** 2) + ns.tanh(x)       # noqa: E731
    got = grad_of(lambda x: f(x, tf), x_np, persistent=persistent)
    closed = (np.cos(x_np) - 2 * x_np * np.sin(x_np)) * np.exp(-x_np ** 2) + 1 / np.cosh(x_np) ** 2
    np.testing.assert_allclose(got, closed, rtol=1e-13, atol=1e-15)
    np.testing.assert_allclose(got, central_difference(lambda v: f(v, np), x_np), rtol=1e-7, atol=1e-9)


def test_first_order_sweep_agrees_with_the_recorded_one():
    # an outer tape makes the inner sweep use tensor rules (no in-place work): same numbers
    x_np = RNG.standard_normal(500)
    x = tf.constant(x_np)
    f = lambda v: tf.sin(v) * tf.exp(-v * v) + v * v + tf.exp(v) * v     # noqa: E731
    with tf.GradientTape() as outer:
        outer.watch(x)
        with tf.GradientTape() as inner:
            inner.watch(x)
            y = tf.reduce_sum(f(x))
        recorded = inner.gradient(y, x)
    with tf.GradientTape() as t:
        t.watch(x)
        y = tf.reduce_sum(f(x))
    np.testing.assert_allclose(t.gradient(y, x).numpy(), recorded.numpy(), rtol=1e-14, atol=1e-15)


def test_structural_zeros_keep_their_meaning_among_many_terms():
    # at x = 0 the untaken sqrt branches hand x structurally zero cotangents times an infinite
    # slope: 0, not nan, however many terms x collects and in whatever order
    x = tf.constant(np.array([0.0, 1.0, 4.0]))
    c = np.array([2.0, 3.0, 5.0])
    with tf.GradientTape() as t:
        t.watch(x)
        branch = lambda: tf.where(x > 0, tf.sqrt(x), tf.zeros_like(x))     # noqa: E731
        y = tf.reduce_sum(x * tf.constant(c) + branch() + branch() + branch())
    got = t.gradient(y, x).numpy()
    slope = np.array([0.0, 3 * 0.5 / 1.0, 3 * 0.5 / 2.0])
    np.testing.assert_allclose(got, c + slope, rtol=1e-15)
