"""Script targets: path.py[:function]."""
from __future__ import annotations

import json
import textwrap

import numpy as np
import pytest

from cli_helpers import central_difference, numbers, tape_cli


def rosenbrock(x, y):
    return (1 - x) ** 2 + 100 * (y - x ** 2) ** 2


def test_rosenbrock_gradient_and_hessian(samples):
    script = str(samples / "rosenbrock.py")
    result = tape_cli("grad", script, "--at", "-1.5,2", "-f", "json")
    doc = json.loads(result.stdout)
    assert doc["variables"] == ["x", "y"] and doc["expression"] == script
    expected = [central_difference(rosenbrock, [-1.5, 2.0], i) for i in range(2)]
    assert list(doc["points"][0]["gradient"].values()) == pytest.approx(expected, rel=1e-7)
    hessian = json.loads(tape_cli("hessian", script, "--at", "0,0", "-f", "json").stdout)
    assert hessian["points"][0]["hessian"] == [[2.0, 0.0], [0.0, 200.0]]


def test_many_points_through_a_script(samples):
    script = str(samples / "rosenbrock.py")
    result = tape_cli("grad", script, "--points", str(samples / "points.csv"))
    rows = numbers(result.stdout)
    assert len(rows) == 4
    assert rows[1] == [0.0, 0.0]                    # the minimum at (1, 1)


def nn_loss(w, b):
    X = np.array([[0.0, 0.0], [0.0, 1.0], [1.0, 0.0], [1.0, 1.0]])
    Y = np.array([0.0, 1.0, 1.0, 1.0])
    return np.mean((np.tanh(X @ np.array(w) + b) - Y) ** 2)


def test_numpy_neural_network_loss(samples):
    script = str(samples / "nn_loss.py")
    result = tape_cli("grad", script, "--at", "w=[0.5,-0.5],b=0.1", "-f", "json")
    gradient = json.loads(result.stdout)["points"][0]["gradient"]
    f = lambda w0, w1, b: nn_loss([w0, w1], b)  # noqa: E731
    expected = [central_difference(f, [0.5, -0.5, 0.1], i) for i in range(3)]
    assert gradient["w"] + [gradient["b"]] == pytest.approx(expected, rel=1e-6)


def test_script_not_written_for_batches_is_called_point_by_point(samples):
    # nn_loss uses X @ w, which would mix points if given a batch: results must still be
    # each point's own gradient
    script = str(samples / "nn_loss.py")
    many = tape_cli("grad", script, "--at", "w=[0.5,-0.5],b=0.1", "--at", "w=[1,2],b=-1")
    one = tape_cli("grad", script, "--at", "w=[1,2],b=-1")
    assert many.exit_code == 0
    assert numbers(many.stdout)[1] == numbers(one.stdout)[0]


def test_jacobian_of_a_vector_script(samples):
    result = tape_cli("jacobian", str(samples / "polar.py"), "--at", "r=2,theta=0.5",
                      "-f", "json")
    jac = np.array(json.loads(result.stdout)["points"][0]["jacobian"])
    expected = [[np.cos(0.5), -2 * np.sin(0.5)], [np.sin(0.5), 2 * np.cos(0.5)]]
    np.testing.assert_allclose(jac, expected, rtol=1e-12)
    assert np.linalg.det(jac) == pytest.approx(2.0)


def write(tmp_path, name, body):
    path = tmp_path / name
    path.write_text(textwrap.dedent(body))
    return str(path)


def test_function_selection(tmp_path):
    path = write(tmp_path, "two.py", """
        def f(x):
            return x ** 2
        def g(x, y):
            return x * y
        def _helper():
            pass
    """)
    ambiguous = tape_cli("grad", path, "--at", "1")
    assert ambiguous.exit_code == 2
    assert "candidates: f, g" in ambiguous.stderr
    assert tape_cli("grad", f"{path}:g", "--at", "2,5").stdout == "5.0 2.0\n"
    missing = tape_cli("grad", f"{path}:h", "--at", "1")
    assert missing.exit_code == 2 and "no function 'h'" in missing.stderr


