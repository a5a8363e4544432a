"""--check: SymPy cross-checks of expressions, finite differences for scripts, time limits,
and the promise that plain ``tape grad`` never imports SymPy."""
from __future__ import annotations

import json
import math
import subprocess
import sys
import textwrap
import time

import numpy as np
import pytest
import sympy as sp

from cli_helpers import ROOT, SAMPLES, tape_cli

from tape.grading import crosscheck
from tape.calculus import fdcheck, timelimit
from tape.expr import symbolic
from tape.expr.errors import CLIError
from tape.expr.parse import parse
from tape.expr.functions import FUNCTIONS, Function

x_, y_ = sp.symbols("x y", real=True)

# (expression, point, a hand-written derivative in SymPy syntax, its value by hand)
CORPUS = [
    ("x^2*sin(x)", 0.7, "2*x*sin(x) + x**2*cos(x)",                       # product rule
     2 * 0.7 * math.sin(0.7) + 0.49 * math.cos(0.7)),
    ("(x^2+1)/(x-3)", 0.5, "(2*x*(x-3) - (x**2+1))/(x-3)**2",              # quotient rule
     (2 * 0.5 * (0.5 - 3) - 1.25) / (0.5 - 3) ** 2),
    ("sin(3x^2+1)", 0.4, "6*x*cos(3*x**2+1)", 6 * 0.4 * math.cos(3 * 0.16 + 1)),  # chain rule
    ("2x^3", 1.5, "6*x**2", 6 * 2.25),                                     # implicit product
    ("sqrt(x)", 2.0, "1/(2*sqrt(x))", 1 / (2 * math.sqrt(2))),             # x^(1/2)
    ("x^(-2)", 0.8, "-2/x**3", -2 / 0.8 ** 3),
    ("ln(x^2+1)", 0.3, "2*x/(x**2+1)", 0.6 / 1.09),                        # logs
    ("log10(x)", 4.0, "1/(x*log(10))", 1 / (4 * math.log(10))),
    ("log2(x)", 3.0, "1/(x*log(2))", 1 / (3 * math.log(2))),
    ("asin(x)", 0.3, "1/sqrt(1-x**2)", 1 / math.sqrt(1 - 0.09)),           # inverse trig
    ("acos(x)", -0.2, "-1/sqrt(1-x**2)", -1 / math.sqrt(1 - 0.04)),
    ("atan(2x)", 0.5, "2/(1+4*x**2)", 2 / 2.0),
    ("sinh(x)*cosh(x)", 0.6, "cosh(x)**2 + sinh(x)**2",                   # hyperbolic
     math.cosh(0.6) ** 2 + math.sinh(0.6) ** 2),
    ("tanh(x)", 1.1, "1 - tanh(x)**2", 1 - math.tanh(1.1) ** 2),
    ("asinh(x)", 2.0, "1/sqrt(x**2+1)", 1 / math.sqrt(5)),
    ("sec(x)", 0.9, "sec(x)*tan(x)", math.tan(0.9) / math.cos(0.9)),
    ("e^(2x)", 0.25, "2*exp(2*x)", 2 * math.exp(0.5)),
    ("x^x", 1.7, "x**x*(log(x)+1)", 1.7 ** 1.7 * (math.log(1.7) + 1)),
    ("erf(x)", 0.5, "2*exp(-x**2)/sqrt(pi)", 2 * math.exp(-0.25) / math.sqrt(math.pi)),
]


def equivalent(text: str, reference: str, names=("x", "y")) -> bool:
    """SymPy equivalence of an output string and a hand-written derivative."""
    local = {n: sp.Symbol(n, real=True) for n in names}
    difference = sp.sympify(text, locals=local) - sp.sympify(reference, locals=local)
    return sp.simplify(difference) == 0


@pytest.mark.parametrize("expression, at, reference, value", CORPUS,
                         ids=[c[0] for c in CORPUS])
