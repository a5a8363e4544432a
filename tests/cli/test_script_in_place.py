"""``a += x`` on a NumPy array inside a script target writes tracked values into a constant:
the derivative would come out wrong, so the library raises ``tape.NotDifferentiableError`` and
the command line refuses it (exit 2) naming the script's line, saying how to stay on the tape."""
from __future__ import annotations

import numpy as np
import pytest

import tape

from cli_helpers import tape_cli

SCRIPT = """import numpy as np

def f(x):
    a = np.zeros(3)
    a += x
    return np.sum(a * x)
"""


def test_an_in_place_numpy_update_in_a_script_is_refused(tmp_path):
    path = tmp_path / "inplace.py"
    path.write_text(SCRIPT)
    result = tape_cli("grad", str(path), "--at", "x=[1,2,3]")
    assert result.exit_code == 2 and result.stdout == ""
    err = result.stderr
    assert err.startswith("error: the script raised NotDifferentiableError: in-place NumPy")
    assert "inplace.py:5" in err and "`a += x`" in err and "`a = a + x`" in err


def test_the_same_script_written_on_the_tape_gives_the_derivative(tmp_path):
    path = tmp_path / "fixed.py"
    path.write_text(SCRIPT.replace("a += x", "a = a + x"))
    result = tape_cli("grad", str(path), "--at", "x=[1,2,3]")
    assert result.exit_code == 0, result.stderr
    assert result.stdout.split() == ["2.0", "4.0", "6.0"]


def test_library_users_get_the_error_every_time_it_happens():
    x = tape.constant([1.0, 2.0])
    for _ in range(2):
        with tape.GradientTape() as t:
            t.watch(x)
            a = np.zeros(2)
            with pytest.raises(tape.NotDifferentiableError, match="`a = a \\+ x`"):
                a += x
            assert not a.any()            # nothing was written


def test_without_a_tape_the_update_is_plain_numpy():
    x = tape.constant([1.0, 2.0])
    a = np.zeros(2)
    a += x
    np.testing.assert_allclose(a, [1.0, 2.0])
