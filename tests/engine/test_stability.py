"""Numerical-stability decisions at singular points (see README "Numerical behaviour")."""
import numpy as np
import pytest

import tape


def grad(f, x):
    x = tape.constant(np.asarray(x, dtype=np.float64))
    with tape.GradientTape() as t:
        t.watch(x)
        y = f(x)
    return t.gradient(y, x).numpy()


def test_where_branch_not_taken_gives_no_nan():
    # sqrt's derivative is infinite at 0 and undefined below: the unselected branch must add 0
    g = grad(lambda x: tape.where(x > 0, tape.sqrt(x), 0.0), [-1.0, 0.0, 4.0])
    np.testing.assert_array_equal(g, [0.0, 0.0, 0.25])


def test_where_with_log_of_nonpositive():
    g = grad(lambda x: tape.where(x > 0, tape.log(x), x), [-2.0, 0.0, 2.0])
    np.testing.assert_array_equal(g, [1.0, 1.0, 0.5])


def test_norm_gradient_at_zero_is_zero():
    np.testing.assert_array_equal(grad(lambda x: tape.linalg.norm(x), [0.0, 0.0, 0.0]), [0, 0, 0])


def test_norm_gradient_away_from_zero():
    np.testing.assert_allclose(grad(lambda x: tape.linalg.norm(x), [3.0, 4.0]), [0.6, 0.8])


def test_sqrt_gradient_at_zero_is_inf():
    # the true one-sided derivative: kept, not hidden
    assert grad(tape.sqrt, 0.0) == np.inf


def test_abs_gradient_at_zero_is_zero():
    assert grad(tape.abs, 0.0) == 0.0


def test_pow_at_zero_base():
    # d/dx x**2 at 0 = 0; d/dx x**0 = 0 (not 0 * inf); d/dy 0**y = 0 (log only where x > 0)
    assert grad(lambda x: x ** 2.0, 0.0) == 0.0
    assert grad(lambda x: x ** 0.0, 0.0) == 0.0
    y = tape.constant(2.0)
    with tape.GradientTape() as t:
        t.watch(y)
        z = tape.constant(0.0) ** y
    assert float(t.gradient(z, y)) == 0.0


@pytest.mark.parametrize("x", [-800.0, -50.0, 0.0, 50.0, 800.0])
def test_softplus_is_stable(x):
    v = tape.softplus(tape.constant(x)).numpy()
    assert np.isfinite(v) and v == pytest.approx(np.logaddexp(0, x), rel=1e-12)
    g = grad(tape.softplus, x)
    assert g == pytest.approx(1 / (1 + np.exp(-x)), rel=1e-12, abs=1e-300)


@pytest.mark.parametrize("x", [-800.0, 800.0])
def test_sigmoid_is_stable(x):
    assert np.isfinite(tape.sigmoid(tape.constant(x)).numpy())
    assert np.isfinite(grad(tape.sigmoid, x))


def test_logsumexp_with_large_values():
    x = [1000.0, 1000.0, 990.0]
    v = tape.reduce_logsumexp(tape.constant(x)).numpy()
    assert v == pytest.approx(1000 + np.log(2 + np.exp(-10)), rel=1e-14)
    g = grad(tape.reduce_logsumexp, x)
    e = np.exp(np.array(x) - 1000)
    np.testing.assert_allclose(g, e / e.sum(), rtol=1e-12)


def test_log_softmax_with_large_values():
    x = tape.constant([1000.0, 0.0])
    assert np.all(np.isfinite(tape.nn.log_softmax(x).numpy()))


def test_gradient_at_a_pole_is_non_finite_without_warnings():
    import warnings
    x = tape.constant(0.0)
    with tape.GradientTape() as t:
        t.watch(x)
        with np.errstate(divide="ignore"):
            y = 1.0 / x
    with warnings.catch_warnings():
        warnings.simplefilter("error")       # the backward pass itself stays quiet
        g = float(t.gradient(y, x))
    assert not np.isfinite(g)


def test_cumsum_of_a_scalar_names_the_op():
    with pytest.raises(ValueError, match="cumsum: needs a tensor of rank >= 1"):
        tape.cumsum(tape.constant(1.0))


def test_tanh_higher_derivatives_stay_finite_in_the_tails():
    # found by the long differential run: a sech^2 rule built from 1/cosh overflowed in the
    # second derivative (inf/inf = nan) once tanh's argument reached ~700
    for x0 in (0.0, 3.0, 40.0, 800.0, -800.0):
        x = tape.constant(x0)
        with tape.GradientTape() as t2:
            t2.watch(x)
            with tape.GradientTape() as t1:
                t1.watch(x)
                y = tape.tanh(x)
            d1 = t1.gradient(y, x)
        d2 = float(t2.gradient(d1, x))
        exact = -2 * np.tanh(x0) / np.cosh(x0) ** 2 if abs(x0) < 700 else 0.0
        assert np.isfinite(d2) and d2 == pytest.approx(exact, rel=1e-12, abs=1e-300)


def test_taylor_mode_keeps_tanh_and_sigmoid_tails_accurate():
    # found by the long differential run: Taylor mode's 1 - y^2 cancelled like the gradient did
    import mpmath as mp
    mp.mp.dps = 40
    for fn, ref in ((tape.tanh, mp.tanh), (tape.sigmoid, lambda t: 1 / (1 + mp.exp(-t)))):
        for x0 in (-30.0, 0.3, 25.0):
            got = float(tape.derivative(fn, x0, order=3))
            exact = float(mp.diff(ref, mp.mpf(x0), 3))
            assert got == pytest.approx(exact, rel=1e-9, abs=1e-300)