def test_textbook_corpus_agrees_with_sympy(expression, at, reference, value):
    result = tape_cli("grad", expression, "--at", repr(at), "--check", "--format", "json")
    assert result.exit_code == 0, result.stderr
    doc = json.loads(result.stdout)
    point = doc["points"][0]
    assert point["gradient"]["x"] == pytest.approx(value, rel=1e-12)
    check = point["check"]
    assert check["method"] == "sympy" and check["agree"] is True
    assert check["expected"]["x"] == pytest.approx(value, rel=1e-12)
    assert check["max_abs_error"] <= 1e-12 * max(1.0, abs(value))
    assert equivalent(doc["symbolic"]["x"], reference)


def test_higher_order_and_partials_carry_symbolic_in_the_result_shape():
    doc = json.loads(tape_cli("grad", "x^3*y", "--order", "2", "--at", "1,2", "--check",
                              "--format", "json").stdout)
    assert len(doc["symbolic"]) == 3          # xx, xy, yy
    assert [equivalent(s, r) for s, r in zip(doc["symbolic"], ["6*x*y", "3*x**2", "0"])] \
        == [True, True, True]
    assert doc["points"][0]["check"]["expected"] == pytest.approx([12.0, 3.0, 0.0])

    one = json.loads(tape_cli("grad", "sin(x)", "--order", "3", "--at", "0.5", "--check",
                              "--format", "json").stdout)
    assert equivalent(one["symbolic"], "-cos(x)")
    assert one["points"][0]["check"]["expected"] == pytest.approx(-math.cos(0.5))


def test_hessian_and_jacobian_checks_are_nested_lists():
    h = json.loads(tape_cli("hessian", "x^2*y^3", "--at", "1,2", "--check",
                            "--format", "json").stdout)
    assert [[equivalent(s, r) for s, r in zip(row, ref)] for row, ref in
            zip(h["symbolic"], [["2*y**3", "6*x*y**2"], ["6*x*y**2", "6*x**2*y"]])] \
        == [[True, True], [True, True]]
    assert h["points"][0]["check"]["expected"] == [[16.0, 24.0], [24.0, 12.0]]

    j = json.loads(tape_cli("jacobian", "x*y", "sin(x)+y", "--at", "0.5,2", "--check",
                            "--format", "json").stdout)
    assert np.shape(j["symbolic"]) == (2, 2)
    assert equivalent(j["symbolic"][1][0], "cos(x)")
    assert j["points"][0]["check"]["agree"] is True


def test_vector_variables_check_per_component():
    doc = json.loads(tape_cli("grad", "norm(w)*y", "--at", "w=[3,4],y=2", "--check",
                              "--format", "json").stdout)
    check = doc["points"][0]["check"]
    assert check["expected"]["w"] == pytest.approx([1.2, 1.6])
    assert len(doc["symbolic"]["w"]) == 2


def test_many_points_each_get_a_check():
    result = tape_cli("grad", "x*exp(-x)", "--at", "0", "--at", "1", "--at", "-2",
                      "--check", "--format", "json")
    points = json.loads(result.stdout)["points"]
    assert [p["check"]["expected"]["x"] for p in points] == pytest.approx(
        [(1 - v) * math.exp(-v) for v in (0, 1, -2)])


def test_table_shows_the_symbolic_derivative_beside_the_number():
    result = tape_cli("grad", "x^2*y", "--at", "1,2", "--check", "--format", "table")
    assert result.exit_code == 0
    assert "2*x*y" in result.stdout and "x**2" in result.stdout
    assert "✓" in result.stdout


def test_disagreement_exits_1(monkeypatch):
    # a wrong SymPy builder for sin makes the two sides disagree: the check must notice
    wrong = Function("sin", 1, FUNCTIONS["sin"].tape, "cos")
    monkeypatch.setitem(FUNCTIONS, "sin", wrong)
    result = tape_cli("grad", "sin(x)", "--at", "0.5", "--check", "--format", "json")
    assert result.exit_code == 1
    check = json.loads(result.stdout)["points"][0]["check"]
    assert check["agree"] is False
    assert check["expected"]["x"] == pytest.approx(-math.sin(0.5))
    assert result.stderr.startswith("error: check failed")


