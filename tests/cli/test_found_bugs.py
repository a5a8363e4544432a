"""Regression tests for CLI bugs found by the reliability work (fuzzing, the differential run,
the bad-input catalogue), each with its reproducer."""
from __future__ import annotations

import pytest
from typer.testing import CliRunner

import tape
from tape.expr import parse as E
from tape.cli.app import app
from tape.expr.errors import ExprError


def tape_run(*args):
    result = CliRunner().invoke(app, list(args), catch_exceptions=False)
    return result.exit_code, result.stdout, result.stderr


def test_hash_no_longer_hides_the_rest_of_the_expression():
    # was: "x#+y" parsed as x (Python comment), so tape grad "x#+y" --at 1,2 answered for x
    err = pytest.raises(ExprError, E.parse, "x#+y").value
    assert err.start == 1 and "'#'" in err.message


@pytest.mark.parametrize("text", ["x^", "2*", "sin(x)*", "x+"])
def test_an_expression_that_stops_midway_points_after_its_end(text):
    # was: "invalid syntax (column 1)" (Python reports offset 0 at the end of the input)
    err = pytest.raises(ExprError, E.parse, text).value
    assert err.start == len(text) and "ends unexpectedly" in err.message


def test_a_very_long_integer_gets_its_own_message():
    # was: "the expression ends unexpectedly" / Python's int_max_str_digits text
    err = pytest.raises(ExprError, E.parse, "2+" + "1" * 5000).value
    assert "5000 digits" in err.message and err.start == 2


def test_symbolic_derivative_of_cbrt_of_an_expression_has_no_unevaluated_derivative():
    # was: tape diff printed Derivative(sign(1/(sin(x) + 2)), x) and --check exited 3 with
    # "symbolic check failed inside SymPy: ValueError: MpmathPrinter._print_Derivative(...)"
    code, out, err = tape_run("diff", "cbrt(3/(2+sin(x)))")
    assert code == 0 and "Derivative" not in out
    code, out, err = tape_run("grad", "cbrt(3/(2+sin(x)))", "--at", "0.5", "--check",
                              "--format", "plain")
    assert code == 0, err


def test_jacobian_of_many_outputs_is_one_sweep_per_variable():
    # 300 outputs used to take 300 backward sweeps; now one forward pass per component (here
    # fewer components than outputs), or batch_jacobian's one sweep per variable
    from tape.calculus import derivatives
    from tape.engine import tape as tape_module
    import numpy as np
    x = np.array([0.3, 0.7])
    fn = lambda t: tape.stack([tape.sin(t * float(i)) for i in range(300)], axis=1)
    comps = derivatives.components(["x"], ["x"], {"x": None})
    before = tape_module.sweep_count
    value, jac = derivatives.jacobian(fn, [x], comps)
    assert tape_module.sweep_count - before <= 1
    expected = np.cos(x[:, None] * np.arange(300)) * np.arange(300)
    np.testing.assert_allclose(jac[:, :, 0], expected, rtol=1e-12, atol=1e-12)


def test_a_raising_script_shows_its_own_frames_only(tmp_path):
    script = tmp_path / "raises.py"
    script.write_text("def f(x):\n    return helper(x)\n\n\ndef helper(x):\n"
                      "    raise ValueError('bad input inside')\n")
    result = CliRunner().invoke(app, ["grad", f"{script}:f", "--at", "1"])
    lines = result.stderr.splitlines()
    assert result.exit_code == 2
    assert lines[0].startswith("error: the script raised ValueError: bad input inside")
    assert any("raises.py:2 in f: return helper(x)" in line for line in lines)
    assert any("raises.py:6 in helper:" in line for line in lines)
    assert all(line.startswith("error:") for line in lines)
    assert "tape/" not in result.stderr and "Traceback" not in result.stderr
