"""tape check: the diagnosis names whole constants as a teacher writes them ('an extra
constant term 1', not '1.0')."""
from __future__ import annotations

import json

import pytest

from cli_helpers import tape_cli


@pytest.mark.parametrize("answer, kind, words", [
    ("2x+1", "extra term", "the answer has an extra constant term 1: "),
    ("2x+2.5", "extra term", "the answer has an extra constant term 2.5: "),
    ("4x", "constant factor", "the answer is 2 times the derivative 2*x"),
])
def test_constants_in_the_diagnosis_read_as_written(answer, kind, words):
    result = tape_cli("check", "x^2", "--answer", answer, "--format", "json")
    assert result.exit_code == 1
    diagnosis = json.loads(result.stdout)["diagnosis"]
    assert diagnosis["kind"] == kind
    assert diagnosis["detail"].startswith(words)
