"""The plain-NumPy samples (issue 37): `tape grad` prints the gradient central differences give,
and a NumPy function without a rule in a script is exit 2 naming it and the script's line."""
import importlib.util

import numpy as np
import pytest

from cli_helpers import SAMPLES, numbers, tape_cli


def _load(name):
    spec = importlib.util.spec_from_file_location(name, SAMPLES / f"{name}.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _central(f, x, h=1e-6):
    return np.array([(f(x + h * e) - f(x - h * e)) / (2 * h) for e in np.eye(len(x))])


@pytest.mark.parametrize("sample, function, name, at", [
    ("logistic_regression", "training_loss", "weights", [0.1, -0.2, 0.3]),
    ("gaussian_nll", "nll", "l", [1.0, 0.5, 0.3, 0.8]),
])
def test_numpy_sample_gradient(sample, function, name, at):
    f = getattr(_load(sample), function)
    result = tape_cli("grad", str(SAMPLES / f"{sample}.py"), "--at",
                      f"{name}=[{','.join(map(str, at))}]")
    assert result.exit_code == 0, result.stderr
    (got,) = numbers(result.stdout)
    np.testing.assert_allclose(got, _central(f, np.array(at)), rtol=1e-6, atol=1e-8)


def test_a_numpy_function_without_rule_is_exit_2_with_its_name_and_line(tmp_path):
    script = tmp_path / "bessel.py"
    script.write_text("import numpy as np\n\n\ndef f(x):\n    return np.i0(x) * x\n")
    result = tape_cli("grad", str(script), "--at", "0.5")
    assert result.exit_code == 2 and result.stdout == ""
    assert "NotDifferentiableError: numpy.i0" in result.stderr
    assert "bessel.py:5" in result.stderr
    assert "tape.stop_gradient(x) or x.numpy()" in result.stderr
