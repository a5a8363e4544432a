"""Exit codes and error messages: plain `error:` lines, no tracebacks, no boxed panels."""
from __future__ import annotations

import pytest

from cli_helpers import tape_cli


def assert_clean_error(result, code=2, fragment=None):
    assert result.exit_code == code, (result.stdout, result.stderr)
    assert result.stdout == ""
    lines = result.stderr.splitlines()
    assert lines and all(line.startswith("error:") for line in lines), result.stderr
    assert "Traceback" not in result.stderr and "╭" not in result.stderr
    if fragment:
        assert fragment in result.stderr


@pytest.mark.parametrize("expression, fragment", [
    ("x.real", "attributes are not allowed"),
    ("__import__('os').system('echo hacked')", "attributes are not allowed"),
    ("__import__('os')", "dunder"),
    ("lambda x: x", "lambda"),
    ("'x'", "strings"),
    ("import os", "cannot parse"),
    ("open(x)", "unknown function 'open'"),
    ("x +", "cannot parse"),
    ("sum(x)", "needs vector arguments"),
])
def test_rejected_expressions(expression, fragment):
    assert_clean_error(tape_cli("grad", expression, "--at", "1"), 2, fragment)


def test_parse_errors_show_the_column_and_a_caret():
    result = tape_cli("grad", "2*x + y.imag", "--at", "x=1,y=2")
    assert_clean_error(result)
    lines = result.stderr.splitlines()
    assert "(column 7)" in lines[0]
    assert lines[1] == "error:   2*x + y.imag"
    assert lines[2] == "error:         ^^^^^^"


@pytest.mark.parametrize("args, fragment", [
    (["grad", "x"], "--at"),                                    # no point
    (["grad", "x*y", "--at", "1"], "gives 1 value"),
    (["grad", "x", "--at", "z=1"], "'z' is not a variable"),
    (["grad", "x", "--wrt", "q", "--at", "1"], "'q' is not a variable"),
    (["grad", "x", "--at", "1", "--points", "p.csv"], "not both"),
    (["grad", "x", "--order", "0", "--at", "1"], "--order"),
    (["grad", "x", "--format", "xml", "--at", "1"], "xml"),
    (["grad", "x", "--bogus"], "--bogus"),
    (["grad"], "TARGET"),
    (["frobnicate"], "frobnicate"),
    (["jacobian", "x", "rosen.py", "--at", "1"], "only TARGET"),
    (["grad", "v+w", "--at", "v=[1,2],w=[1,2,3]"], "shapes do not match"),
    (["grad", "v[5]", "--at", "v=[1,2]"], "out of range"),
    (["grad", "x", "--at", "x=[1,2]", "--at", "x=3"], "different shapes"),
    (["grad", "x", "--at", "-"], "no points"),
])
def test_bad_input_exits_2(args, fragment):
    assert_clean_error(tape_cli(*args), 2, fragment)


@pytest.mark.parametrize("formula", ["-x^2", "-sin(x)", "-x", "-cos x", "-\\frac{1}{x}"])
def test_a_formula_that_begins_with_minus_needs_no_double_dash(formula):
    # SPEC section 13: where it cannot be an option, it is the argument
    expected = tape_cli("grad", "--at", "3", "--", formula)
    assert expected.exit_code == 0
    for args in (["grad", formula, "--at", "3"], ["grad", "--at", "3", formula],
                 ["grad", f"({formula})", "--at", "3"]):
        result = tape_cli(*args)
        assert result.exit_code == 0, (args, result.stderr)
        assert float(result.stdout) == pytest.approx(float(expected.stdout), rel=1e-12)


def test_a_leading_minus_in_diff_and_check():
    assert tape_cli("diff", "-x^2").stdout == "-2*x\n"
    assert tape_cli("diff", "-x^2", "--wrt", "x", "--notation", "math").stdout == "-2x\n"
    check = tape_cli("check", "-cos x", "--answer", "sin x")
    assert check.exit_code == 0 and check.stdout.startswith("correct")
    wrong = tape_cli("check", "-cos x", "--answer", "-sin x")
    assert wrong.exit_code == 1
    # an option's value that begins with - stays that option's value
    assert tape_cli("check", "cos x", "--answer", "-sin x").exit_code == 0
    assert tape_cli("tangent", "-x^2", "--at", "-1").stdout == "y = 2*x + 1\n"


def test_an_unknown_short_option_without_an_argument_slot_is_still_an_error():
    # tape grad's TARGET is given; a second one is refused, not silently swallowed
    result = tape_cli("grad", "x", "--at", "1", "-y")
    assert result.exit_code == 2


def test_an_unknown_long_option_gets_no_formula_hint():
    result = tape_cli("grad", "x", "--at", "1", "--bogus")
    assert_clean_error(result, 2, "No such option: --bogus")
    assert "formula" not in result.stderr


def test_expression_starting_with_minus_after_double_dash():
    result = tape_cli("grad", "--at", "3", "--", "-x^2")
    assert result.exit_code == 0 and result.stdout == "-6.0\n"


def test_debug_shows_the_traceback():
    result = tape_cli("grad", "x.real", "--at", "1", "--debug")
    assert result.exit_code == 2 and "Traceback" in result.stderr


def test_every_command_has_help():
    for command in ("grad", "jacobian", "hessian"):
        result = tape_cli(command, "--help")
        assert result.exit_code == 0 and "--at" in result.stdout and "--format" in result.stdout
    assert "grad" in tape_cli("--help").stdout


def test_no_arguments_shows_help():
    result = tape_cli()
    assert result.exit_code == 0 and "grad" in result.stdout


def test_version():
    result = tape_cli("--version")
    assert result.exit_code == 0 and result.stdout.startswith("tape ")
