import pytest

from tape.engine.module import clear_session

#: Tests that fail because of a known, reported engine bug: test id -> what is wrong.
#: They run as strict xfails, so a fix makes them XPASS and fail: then delete the entry.
SIGMOID = ("tape.sigmoid computes 0.5 + 0.5*tanh(x/2), which loses all relative precision for x < -20: sigmoid(-40.) gives 0.0 (expected 4.248e-18), sigmoid(-30.) 9.3592e-14 (expected 9.3576e-14, rel. error 1.7e-4); the softplus gradient inherits it")

KNOWN_ENGINE_BUGS = {
    # "test_file.py::test_name[param]": "what is wrong (minimal reproducer)",
    "test_edge_cases.py::test_sigmoid_softplus_extremes": SIGMOID,
    "test_edge_cases.py::test_forward_relative_precision[sigmoid]": SIGMOID,
    "test_edge_cases.py::test_forward_relative_precision[nn.sigmoid]": SIGMOID,
    "test_edge_cases.py::test_sigmoid_gradient_relative_precision": SIGMOID,
    "test_edge_cases.py::test_complex_gradient_follows_tensorflow_convention":
        "complex gradients use the JAX convention, not TF's: d Re(z*z)/dz at z=1+1j gives "
        "2+2j, TF gives 2-2j (its rules multiply by conj(), e.g. Mul: grad * conj(y))",
    "test_edge_cases.py::test_numpy_result_does_not_alias_the_tensor":
        "Tensor.numpy() returns the tensor's own writeable buffer: a = x.numpy(); a[0] = 100. "
        "changes x (TF: numpy() is a copy; a read-only view would also do)",
    "test_edge_cases.py::test_tensorshape_compares_to_lists":
        "TensorShape([2, 3]) == [2, 3] is False (tuple vs list); TF's TensorShape compares "
        "equal to lists",
    "test_edge_cases.py::test_custom_gradient_with_variables":
        "custom_gradient does not pass `variables=` to a grad_fn that declares it when f reads "
        "Variables, and rejects the (grad_xs, grad_vars) pair it returns (TF semantics): "
        "ValueError 'grad_fn of scale returned 2 gradients for 1 inputs'",
}


def pytest_collection_modifyitems(config, items):
    for item in items:
        key = item.nodeid.split("tests/engine/", 1)[-1]
        reason = KNOWN_ENGINE_BUGS.get(key)
        if reason:
            item.add_marker(pytest.mark.xfail(strict=True, reason="engine bug: " + reason))


@pytest.fixture(autouse=True)
def _fresh_layer_names():
    """Each test starts layer naming afresh, so the first Dense is "dense" as in the tutorials."""
    clear_session()
    yield