def test_tolerances_are_honoured(monkeypatch):
    # a SymPy side that is off by 1e-7 relative: fails at the default rtol, passes at 1e-6
    scaled = Function("exp", 1, FUNCTIONS["exp"].tape,
                      lambda s, v: s.exp(v) * (1 + s.Rational(1, 10**7)))
    monkeypatch.setitem(FUNCTIONS, "exp", scaled)
    assert tape_cli("grad", "exp(x)", "--at", "1", "--check", "--rtol", "1e-8").exit_code == 1
    assert tape_cli("grad", "exp(x)", "--at", "1", "--check", "--rtol", "1e-6").exit_code == 0


def test_timeout_prints_the_numbers_and_exits_3():
    heavy = "sin(x)^20*cos(x)^13*exp(tan(x))*atan(x^5)"
    start = time.monotonic()
    result = tape_cli("grad", heavy, "--order", "8", "--at", "1.3", "--check",
                      "--timeout", "0.2")
    assert time.monotonic() - start < 30
    assert result.exit_code == 3
    assert float(result.stdout) != 0   # the numeric result stands
    assert "symbolic check did not finish in 0.2 s; numeric result stands" in result.stderr


def test_timeout_path_by_monkeypatch(monkeypatch):
    def too_slow(*args, timeout, **kwargs):
        raise timelimit.SymbolicTimeout(timeout)

    monkeypatch.setattr(crosscheck, "run_limited", too_slow)
    result = tape_cli("grad", "x^2", "--at", "3", "--check", "--format", "json")
    assert result.exit_code == 3
    assert json.loads(result.stdout)["points"][0]["gradient"] == {"x": 6.0}
    assert "did not finish in 10 s" in result.stderr


# ----------------------------------------------------------------- scripts: finite differences

def write(tmp_path, body: str):
    path = tmp_path / "f.py"
    path.write_text(textwrap.dedent(body))
    return str(path)


def test_script_is_checked_by_finite_differences(tmp_path):
    script = write(tmp_path, """
        import numpy as np
        def f(x, y):
            return np.sin(x) * y**3 + np.exp(x * y)
    """)
    result = tape_cli("grad", script, "--at", "1,0.5", "--check", "--format", "json")
    assert result.exit_code == 0, result.stderr
    doc = json.loads(result.stdout)
    check = doc["points"][0]["check"]
    assert check["method"] == "finite-difference" and check["agree"] is True
    assert "symbolic" not in doc
    exact = math.cos(1) * 0.125 + 0.5 * math.exp(0.5)
    assert check["expected"]["x"] == pytest.approx(exact, rel=1e-9)


def test_script_hessian_and_jacobian(tmp_path):
    h = tape_cli("hessian", str(SAMPLES / "rosenbrock.py"), "--at", "0.5,1.5", "--check",
                 "--format", "json")
    assert h.exit_code == 0, h.stderr
    assert json.loads(h.stdout)["points"][0]["check"]["agree"] is True
    j = tape_cli("jacobian", str(SAMPLES / "polar.py"), "--at", "r=2,theta=0.5", "--check",
                 "--format", "json")
    assert j.exit_code == 0, j.stderr
    expected = json.loads(j.stdout)["points"][0]["check"]["expected"]
    assert np.allclose(expected, [[math.cos(0.5), -2 * math.sin(0.5)],
                                  [math.sin(0.5), 2 * math.cos(0.5)]], rtol=1e-8)


def test_script_with_a_wrong_custom_gradient_fails_the_check(tmp_path):
    script = write(tmp_path, """
        import tape
        @tape.custom_gradient
        def _square(x):
            return x * x, lambda dy: dy * 3.0 * x      # wrong: should be 2x
        def f(x):
            return _square(x)
    """)
    result = tape_cli("grad", script, "--at", "1.5", "--check", "--format", "json")
    assert result.exit_code == 1
    check = json.loads(result.stdout)["points"][0]["check"]
    assert check["agree"] is False and check["expected"]["x"] == pytest.approx(3.0)
    assert "finite differences" in result.stderr


