"""tape diff: symbolic derivatives, verified by SymPy equivalence (never by our own strings)."""
from __future__ import annotations

import json

import pytest
import sympy as sp

from cli_helpers import tape_cli

NAMES = ("x", "y", "t")


def parse_output(text: str):
    local = {n: sp.Symbol(n, real=True) for n in NAMES}
    return sp.sympify(text, locals=local)


def same(text: str, reference: str) -> bool:
    return sp.simplify(parse_output(text) - parse_output(reference)) == 0


@pytest.mark.parametrize("expression, reference", [
    ("x^2*sin(x)", "2*x*sin(x) + x**2*cos(x)"),
    ("sin(x)^2", "2*sin(x)*cos(x)"),
    ("(x+1)/(x-1)", "-2/(x-1)**2"),
    ("ln(x^2+1)", "2*x/(x**2+1)"),
    ("sqrt(1-x^2)", "-x/sqrt(1-x**2)"),
    ("atan(x)", "1/(1+x**2)"),
    ("cosh(2x)", "2*sinh(2*x)"),
    ("csc(x)", "-cot(x)*csc(x)"),
    ("2^x", "2**x*log(2)"),
    ("3(x+1)^2", "6*(x+1)"),
])
def test_plain_derivative_is_equivalent(expression, reference):
    result = tape_cli("diff", expression)
    assert result.exit_code == 0, result.stderr
    assert result.stdout.count("\n") == 1
    assert same(result.stdout, reference)


def test_several_variables_one_line_each():
    result = tape_cli("diff", "x^2*y + sin(y)")
    lines = result.stdout.splitlines()
    assert [line.split(":")[0] for line in lines] == ["x", "y"]
    assert same(lines[0].split(":", 1)[1], "2*x*y")
    assert same(lines[1].split(":", 1)[1], "x**2 + cos(y)")


def test_wrt_selects_and_orders():
    result = tape_cli("diff", "x^2*y", "--wrt", "y")
    assert same(result.stdout, "x**2")
    doc = json.loads(tape_cli("diff", "x^2*y", "--wrt", "y,x", "--format", "json").stdout)
    assert doc["wrt"] == ["y", "x"] and list(doc["derivative"]) == ["y", "x"]


def test_json_document():
    doc = json.loads(tape_cli("diff", "x^3", "--format", "json").stdout)
    assert list(doc) == ["expression", "read_as", "wrt", "order", "derivative"]
    assert doc["expression"] == "x^3" and doc["read_as"] == "x**3" and doc["wrt"] == ["x"] and doc["order"] == 1
    assert same(doc["derivative"], "3*x**2")
    several = json.loads(tape_cli("diff", "x*y^2", "--format", "json").stdout)
    assert same(several["derivative"]["x"], "y**2") and same(several["derivative"]["y"],
                                                              "2*x*y")


def test_higher_orders():
    assert same(tape_cli("diff", "x^5", "--order", "3").stdout, "60*x**2")
    doc = json.loads(tape_cli("diff", "x^2*y^3", "--order", "2", "--format", "json").stdout)
    refs = {"d2f/dx2": "2*y**3", "d2f/dxdy": "6*x*y**2", "d2f/dy2": "6*x**2*y"}
    assert set(doc["derivative"]) == set(refs)
    assert all(same(doc["derivative"][k], v) for k, v in refs.items())


def test_latex_for_trig_functions():
    result = tape_cli("diff", "sec(x)", "--latex")
    assert result.exit_code == 0
    out = result.stdout.strip()
    assert "\\sec" in out and "\\tan" in out and "\\left(x \\right)" in out
    assert "**" not in out and "*" not in out
    tan = tape_cli("diff", "tan(x)", "--latex").stdout
    assert "\\tan^{2}" in tan or "\\sec^{2}" in tan or "\\cos^{2}" in tan
    doc = json.loads(tape_cli("diff", "sin(x)*cos(y)", "--latex", "--format", "json").stdout)
    assert "\\cos" in doc["derivative"]["x"] and "\\sin" in doc["derivative"]["y"]


def test_table_format_writes_math_notation():
    # SPEC section 13: a terminal (a table) gets a textbook's notation on one line
    result = tape_cli("diff", "atan(x)/x", "--format", "table")
    assert result.exit_code == 0
    out = result.stdout.strip().splitlines()[-1]
    assert "**" not in out and "^2" in out and "atan(x)" in out


def test_csv_format():
    lines = tape_cli("diff", "x*y", "--format", "csv").stdout.splitlines()
    assert lines[0] == "wrt,derivative"
    assert [line.split(",")[0] for line in lines[1:]] == ["x", "y"]


@pytest.mark.parametrize("args, fragment", [
    (["diff", "x^2", "--wrt", "z"], "'z'"),
    (["diff", "sum(w)"], "sum"),
    (["diff", "sin(x"], "column"),
    (["diff", "__import__('os')"], "not allowed"),
])
def test_bad_input_exits_2(args, fragment):
    result = tape_cli(*args)
    assert result.exit_code == 2
    assert result.stderr.startswith("error: ") and fragment in result.stderr
    assert "Traceback" not in result.stderr and result.stdout == ""


def test_timeout_exits_3():
    result = tape_cli("diff", "sin(x)^20*cos(x)^13*exp(tan(x))*atan(x^5)", "--order", "12",
                      "--timeout", "0.2")
    assert result.exit_code == 3
    assert "did not finish in 0.2 s" in result.stderr and result.stdout == ""


def test_when_simplifying_runs_out_of_time_the_raw_derivative_is_shown(monkeypatch):
    from tape.calculus import formulas

    monkeypatch.setattr(formulas, "run_optional", lambda *args: None)
    # SymPy's path: tape's own derivative (the default) is never left unsimplified
    result = tape_cli("diff", "(x+1)/(x-1)", "--simplify")
    assert result.exit_code == 0
    assert "simplifying did not finish" in result.stderr
    assert result.stdout.strip() != "-2/(x - 1)**2"          # not the tidy form ...
    assert same(result.stdout, "-2/(x-1)**2")                # ... but the same derivative


def test_indexed_vector_components():
    lines = tape_cli("diff", "x[0]^2*x[1] + y").stdout.splitlines()
    assert [line.split(":")[0] for line in lines] == ["x[0]", "x[1]", "y"]
    doc = json.loads(tape_cli("diff", "x[0]^2*x[1]", "--format", "json").stdout)
    x0, x1 = sp.Symbol("x[0]", real=True), sp.Symbol("x[1]", real=True)
    got = [sp.sympify(s, locals={"x": sp.IndexedBase("x")}) for s in doc["derivative"]["x"]]
    got = [g.subs({sp.IndexedBase("x")[0]: x0, sp.IndexedBase("x")[1]: x1}) for g in got]
    assert [sp.simplify(g - r) for g, r in zip(got, [2 * x0 * x1, x0 ** 2])] == [0, 0]


def test_a_time_limit_counts_from_the_start_even_when_the_answer_is_ready_at_once(monkeypatch):
    # a busy machine may run the forked worker to its end before this process gets to wait:
    # simulated by a pause right after the start. A limit of 0.1 ms is still a timeout (exit 3)
    import multiprocessing.context as mpc
    import time

    start = mpc.ForkProcess.start

    def start_then_pause(self):
        start(self)
        time.sleep(0.05)

    monkeypatch.setattr(mpc.ForkProcess, "start", start_then_pause)
    for _ in range(3):
        result = tape_cli("diff", "x*y", "--timeout", "0.0001")
        assert result.exit_code == 3, result.stdout
        assert "did not finish in 0.0001 s" in result.stderr
