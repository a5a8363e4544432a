"""Turning a tensor a recording tape tracks into a NumPy array or a Python number warns: what is
computed from it has no gradient (PyTorch and JAX raise there; TensorFlow is silent)."""
import warnings

import numpy as np
import pytest

import tape


CONVERSIONS = {
    "np.asarray": lambda t: np.asarray(t),
    "np.array of a list": lambda t: np.array([t, t]),
    "float": float,
    "int": int,
    ".numpy()": lambda t: t.numpy(),
}


@pytest.mark.parametrize("name", CONVERSIONS)
@pytest.mark.parametrize("derived", [False, True])
def test_converting_a_tracked_tensor_warns(name, derived):
    x = tape.constant(2.0)
    with tape.GradientTape() as t:
        t.watch(x)
        y = x * 3.0 if derived else x
        with pytest.warns(tape.UntrackedConversionWarning, match="leaves the tape"):
            CONVERSIONS[name](y)


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
