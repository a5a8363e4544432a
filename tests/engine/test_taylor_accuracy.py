"""Taylor mode knows its own error: every derivative it returns with ``return_error=True`` is
within its estimated error of the truth (mpmath at 50 digits), and an estimate above 1e-8
relative is what flags a number (issue 32's cases)."""
import mpmath
import numpy as np
import pytest

import tape as tf
from tape.engine.taylor import correct_digits, inaccurate

EPS = np.finfo(float).eps

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


# -- partials: the multivariate interpolation ---------------------------------------------------
def mp_partial(g, x, counts):
    return float(mp.diff(g, tuple(mp.mpf(v) for v in x), tuple(counts)))


def check_partials(f, g, x, order, rtol):
    """Every partial within its estimated error of mpmath; returns the worst relative error and
    whether any was flagged."""
    from tape.engine.higher import multi_indices
    values, errors = tf.partials(f, x, order, return_error=True)
    np.testing.assert_array_equal(values, tf.partials(f, x, order))
    worst, flagged = 0.0, False
    for index, v, e in zip(multi_indices(len(x), order), values, errors):
        want = mp_partial(g, x, [index.count(l) for l in range(len(x))])
        assert abs(v - want) <= max(e, 1e-300), (index, v, want, e)
        if want != 0:
            worst = max(worst, abs(v - want) / abs(want))
        flagged |= bool(inaccurate(v, e))
    assert worst <= rtol
    return worst, flagged


@pytest.mark.parametrize("a, order", [(30, 10), (100, 8), (0.01, 10)])
def test_variables_of_different_scales_keep_their_digits(a, order):
    # exp(30x + y) at 0: d^10 f / dx dy^9 = 30 (it was 30.0333 before each variable's direction
    # was scaled by its own radius)
    worst, flagged = check_partials(lambda x, y: tf.exp(a * x + y),
                                    lambda x, y: mp.exp(a * x + y), [0.0, 0.0], order, 1e-10)
    assert not flagged
    v = tf.partials(lambda x, y: tf.exp(a * x + y), [0.0, 0.0], order)
    assert v[1] == pytest.approx(a ** (order - 1), rel=1e-10)         # x^(order-1) y


def test_mixed_scales_in_three_variables():
    f = lambda x, y, z: tf.sin(50 * x + y) * tf.exp(0.02 * z + y) / (2 + y)
    g = lambda x, y, z: mp.sin(50 * x + y) * mp.exp(0.02 * z + y) / (2 + y)
    check_partials(f, g, [0.1, 0.2, 0.3], 6, 1e-8)


def test_a_partials_batch_returns_errors_per_point():
    f = lambda x, y: tf.exp(30 * x + y) / (1 + y * y)
    points = [[0.0, 0.0], [0.01, 0.5]]
    values, errors = tf.partials(f, points, 4, return_error=True)
    assert values.shape == errors.shape == (2, 5)
    for p, row, err in zip(points, values, errors):
        # the batch runs NumPy's vector loops where one point runs scalar ones: a few ulps apart
        single = tf.partials(f, p, 4)
        np.testing.assert_allclose(row, single, rtol=8 * EPS, atol=8 * EPS * np.abs(single).max())
        assert np.all(err >= 0) and np.all(err < 1e-9 * np.abs(row).max())


def test_partials_up_to_returns_errors_for_every_order():
    f = lambda x, y: tf.log(1 + x * x + y)
    values, errors = tf.partials_up_to(f, [0.3, 0.4], 4, return_error=True)
    assert [v.shape for v in values] == [e.shape for e in errors] == [(1,), (2,), (3,), (4,), (5,)]
    for v, e in zip(values, errors):
        assert np.all(e < 1e-10 * np.abs(v).max())


