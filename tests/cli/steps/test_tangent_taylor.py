"""tape tangent and tape taylor against SymPy: values, slopes, equations, coefficients up to
order 30, every format, and bad input."""
from __future__ import annotations

import json
import math

import pytest
import sympy as sp

from cli_helpers import tape_cli

X, Y = sp.Symbol("x", real=True), sp.Symbol("y", real=True)
Z = sp.Symbol("z", real=True)
FUNCTIONS = {"sin(x)": sp.sin(X), "x^3 - 2x": X ** 3 - 2 * X, "exp(x)*cos(x)":
             sp.exp(X) * sp.cos(X), "ln(x^2+1)": sp.log(X ** 2 + 1), "sqrt(x)": sp.sqrt(X),
             "atan(x)/x": sp.atan(X) / X, "1/(1-x)": 1 / (1 - X)}


def read(text: str):
    """tape's own SymPy-syntax output read back (trusted text, not user input)."""
    return sp.sympify(text, locals={"x": X, "y": Y, "z": Z})


def run_json(*args):
    result = tape_cli(*args, "--format", "json")
    assert result.exit_code == 0, result.stderr
    return json.loads(result.stdout)


@pytest.mark.parametrize("text", list(FUNCTIONS))
@pytest.mark.parametrize("a", [0.5, 1.7, -0.4])
def test_tangent_line_against_sympy(text, a):
    f = FUNCTIONS[text]
    value = float(f.subs(X, a).evalf(30)) if f.subs(X, a).is_real else None
    if value is None:
        result = tape_cli("tangent", text, "--at", repr(a))
        assert result.exit_code == 2 and result.stderr.startswith("error:")
        return
    slope = float(sp.diff(f, X).subs(X, a).evalf(30))
    doc = run_json("tangent", text, "--at", repr(a))
    assert doc["at"] == {"x": a}
    assert doc["value"] == pytest.approx(value, rel=1e-12, abs=1e-14)
    assert doc["slope"] == pytest.approx(slope, rel=1e-12, abs=1e-14)
    lhs, rhs = doc["tangent"].split(" = ")
    assert lhs == "y"
    line = read(rhs)
    for x in (a - 1.0, a, a + 2.5):
        assert float(line.subs(X, x)) == pytest.approx(value + slope * (x - a), rel=1e-12,
                                                       abs=1e-12)
    lhs, rhs = doc["normal"].split(" = ")
    normal = read(rhs)
    assert float(normal.subs(X, a + 1.0)) == pytest.approx(value - 1.0 / slope, rel=1e-12)


def test_horizontal_tangent_has_a_vertical_normal():
    doc = run_json("tangent", "x^2 - 4x", "--at", "2", "--numeric")
    assert doc["tangent"] == "y = -4.0" and doc["normal"] == "x = 2.0"
    assert doc["slope"] == 0.0


def test_tangent_plane_against_sympy():
    f = X ** 2 * sp.sin(Y)
    doc = run_json("tangent", "x^2*sin(y)", "--at", "x=1.5,y=0.7")
    assert list(doc) == ["expression", "read_as", "at", "value", "slope", "tangent"]
    fx = float(sp.diff(f, X).subs({X: 1.5, Y: 0.7}))
    fy = float(sp.diff(f, Y).subs({X: 1.5, Y: 0.7}))
    assert doc["slope"] == pytest.approx({"x": fx, "y": fy}, rel=1e-12)
    lhs, rhs = doc["tangent"].split(" = ")
    assert lhs == "z"
    plane = read(rhs)
    at = {X: 2.0, Y: -1.0}
    expected = float(f.subs({X: 1.5, Y: 0.7})) + fx * 0.5 + fy * (-1.7)
    assert float(plane.subs(at)) == pytest.approx(expected, rel=1e-12)


def test_tangent_formats():
    plain = tape_cli("tangent", "x^2", "--at", "1", "--format", "plain", "--numeric")
    assert plain.stdout == "y = 1.0 + 2.0*(x - 1.0)\n"
    csv = tape_cli("tangent", "x^2", "--at", "1", "--format", "csv").stdout.splitlines()
    assert csv == ["x,value,df/dx,tangent,normal", "1.0,1.0,2.0,y = 2*x - 1,y = 3/2 - x/2"]
    table = tape_cli("tangent", "x^2", "--at", "1", "--format", "table", "--numeric").stdout
    assert "tangent  y = 1 + 2·(x − 1)" in table and "normal   y = 1 − 0.5·(x − 1)" in table


@pytest.mark.parametrize("args, words", [
    (["sqrt(x)", "--at", "0"], "not differentiable"),
    (["abs(x)", "--at", "0"], "abs(x) has a kink"),
    (["x^2 + abs(y - 2)", "--at", "x=1,y=2"], "abs(y - 2) has a kink"),
    (["ln(x)", "--at", "-1"], "not defined"),
    (["x^2", "--at", "y=1"], "not a variable"),
    (["x^2", "--at", "abc"], "not a number"),
    (["3", "--at", "1"], "no variables"),
    (["x^^2", "--at", "1"], "column"),
    (["x^2"], "--at"),
])
def test_tangent_bad_input(args, words):
    result = tape_cli("tangent", *args)
    assert result.exit_code == 2
    assert result.stderr.startswith("error:") and words in result.stderr
    assert "Traceback" not in result.stderr


# ----------------------------------------------------------------------------- taylor