def test_richardson_is_accurate_with_an_honest_error_estimate():
    f = lambda a: np.sin(a[0]) * np.exp(a[1])  # noqa: E731
    arrays = [np.array([0.3, -1.0]), np.array([0.2, 1.0])]
    moves = [(0, None), (1, None)]
    cases = {(0,): np.cos(arrays[0]) * np.exp(arrays[1]),
             (0, 1): np.cos(arrays[0]) * np.exp(arrays[1]),
             (0, 0, 0): -np.cos(arrays[0]) * np.exp(arrays[1])}
    for key, exact in cases.items():
        estimate, error = fdcheck.partial(f, arrays, moves, key)
        assert np.all(np.abs(estimate - exact) <= 3 * error + 1e-12)
        assert np.all(error < 1e-6)


def test_fd_agreement_rule_is_the_documented_one():
    tape_v, fd, est = np.array([1.0, 1.0]), np.array([1.0 + 4e-6, 1.0 + 4e-6]), \
        np.array([1e-6, 1e-7])
    assert fdcheck.agree(tape_v, fd, est, rtol=0, atol=1e-6).tolist() == [True, False]


# ----------------------------------------------------------------- the building blocks

def test_lowering_uses_exact_numbers_and_the_function_table():
    e = symbolic.to_sympy(parse("0.1*x + 2x^2 + pi + e + ln(x)"), {"x": None})
    assert e == sp.Rational(1, 10) * x_ + 2 * x_ ** 2 + sp.pi + sp.E + sp.log(x_)
    assert symbolic.to_sympy(parse("w[0]*w[-1]"), {"w": 3}) == \
        sp.Symbol("w[0]", real=True) * sp.Symbol("w[2]", real=True)
    with pytest.raises(CLIError):
        symbolic.to_sympy(parse("sum(x)"), {"x": None})


def test_a_long_sum_lowers_in_linear_time():
    text = "+".join(["x*y"] * 20000)
    start = time.monotonic()
    assert symbolic.to_sympy(parse(text), {"x": None, "y": None}) == 20000 * x_ * y_
    assert time.monotonic() - start < 20


def test_run_limited_returns_forwards_and_stops():
    assert timelimit.run_limited(sum, [1, 2, 3], timeout=5) == 6
    with pytest.raises(timelimit.SymbolicTimeout) as info:
        timelimit.run_limited(time.sleep, 30, timeout=0.2)
    assert info.value.code == 3
    with pytest.raises(CLIError) as info:
        timelimit.run_limited(_raise_cli, timeout=5)
    assert info.value.code == 2 and "bad thing" in info.value.message
    with pytest.raises(timelimit.SymbolicFailure) as info:
        timelimit.run_limited(_raise_value_error, timeout=5)
    assert info.value.code == 3 and "ValueError" in info.value.message


def _raise_cli():
    raise CLIError("bad thing")


def _raise_value_error():
    raise ValueError("boom")


# ----------------------------------------------------------------- SymPy is imported lazily

PROBE = """
import sys
from tape.cli.app import app
from typer.testing import CliRunner
result = CliRunner().invoke(app, sys.argv[1:])
assert result.exit_code == 0, result.output
print("sympy" in sys.modules, "mpmath" in sys.modules)
"""


@pytest.mark.parametrize("args, loaded", [
    (["grad", "x^2*sin(y)", "--at", "1,2"], "False False"),
    (["grad", "x^2", "--order", "2", "--at", "1", "--format", "json"], "False False"),
    (["hessian", "x*y", "--at", "1,2"], "False False"),
    (["grad", "x^2*sin(y)", "--at", "1,2", "--check"], "True True"),   # the control
])
def test_sympy_is_imported_only_for_symbolic_work(args, loaded):
    out = subprocess.run([sys.executable, "-c", PROBE, *args], capture_output=True,
                         text=True, cwd=ROOT, timeout=120)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == loaded


def test_check_still_decides_when_tidying_runs_out_of_time(monkeypatch):
    monkeypatch.setattr(crosscheck, "run_optional", lambda *args: None)
    result = tape_cli("grad", "(x+1)/(x-1)", "--at", "2", "--check", "--format", "json")
    assert result.exit_code == 0
    doc = json.loads(result.stdout)
    assert doc["points"][0]["check"]["agree"] is True
    assert equivalent(doc["symbolic"]["x"], "-2/(x-1)**2")