def test_parameters_in_signature_order(tmp_path):
    path = write(tmp_path, "order.py", """
        def f(z, a):
            return z - 2 * a
    """)
    doc = json.loads(tape_cli("grad", path, "--at", "1,2", "-f", "json").stdout)
    assert doc["variables"] == ["z", "a"]
    assert doc["points"][0]["gradient"] == {"z": 1.0, "a": -2.0}


def test_keyword_only_parameters(tmp_path):
    path = write(tmp_path, "kw.py", """
        def f(x, *, scale):
            return scale * x ** 2
    """)
    doc = json.loads(tape_cli("grad", path, "--at", "x=3,scale=2", "-f", "json").stdout)
    assert doc["points"][0]["gradient"] == {"x": 12.0, "scale": 9.0}


def test_varargs_are_refused(tmp_path):
    path = write(tmp_path, "var.py", """
        def f(*xs):
            return sum(xs)
    """)
    result = tape_cli("grad", path, "--at", "1")
    assert result.exit_code == 2 and "*args" in result.stderr


def test_a_script_that_raises(tmp_path):
    path = write(tmp_path, "bad.py", """
        def f(x):
            raise ValueError("no good")
    """)
    result = tape_cli("grad", path, "--at", "1")
    assert result.exit_code == 2
    assert "ValueError: no good" in result.stderr and "bad.py:3" in result.stderr
    assert "Traceback" not in result.stderr


def test_a_script_that_fails_on_import(tmp_path):
    path = write(tmp_path, "broken.py", """
        import no_such_module_anywhere
        def f(x):
            return x
    """)
    result = tape_cli("grad", path, "--at", "1")
    assert result.exit_code == 2
    assert "ModuleNotFoundError" in result.stderr and "broken.py:2" in result.stderr


def test_missing_script():
    result = tape_cli("grad", "no/such/file.py", "--at", "1")
    assert result.exit_code == 2 and "script not found" in result.stderr


def test_grad_of_a_vector_script_is_an_error(samples):
    result = tape_cli("grad", str(samples / "polar.py"), "--at", "1,2")
    assert result.exit_code == 2 and "jacobian" in result.stderr


def test_a_script_that_mixes_points_when_batched(tmp_path):
    # summing over a batch leaks every point into every other: the result must still be each
    # point's own gradient (d/dx x^2 = 2x)
    path = write(tmp_path, "mix.py", """
        import numpy as np
        def f(x):
            return np.sum(x) * x
    """)
    result = tape_cli("grad", path, "--at", "-", input="1\n2\n3\n")
    assert numbers(result.stdout) == [[2.0], [4.0], [6.0]]


def test_a_batch_leak_the_first_point_cannot_see(tmp_path):
    # batched, the last point also gets the middle one added; the first point is unaffected,
    # so only the check at the last point can catch it
    path = write(tmp_path, "leak.py", """
        import numpy as np
        def f(x):
            v = np.reshape(x, (-1,))
            shifted = np.concatenate([np.zeros(2), v[1:-1]])[: v.shape[0]]
            return np.reshape(v ** 2 + shifted, np.shape(x))
    """)
    result = tape_cli("grad", path, "--at", "-", "-f", "json", input="1\n2\n3\n")
    points = json.loads(result.stdout)["points"]
    assert [p["value"] for p in points] == [1.0, 4.0, 9.0]
    assert [p["gradient"]["x"] for p in points] == [2.0, 4.0, 6.0]


def test_script_prints_go_to_stderr(tmp_path):
    path = write(tmp_path, "chatty.py", """
        print("loading")
        def f(x):
            print("called")
            return x * 3
    """)
    result = tape_cli("grad", path, "--at", "1")
    assert result.stdout == "3.0\n" and "called" in result.stderr