SERIES = [("exp(x)", sp.exp(X), 1.0, 30), ("sin(x)", sp.sin(X), 0.0, 30),
          ("1/(1-x)", 1 / (1 - X), 0.5, 30), ("ln(x)", sp.log(X), 2.0, 30),
          ("x^5 - 3x^2", X ** 5 - 3 * X ** 2, -1.0, 30), ("cos(2x)", sp.cos(2 * X), 0.3, 20),
          ("sqrt(1+x)", sp.sqrt(1 + X), 0.0, 15), ("atan(x)", sp.atan(X), 0.0, 15),
          ("exp(x)*sin(x)", sp.exp(X) * sp.sin(X), 0.25, 12)]


def sympy_coefficients(f, a, n):
    t = sp.Symbol("t")
    series = sp.series(f.subs(X, sp.Rational(repr(a)) + t), t, 0, n + 1).removeO()
    return [float(sp.N(series.coeff(t, k) if k else series.subs(t, 0), 30))
            for k in range(n + 1)]


@pytest.mark.parametrize("text, f, a, n", SERIES, ids=[s[0] for s in SERIES])
def test_taylor_coefficients_against_sympy(text, f, a, n):
    doc = run_json("taylor", text, "--at", repr(a), "--order", str(n))
    expected = sympy_coefficients(f, a, n)
    got = doc["coefficients"]
    assert len(got) == n + 1
    for k, (g, e) in enumerate(zip(got, expected)):
        # the engine's recurrences are accurate relative to the coefficients around c_k
        # (measured below 1e-15); 1e-11 is a wide margin that still catches any wrong term,
        # and judges exact zeros (sin's even coefficients) against their neighbours
        scale = sum(abs(c) for c in expected[max(k - 1, 0):k + 2])
        assert abs(g - e) <= 1e-11 * scale, (k, g, e)


def test_taylor_document_and_polynomial():
    doc = run_json("taylor", "exp(x)", "--at", "0", "--order", "3", "--numeric")
    assert list(doc) == ["expression", "read_as", "at", "order", "coefficients", "polynomial"]
    assert doc["at"] == {"x": 0.0} and doc["order"] == 3
    assert doc["polynomial"] == "1.0 + x + 0.5*x**2 + 0.16666666666666666*x**3"
    doc = run_json("taylor", "ln(x)", "--at", "2", "--order", "4", "--numeric")
    poly = read(doc["polynomial"])
    expected = sp.series(sp.log(X), X, 2, 5).removeO()
    for x in (1.5, 2.0, 2.7):
        assert float(poly.subs(X, x)) == pytest.approx(float(expected.subs(X, x)), rel=1e-13)
    assert "(x - 2.0)**4" in doc["polynomial"]


def test_taylor_check_agrees_and_formats():
    doc = run_json("taylor", "sin(x)*exp(x)", "--at", "0.5", "-n", "8", "--check")
    assert doc["check"]["method"] == "sympy" and doc["check"]["agree"] is True
    assert doc["check"]["expected"] == pytest.approx(doc["coefficients"], rel=1e-12, abs=1e-15)
    plain = tape_cli("taylor", "x^3", "--at", "1", "-n", "3", "--format", "plain",
                     "--numeric")
    assert plain.stdout == "1.0 + 3.0*(x - 1.0) + 3.0*(x - 1.0)**2 + (x - 1.0)**3\n"
    csv = tape_cli("taylor", "x^3", "--at", "1", "-n", "3", "--format", "csv").stdout
    assert csv.splitlines() == ["k,coefficient,derivative", "0,1.0,1.0", "1,3.0,3.0",
                                "2,3.0,6.0", "3,1.0,6.0"]
    table = tape_cli("taylor", "x^3", "--at", "1", "-n", "3", "--format", "table",
                     "--numeric").stdout
    assert "P(x) = 1 + 3·(x − 1) + 3·(x − 1)² + (x − 1)³" in table
    assert "f⁽³⁾(1) = 6" in table


def test_away_from_a_kink_is_fine():
    doc = run_json("taylor", "abs(x)", "--at", "-2", "--order", "2")
    assert doc["coefficients"] == [2.0, -1.0, 0.0]
    doc = run_json("tangent", "abs(x - 1)", "--at", "3", "--numeric")
    assert doc["tangent"] == "y = 2.0 + (x - 3.0)" and doc["normal"] == "y = 2.0 - (x - 3.0)"


def test_taylor_check_failure_exits_1(monkeypatch):
    from tape.calculus import taylor as T

    real = T.coefficients
    def off(*args):
        c, digits = real(*args)
        return c * (1 + 1e-6), digits

    monkeypatch.setattr(T, "coefficients", off)
    result = tape_cli("taylor", "exp(x)", "--at", "0", "-n", "4", "--check")
    assert result.exit_code == 1 and "disagree" in result.stderr


@pytest.mark.parametrize("args, words", [
    (["x*y", "--at", "1"], "one variable"),
    (["exp(x)", "--at", "0", "--order", "31"], "31"),
    (["exp(x)", "--at", "0", "--order", "-1"], "-1"),
    (["ln(x)", "--at", "0"], "infinite or undefined"),
    (["sqrt(x)", "--at", "0", "-n", "2"], "infinite or undefined"),
    (["abs(x)", "--at", "0"], "abs(x) has a kink"),
    (["relu(x - 1)", "--at", "1"], "relu(x - 1) has a kink"),
    (["cbrt(x)", "--at", "0"], "infinite or undefined"),
    (["exp(x)", "--at", "y=0"], "not a variable"),
    (["exp(x)"], "--at"),
    (["exp(x)", "--at", "[1,2]"], "no vectors"),
])
def test_taylor_bad_input(args, words):
    result = tape_cli("taylor", *args)
    assert result.exit_code == 2
    assert result.stderr.startswith("error:") and words in result.stderr
    assert "Traceback" not in result.stderr
