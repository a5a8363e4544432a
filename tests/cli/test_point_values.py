"""Point values as a careful Unix tool takes them: an empty field is bad input (never dropped,
which would shift the values after it), a value that is not a finite real number is bad input
in all three sources alike (--at, --at - lines, --points cells), and a message quotes at most a
short excerpt of what it refuses, whatever the size of the input."""
from __future__ import annotations

import pytest

from cli_helpers import tape_cli, tape_process

#: the longest error message a test accepts (one line, not the input repeated)
SHORT = 400


def _error(result, written: str = "") -> str:
    """The error lines of a refused run; ``written`` is what it printed before the bad line
    (every result before it: SPEC section 14's --on-error stop)."""
    assert result.exit_code == 2, (result.stdout, result.stderr)
    assert result.stdout == written
    lines = result.stderr.splitlines()
    assert lines and all(line.startswith("error: ") for line in lines), result.stderr
    return result.stderr


@pytest.mark.parametrize("target, line, field", [
    ("x*y", "1,,2", 2), ("x*y*z", "1,,2,3", 2), ("x*y", ",1,2", 1), ("x*y", "1,2,", 3),
    ("x*y", "1, ,2", 2), ("x*y", "1,,3", 2)])
def test_an_empty_field_on_standard_input_is_bad_input(target, line, field):
    first = "1,2" + ",3" * (target == "x*y*z")
    written = "2.0 1.0\n" if target == "x*y" else "6.0 3.0 2.0\n"
    err = _error(tape_cli("grad", target, "--at", "-", input=f"{first}\n{line}\n"), written)
    assert err.startswith("error: standard input line 2: ")
    assert f"field {field} of {line!r} is empty" in err


@pytest.mark.parametrize("at, field", [("1,,2", 2), ("x=1,,y=2", 2), (",", 1)])
def test_an_empty_field_in_at_is_bad_input(at, field):
    err = _error(tape_cli("grad", "x*y", "--at", at))
    assert f"field {field} of {at!r} is empty" in err


@pytest.mark.parametrize("value, says", [
    ("sqrt(-1)", "has no finite real value (it evaluates to nan)"),
    ("1/0", "has no finite real value (it evaluates to inf)"),
    ("exp(1000)", "has no finite real value (it evaluates to inf)"),
    ("nan", "is NaN, not a number"), ("-inf", "is infinite"), ("Infinity", "is infinite"),
    ("1e999", "is too large for a float")])
def test_a_value_that_is_not_a_finite_real_number_is_bad_input(value, says):
    finite = "a point's values must be finite real numbers"
    at = _error(tape_cli("grad", "x", "--at", f"x={value}"))
    assert at.startswith(f"error: --at x: {value!r} {says}") and finite in at
    stdin = _error(tape_cli("grad", "x", "--at", "-", input=f"1\n{value}\n"), "1.0\n")
    assert stdin.startswith(f"error: standard input line 2 x: {value!r} {says}")
    csv = _error(tape_cli("grad", "x", "--points", "-", input=f"x\n1\n{value}\n"), "1.0\n")
    assert csv.startswith(f"error: --points standard input row 3 column x: {value!r} {says}")
    vector = _error(tape_cli("grad", "sum(x)", "--at", f"x=[1,{value}]"))
    assert f"{value!r} {says}" in vector


def test_a_non_finite_value_among_many_plain_numbers_names_its_line():
    lines = "".join(f"{i},{i}\n" for i in range(1000)) + "1,nan\n"
    before = "".join(f"{float(i)} {float(i)}\n" for i in range(1000))
    err = _error(tape_cli("grad", "x*y", "--at", "-", input=lines), before)
    assert err.startswith("error: standard input line 1001 y: 'nan'")
    rows = "x,y\n" + lines
    err = _error(tape_cli("grad", "x*y", "--points", "-", input=rows), before)
    assert err.startswith("error: --points standard input row 1002 column y: 'nan'")


def test_finite_values_still_pass():
    result = tape_cli("grad", "x*y", "--at", "-", input="1,2\n3 4\n1e300,-1e-300\n")
    assert result.exit_code == 0, result.stderr
    assert result.stdout.splitlines()[:2] == ["2.0 1.0", "4.0 3.0"]


def test_two_megabytes_of_digits_give_a_short_message():
    p = tape_process("grad", "x", "--at", "-", input="1" * 2_000_000 + "\n")
    assert p.returncode == 2 and p.stdout == ""
    assert len(p.stderr) < SHORT, p.stderr[:SHORT]
    assert "(2,000,000 characters)" in p.stderr and "line 1" in p.stderr
    p = tape_process("grad", "x*y", "--at", "-", input="1" * 2_000_000 + "\n")
    assert p.returncode == 2 and len(p.stderr) < SHORT, p.stderr[:SHORT]


def test_eight_megabytes_of_nul_bytes_give_a_short_message():
    p = tape_process("grad", "x*y", "--at", "-", input="\0" * 8_000_000)
    assert p.returncode == 2 and p.stdout == ""
    assert len(p.stderr) < SHORT, p.stderr[:SHORT]
    assert "(8,000,000 characters)" in p.stderr and "line 1" in p.stderr


def test_sixty_thousand_values_in_at_give_a_short_message():
    result = tape_cli("grad", "x*y", "--at", ",".join(["1"] * 60_001))
    err = _error(result)
    assert len(err) < SHORT and "gives 60,001 values" in err and "(120,001 characters)" in err


def test_a_long_csv_cell_and_a_long_name_are_quoted_short(tmp_path):
    path = tmp_path / "p.csv"
    path.write_text("x,y\n" + "a" * 100_000 + ",1\n", encoding="utf-8")
    err = _error(tape_cli("grad", "x*y", "--points", str(path)))
    assert len(err) < SHORT and "row 2 column x" in err and "(100,000 characters)" in err
    err = _error(tape_cli("grad", "x", "--at", "q" * 50_000 + "=1"))
    assert len(err) < SHORT and "(50,000 characters)" in err


def test_any_long_message_line_is_cut_to_its_start_and_end(tmp_path):
    script = tmp_path / "loud.py"
    script.write_text("def f(x):\n    raise ValueError('a' * 1_000_000 + ' the end')\n")
    result = tape_cli("grad", f"{script}:f", "--at", "1")
    err = _error(result)
    assert all(len(line) < 1100 for line in err.splitlines())
    assert "characters left out" in err and "the end" in err
