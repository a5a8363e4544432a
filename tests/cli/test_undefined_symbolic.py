"""A symbolic result with no real value is never printed as SymPy's token for it (``zoo``,
``nan``, ``oo``, ``I``, ``acos(2)``): it is bad input (exit 2) that says what is wrong, in
every command that turns SymPy results into text (``symbolic.render``)."""
from __future__ import annotations

import json

import pytest

from tape.expr import symbolic as S

from cli_helpers import tape_cli

TOKENS = ("zoo", "nan", "oo", "I")


@pytest.mark.parametrize("expression, says", [
    ("x*tan(pi/2)", "a constant with no real value: tan(pi/2) is undefined (a pole)"),
    ("x/0", "undefined: SymPy gives zoo"),
    ("0/0*x", "undefined: SymPy gives nan"),
    ("1e999*x", "infinite"),
    ("sqrt(-1)*x", "a constant with no real value: sqrt(-1) is not real"),
    ("log(-1)*x", "log(-1) is not real"),
    ("acos(2)*x", "acos(2) is not real"),
    ("asin(2)*x^2", "asin(2) is not real"),
])
@pytest.mark.parametrize("fmt", ["plain", "json"])
def test_diff_of_an_undefined_expression_is_bad_input(expression, says, fmt):
    result = tape_cli("diff", expression, "--format", fmt)
    assert result.exit_code == 2, (result.stdout, result.stderr)
    assert result.stdout == ""
    assert result.stderr.startswith("error: the ") and says in result.stderr
    assert "tape works with real numbers" in result.stderr
    assert len(result.stderr.splitlines()) == 1


def test_latex_and_check_say_the_same():
    latex = tape_cli("diff", "x*acos(2)", "--latex")
    assert latex.exit_code == 2 and "acos(2) is not real" in latex.stderr
    checked = tape_cli("grad", "x*tan(pi/2)", "--at", "1", "--check")
    assert checked.exit_code == 2 and "zoo" in checked.stderr and checked.stdout == ""


def test_real_results_are_untouched():
    result = tape_cli("diff", "acos(x)*x^2", "--format", "json")
    assert result.exit_code == 0
    assert not any(t in json.loads(result.stdout)["derivative"].split("*") for t in TOKENS)


def test_render_refuses_what_has_no_real_value():
    sp = S.sympy()
    x = S.symbol("x")
    for value in (sp.zoo, sp.nan, sp.oo, -sp.oo, sp.I, sp.I * sp.pi, sp.acos(2), sp.zoo * x):
        with pytest.raises(S.UndefinedResult) as caught:
            S.render(value)
        assert caught.value.code == 2
    assert S.render(sp.acos(sp.Rational(1, 2)) * x) == "pi*x/3"
    with pytest.raises(S.UndefinedResult):
        S.derivative(sp.nan * x, [x])       # SymPy's own answer would be 0
