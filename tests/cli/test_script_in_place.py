"""``a += x`` on a NumPy array inside a script target writes tracked values into a constant:
the derivative would come out wrong, so the command line refuses it (exit 2) as it refuses
``np.asarray`` on a tracked tensor, saying how to stay on the tape; the library only warns."""
from __future__ import annotations

import warnings

import numpy as np

import tape
from tape.engine.numpy_dispatch import InPlaceWarning

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
    assert err.startswith(f"error: {path}: the derivative would be wrong (")
    assert "inplace.py:5" in err and "`a += x`" in err and "`a = a + x`" in err


def test_the_same_script_written_on_the_tape_gives_the_derivative(tmp_path):
    path = tmp_path / "fixed.py"
    path.write_text(SCRIPT.replace("a += x", "a = a + x"))
    result = tape_cli("grad", str(path), "--at", "x=[1,2,3]")
    assert result.exit_code == 0, result.stderr
    assert result.stdout.split() == ["2.0", "4.0", "6.0"]


def test_library_users_get_a_warning_every_time_it_happens():
    x = tape.constant([1.0, 2.0])
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        for _ in range(2):
            with tape.GradientTape() as t:
                t.watch(x)
                a = np.zeros(2)
                a += x
    assert [w.category for w in caught] == [InPlaceWarning, InPlaceWarning]
    assert issubclass(InPlaceWarning, tape.UntrackedConversionWarning)
    assert "To stay on the tape" in str(caught[0].message)