def test_flagged_partials_of_a_cancelling_quotient():
    # exp(20x+y)/exp(19x+y) = e^x: the quotient's recurrence cancels at high order
    f = lambda x, y: tf.exp(20 * x + y) / tf.exp(19 * x + y)
    values, errors = tf.partials(f, [0.5, 0.1], 14, return_error=True)
    want = float(mp.exp(0.5))                       # d^14/dx^14; every other partial is 0
    assert abs(values[0] - want) <= errors[0]
    assert inaccurate(values[0], errors[0]) or abs(values[0] - want) <= 1e-8 * want


# -- Cauchy's integral where Taylor mode cancels --------------------------------------------------
@pytest.mark.parametrize("f, g, a, order", [
    (lambda x: tf.sin(x) / x, lambda x: mp.sin(x) / x, 1.0, 20),
    (lambda x: tf.exp(20 * x) / tf.exp(19 * x), lambda x: mp.exp(x), 0.5, 20),
    (lambda x: tf.sin(x) / x, lambda x: mp.sin(x) / x, 1.0, 30),
])
def test_flagged_taylor_results_are_recomputed_from_cauchys_integral(f, g, a, order):
    # Taylor mode alone loses every digit here (sin(x)/x at order 20: -126.98 for 0.0275)
    plain = float(tf.derivative(f, a, order=order))
    want = reference(g, a, order)
    assert abs(plain - want) > 1e-3 * abs(want)
    value, error = tf.derivative(f, a, order=order, return_error=True)
    assert float(value) == pytest.approx(want, rel=1e-11)
    assert abs(float(value) - want) <= float(error) < 1e-10 * abs(want)


def test_a_branch_cut_on_the_circle_keeps_the_flag():
    # sqrt(exp(z)) jumps where Im z = +-pi: no circle wide enough for order 30 is holomorphic
    # for the principal square root, so the Taylor result stays, flagged
    value, error = tf.derivative(lambda x: tf.sqrt(tf.exp(x)), 0.01, order=30, return_error=True)
    want = reference(lambda x: mp.sqrt(mp.exp(x)), 0.01, 30)
    assert inaccurate(value, error) and abs(float(value) - want) <= float(error)


def test_a_non_holomorphic_function_is_not_taken_from_the_circle():
    # |x| * sin(x)/x equals sin(x) for x > 0, but abs is not holomorphic: the circle would give
    # |z| sin(z)/z; the low orders disagree with Taylor mode's and the radius is refused
    f = lambda x: tf.abs(x) * (tf.sin(x) / x)
    value, error = tf.derivative(f, 1.0, order=20, return_error=True)
    want = reference(lambda x: mp.sin(x), 1.0, 20)
    assert abs(float(value) - want) <= float(error)
    if abs(float(value) - want) > 1e-8 * abs(want):
        assert inaccurate(value, error)


def test_points_are_improved_one_by_one():
    xs = np.array([0.5, 1.0, 2.0, 3.0])
    value, error = tf.derivative(lambda x: tf.sin(x) / x, xs, order=18, return_error=True)
    for x, v, e in zip(xs, value.numpy(), error.numpy()):
        want = reference(lambda t: mp.sin(t) / t, x, 18)
        assert abs(v - want) <= e and not inaccurate(v, e)


def test_every_coefficient_with_its_error():
    from tape.engine.cauchy import coefficients_with_errors
    g = lambda x: x / (mp.exp(x) - 1)
    coeffs, errors = coefficients_with_errors(lambda x: x / (tf.exp(x) - 1), np.float64(0.5), 16)
    want = mp.taylor(g, mp.mpf(0.5), 16)
    assert coeffs.shape == errors.shape == (17,)
    for k in range(17):
        assert abs(coeffs[k] - float(want[k])) <= errors[k], k
        assert abs(coeffs[k] - float(want[k])) <= 1e-8 * abs(float(want[k])) or \
            inaccurate(coeffs[k], errors[k]), k
    # without the Cauchy integral the top coefficients lose their digits
    plain = tf.engine.taylor.taylor_coefficients(lambda x: x / (tf.exp(x) - 1), np.float64(0.5), 16)
    assert abs(plain[16] - float(want[16])) > 1e-3 * abs(float(want[16]))
    assert not inaccurate(coeffs[16], errors[16])
