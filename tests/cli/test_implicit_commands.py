"""`tape diff --implicit` and `tape grad --implicit` against SymPy's `idiff` on classic curves,
at points on each curve found numerically (`implicit.points_on_curve`)."""
import json

import pytest
import sympy as sp

from tape.calculus.implicit import curve_from_text, points_on_curve

from cli_helpers import tape_cli

x, y = sp.symbols("x y")

CURVES = [
    ("x^2 + y^2 = 1", x ** 2 + y ** 2 - 1),
    ("x^2/4 + y^2/9 = 1", x ** 2 / 4 + y ** 2 / 9 - 1),
    ("x^3 + y^3 = 6xy", x ** 3 + y ** 3 - 6 * x * y),
    ("sin(x+y) = xy", sp.sin(x + y) - x * y),
    ("e^(xy) = x + y", sp.exp(x * y) - x - y),
    ("x^2 - y^2 = 1", x ** 2 - y ** 2 - 1),
    ("y^2 = x^3 - x + 1", y ** 2 - x ** 3 + x - 1),
    ("xy = 1", x * y - 1),
    ("x^2 + xy + y^2 = 7", x ** 2 + x * y + y ** 2 - 7),
    ("sqrt(x) + sqrt(y) = 3", sp.sqrt(x) + sp.sqrt(y) - 3),
    ("ln(y) + x y = 2", sp.log(y) + x * y - 2),
    ("tan(y) = x^2", sp.tan(y) - x ** 2),
]


@pytest.mark.parametrize("text, F", CURVES, ids=[c[0] for c in CURVES])
@pytest.mark.parametrize("order", [1, 2])
def test_diff_implicit_matches_idiff(text, F, order):
    result = tape_cli("diff", text, "--implicit", "--order", str(order), "--format", "json")
    assert result.exit_code == 0, result.stderr
    doc = json.loads(result.stdout)
    assert doc["dependent"] == "y" and doc["wrt"] == ["x"] and doc["order"] == order
    assert " = " in doc["read_as"]
    got = sp.sympify(doc["derivative"], locals={"x": x, "y": y})   # our own output, not user text
    want = sp.idiff(F, y, x, order)
    # compare as functions at points on the curve (forms differ by the curve's own equation)
    curve = curve_from_text(text)
    # away from x = 0 and y = 0, where some of these derivatives divide by zero
    points = [p for p in points_on_curve(curve, count=12) if min(abs(p[0]), abs(p[1])) > 1e-3][:6]
    assert points
    for px, py in points:
        subs = {x: sp.Float(str(px), 30), y: sp.Float(str(py), 30)}
        a, b = complex(got.evalf(30, subs=subs)), complex(want.evalf(30, subs=subs))
        assert abs(a - b) <= 1e-8 * (1 + abs(b)), (text, px, py, a, b)


@pytest.mark.parametrize("text, F", CURVES, ids=[c[0] for c in CURVES])
@pytest.mark.parametrize("order", [1, 2])
def test_grad_implicit_matches_idiff_at_points_on_the_curve(text, F, order):
    curve = curve_from_text(text)
    points = [(float(px), float(py)) for px, py in points_on_curve(curve, count=12)[:4]]
    assert points
    args = []
    for px, py in points:
        args += ["--at", f"x={px!r},y={py!r}"]
    result = tape_cli("grad", text, "--implicit", "--order", str(order), *args,
                      "--format", "json")
    assert result.exit_code == 0, result.stderr
    doc = json.loads(result.stdout)
    want = sp.idiff(F, y, x, order)
    for (px, py), point in zip(points, doc["points"]):
        assert point["at"] == {"x": px, "y": py}
        expected = float(want.evalf(30, subs={x: px, y: py}))
        assert point["derivative"] == pytest.approx(expected, rel=1e-7, abs=1e-9)


def test_the_spec_example():
    result = tape_cli("grad", "x^2+y^2=1", "--implicit", "--at", "x=0.6,y=0.8")
    assert result.exit_code == 0
    assert float(result.stdout) == pytest.approx(-0.75, rel=1e-15)
    assert tape_cli("diff", "x^2 + y^2 = 1", "--implicit").stdout == "-x/y\n"


def test_dependent_names_the_dependent_variable():
    result = tape_cli("diff", "u^2 + t^3 = 1", "--implicit", "--dependent", "u",
                      "--format", "json")
    doc = json.loads(result.stdout)
    assert doc["dependent"] == "u" and doc["wrt"] == ["t"]
    got = sp.sympify(doc["derivative"], locals={"t": sp.Symbol("t"), "u": sp.Symbol("u")})
    assert sp.simplify(got - (-3 * sp.Symbol("t") ** 2 / (2 * sp.Symbol("u")))) == 0


@pytest.mark.parametrize("args, message", [
    (["grad", "x^2+y^2=1", "--implicit", "--at", "x=0.6,y=0.9"], "not on the curve"),
    (["grad", "x^2+y^2=1", "--implicit"], "--at"),
    (["grad", "x^2+y^2", "--implicit", "--at", "x=1,y=0"], "equation"),
    (["grad", "x^2+y^2=1", "--implicit", "--at", "x=1,y=0", "--order", "3"], "--order 2"),
    (["diff", "x^2+y^2=1", "--implicit", "--order", "3"], "--order 2"),
    (["diff", "x^2+y^2=1", "--implicit", "--steps"], "--steps"),
    (["diff", "x^2+y^2+z^2=1", "--implicit"], "two names"),
    (["diff", "x^2+y^2=1", "--implicit", "--dependent", "w"], "--dependent"),
    (["diff", "x^2", "--dependent", "t"], "--implicit"),
    (["grad", "x^2", "--at", "1", "--dependent", "t"], "--implicit"),
])
def test_bad_input(args, message):
    result = tape_cli(*args)
    assert result.exit_code == 2, result.stdout
    assert message in result.stderr and "Traceback" not in result.stderr
