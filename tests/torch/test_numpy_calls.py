"""NumPy calls on tape.torch tensors: a NumPy function without a rule refuses a tensor that
requires grad (PyTorch's numpy() refuses it too) instead of dropping its graph."""
import numpy as np
import pytest

import tape
import tape.torch as torch


def test_a_numpy_function_without_rule_refuses_a_tensor_that_requires_grad():
    t = torch.tensor([1.0, 2.0], requires_grad=True)
    with pytest.raises(tape.NotDifferentiableError, match="numpy.i0"):
        np.i0(t)
    with pytest.raises(RuntimeError, match="Can't call numpy"):
        np.asarray(t)


def test_detached_or_no_grad_tensors_go_through_numpy():
    t = torch.tensor([1.0, 2.0], requires_grad=True)
    np.testing.assert_allclose(np.i0(t.detach()), np.i0([1.0, 2.0]))
    with torch.no_grad():
        np.testing.assert_allclose(np.i0(t), np.i0([1.0, 2.0]))
    assert float(t[0]) == 1.0
