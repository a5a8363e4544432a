"""tape diff --steps on a logarithm with a base (log_2 x, log(x, b)): the change of base is a
rewrite step, then the usual rules (it was exit 3, 'no step-by-step rule for log() with 2
arguments', on a textbook exercise)."""
from __future__ import annotations

import json

import pytest
import sympy as sp

from cli_helpers import tape_cli


@pytest.mark.parametrize("typed, base", [("log_2 x", "2"), ("log_{10}(x^2+1)", "10"),
                                         ("log(8, x)", "x")])
def test_a_logarithm_with_a_base_is_rewritten_by_the_change_of_base(typed, base):
    result = tape_cli("diff", typed, "--steps", "--format", "json")
    assert result.exit_code == 0, (result.stdout, result.stderr)
    doc = json.loads(result.stdout)
    (root,) = doc["steps"]
    rewrite = root if root["rule"] == "rewrite" else next(
        s for s in root["steps"] if s["rule"] == "rewrite")
    assert rewrite["expression"].startswith("log(") and rewrite["expression"].endswith(
        f", {base})")
    x = sp.Symbol("x", positive=True)
    f = sp.sympify(doc["read_as"], locals={"x": x})
    shown = sp.sympify(rewrite["result"], locals={"x": x})
    assert sp.simplify(shown - sp.sympify(rewrite["expression"], locals={"x": x})) == 0
    assert sp.simplify(sp.sympify(doc["derivative"], locals={"x": x}) - sp.diff(f, x)) == 0


def test_the_plain_steps_name_the_rewrite():
    lines = tape_cli("diff", "log_2 x", "--steps", "--format", "plain").stdout.splitlines()
    assert lines[0].split() == ["log(x,", "2)", "=", "log(x)/log(2)", "(rewrite)"]
    assert "(constant multiple rule)" in lines[1] and "(logarithm rule)" in lines[2]
