"""Taylor mode knows its own error: every derivative it returns with ``return_error=True`` is
within its estimated error of the truth (mpmath at 50 digits), and an estimate above 1e-8
relative is what flags a number (issue 32's cases)."""
import mpmath
import numpy as np
import pytest

import tape as tf
from tape.engine.taylor import correct_digits, inaccurate

mp = mpmath.mp.clone()
mp.dps = 50


def reference(g, a, order):
    return float(mp.diff(g, mp.mpf(a), order))


ISSUE_CASES = [    # (tape f, mpmath f, point, order): quotients and roots that cancel
    (lambda x: tf.sin(x) / x, lambda x: mp.sin(x) / x, 1.0, 20),
    (lambda x: tf.sin(x) / x, lambda x: mp.sin(x) / x, 1.0, 10),
    (lambda x: x / (tf.exp(x) - 1), lambda x: x / (mp.exp(x) - 1), 0.5, 15),
    (lambda x: tf.sqrt(tf.exp(x)), lambda x: mp.sqrt(mp.exp(x)), 0.01, 30),
    (lambda x: tf.exp(20 * x) / tf.exp(19 * x), lambda x: mp.exp(x), 0.5, 20),
]


@pytest.mark.parametrize("case", range(len(ISSUE_CASES)))
def test_issue_cases_are_right_or_flagged(case):
    f, g, a, order = ISSUE_CASES[case]
    want = reference(g, a, order)
    value, error = tf.derivative(f, a, order=order, return_error=True)
    value, error = float(value), float(error)
    assert abs(value - want) <= error, (value, want, error)       # the truth within the error
    if abs(value - want) > 1e-8 * abs(want):
        assert inaccurate(value, error)                          # never silently wrong


WELL_CONDITIONED = [
    (lambda x: tf.sin(x) * tf.exp(x), lambda x: mp.sin(x) * mp.exp(x), 0.3, 20),
    (lambda x: tf.log(1 + x * x), lambda x: mp.log(1 + x * x), 0.3, 30),
    (lambda x: 1 / (1 + x), lambda x: 1 / (1 + x), 0.3, 25),
    (lambda x: tf.exp(tf.sin(x)), lambda x: mp.exp(mp.sin(x)), 0.7, 12),
]


@pytest.mark.parametrize("case", range(len(WELL_CONDITIONED)))
def test_accurate_results_are_not_flagged(case):
    f, g, a, order = WELL_CONDITIONED[case]
    want = reference(g, a, order)
    value, error = tf.derivative(f, a, order=order, return_error=True)
    value, error = float(value), float(error)
    assert abs(value - want) <= error
    assert not inaccurate(value, error)
    assert error < 1e-9 * abs(value)
    assert correct_digits(value, error) >= 9


def test_return_error_keeps_the_value_and_the_shape():
    f = lambda x: tf.sin(x) / x
    xs = np.array([0.5, 1.0, 2.0])
    plain = tf.derivative(f, xs, order=6).numpy()
    value, error = tf.derivative(f, xs, order=6, return_error=True)
    np.testing.assert_array_equal(value.numpy(), plain)          # the estimate costs no digit
    assert error.shape == (3,) and np.all(error.numpy() > 0)
    for x, v, e in zip(xs, value.numpy(), error.numpy()):
        assert abs(v - reference(lambda t: mp.sin(t) / t, x, 6)) <= e


def test_exact_results_have_zero_error():
    value, error = tf.derivative(lambda x: x ** 3, 2.0, order=5, return_error=True)
    assert float(value) == 0.0 and float(error) == 0.0
    assert not inaccurate(0.0, 0.0)
    assert correct_digits(0.0, 0.0) == 16


def test_the_estimate_is_deterministic():
    f = lambda x: x / (tf.exp(x) - 1)
    e1 = float(tf.derivative(f, 0.5, order=12, return_error=True)[1])
    e2 = float(tf.derivative(f, 0.5, order=12, return_error=True)[1])
    assert e1 == e2


def test_digits_and_flags():
    assert correct_digits(1.0, 1e-5) == pytest.approx(5.0)
    assert correct_digits(1.0, 10.0) == 0.0
    assert correct_digits(0.0, 1e-300) == 0.0
    assert np.isnan(correct_digits(np.nan, 1e-3))
    assert inaccurate(1.0, 2e-8) and not inaccurate(1.0, 5e-9)
    assert inaccurate(np.nan, 0.0) and inaccurate(1.0, np.inf)
