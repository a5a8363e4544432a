"""Turning a tensor a recording tape tracks into a NumPy array raises
``tape.NotDifferentiableError`` (NumPy would compute with a constant), into a Python number warns
(what is computed from it has no gradient); ``x.numpy()`` is the way to take a constant on
purpose and says nothing."""
import warnings

import numpy as np
import pytest

import tape


RAISING = {
    "np.asarray": (lambda t: np.asarray(t), "numpy.array (or numpy.asarray)"),
    "np.median of a list": (lambda t: np.median([t, t + 2.0]), "numpy.median given a tracked"),
    "np.average of a list": (lambda t: np.average([t, t]), "numpy.average given a tracked"),
    "np.r_ with a directive": (lambda t: np.r_["0,2", t, t], "numpy.r_[...]"),
}
WARNING = {"float": float, "int": int}
CONVERSIONS = {**{k: f for k, (f, _) in RAISING.items()}, **WARNING,
               ".numpy()": lambda t: t.numpy()}


@pytest.mark.parametrize("name", RAISING)
@pytest.mark.parametrize("derived", [False, True])
def test_numpy_arrays_of_a_tracked_tensor_raise(name, derived):
    x = tape.constant(2.0)
    convert, named = RAISING[name]
    with tape.GradientTape() as t:
        t.watch(x)
        y = x * 3.0 if derived else x
        with pytest.raises(tape.NotDifferentiableError, match="np.stack") as err:
            convert(y)
    assert str(err.value).startswith(named), str(err.value)


@pytest.mark.parametrize("name", WARNING)
@pytest.mark.parametrize("derived", [False, True])
def test_converting_a_tracked_tensor_to_a_number_warns(name, derived):
    x = tape.constant(2.0)
    with tape.GradientTape() as t:
        t.watch(x)
        y = x * 3.0 if derived else x
        with pytest.warns(tape.UntrackedConversionWarning, match="gives a constant"):
            WARNING[name](y)


def test_numpy_method_is_a_constant_on_purpose():
    x = tape.constant(2.0)
    with tape.GradientTape() as t:
        t.watch(x)
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            y = x * x.numpy()
    assert float(t.gradient(y, x)) == 2.0


@pytest.mark.parametrize("name", CONVERSIONS)
def test_untracked_tensors_and_finished_tapes_do_not_warn(name):
    x, other = tape.constant(2.0), tape.constant(5.0)
    with tape.GradientTape() as t:
        t.watch(x)
        y = x * x
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            CONVERSIONS[name](other)            # not tracked by the tape
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        CONVERSIONS[name](y)                    # the tape no longer records
    assert float(t.gradient(y, x)) == 4.0


def test_the_warning_points_at_the_users_line():
    x = tape.constant(1.0)
    with tape.GradientTape() as t:
        t.watch(x)
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            float(x)
    assert caught and caught[0].filename == __file__


def test_numpy_testing_assertions_compare_tracked_tensors():
    x = tape.constant([1.0, 2.0])
    with tape.GradientTape() as t:
        t.watch(x)
        y = x * 2.0
        np.testing.assert_allclose(y, [2.0, 4.0])      # gives nothing back: no constant to fear
        with pytest.raises(AssertionError):
            np.testing.assert_allclose(y, [2.0, 5.0])


@pytest.mark.parametrize("build, value, slope", [
    (lambda t: np.array([t, t * t, 3.0]), [2.0, 4.0, 3.0], 5.0),
    (lambda t: np.array([[t, 1.0], [t, t]], dtype=np.float64, ndmin=3), [[[2.0, 1.0], [2.0, 2.0]]], 3.0),
    (lambda t: np.r_[t, np.ones(2), t * 3], [2.0, 1.0, 1.0, 6.0], 4.0),
    (lambda t: np.c_[np.stack([t, t]), [1.0, 2.0]], [[2.0, 1.0], [2.0, 2.0]], 2.0),
    (lambda t: np.mean(np.array([t, t + 2.0])), 3.0, 1.0),
    (lambda t: np.mean([t, t + 2.0]), 3.0, 1.0),
    (lambda t: np.linalg.norm([t, t + 1.0]), 13.0 ** 0.5, 5.0 / 13.0 ** 0.5),
    (lambda t: np.sum((t, 3.0 * t), axis=0), 8.0, 4.0),
    (lambda t: np.std([t, 2.0 * t]), 1.0, 0.5),
])
def test_arrays_built_of_tracked_tensors_are_recorded(build, value, slope):
    x = tape.constant(2.0)
    with tape.GradientTape() as t:
        t.watch(x)
        y = build(x)
    assert isinstance(y, tape.Tensor)
    np.testing.assert_allclose(y.numpy(), value)
    assert float(t.gradient(y, x)) == pytest.approx(slope)


def test_numpy_array_builders_are_unchanged_for_arrays():
    assert type(np.array([1, 2])) is np.ndarray and np.array([1, 2]).dtype == np.int64
    np.testing.assert_array_equal(np.r_[1:3, 5], [1, 2, 5])
    np.testing.assert_array_equal(np.c_[[1, 2], [3, 4]], [[1, 3], [2, 4]])
    np.testing.assert_array_equal(np.r_["0,2", [1, 2], [3, 4]], [[1, 2], [3, 4]])
