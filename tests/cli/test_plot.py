"""``tape plot``: the computed series, images (PNG/SVG/PDF), the terminal chart, gaps, extras."""
from __future__ import annotations

import json
import re
import struct
import subprocess
import sys
import textwrap
import xml.etree.ElementTree as ET

import numpy as np
import pytest
from typer.testing import CliRunner

import tape
from tape.cli import charts
from tape.calculus import plotting
from tape.cli.app import app
from tape.calculus.targets import make_target

POLY = "2*x**3+4*x**2+5*x+6"
PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"


def run(*args):
    return CliRunner().invoke(app, list(args))


def series(expr, lo=-5.0, hi=5.0, points=101, order=1):
    return plotting.compute_series(make_target([expr]), lo, hi, points, order)


@pytest.fixture
def nested_only(monkeypatch):
    """Force the nested-tape path even though the engine has ``tape.derivative``."""
    monkeypatch.setattr(plotting, "_taylor", lambda *args: (None, {}))


# --- the series -----------------------------------------------------------------------------

def test_series_values_and_derivatives(nested_only):
    s = series(POLY, order=3)
    x = np.linspace(-5, 5, 101)
    assert s.labels == ["f", "f'", "f''", "f'''"] and s.variable == "x"
    np.testing.assert_allclose(s.x, x)
    np.testing.assert_allclose(s.ys[0], 2 * x ** 3 + 4 * x ** 2 + 5 * x + 6, rtol=1e-12)
    np.testing.assert_allclose(s.ys[1], 6 * x ** 2 + 8 * x + 5, rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(s.ys[2], 12 * x + 8, rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(s.ys[3], 12.0)


def test_third_derivative_of_a_square_at_zero(nested_only):
    # once 0 * x**-1 = nan at x = 0 (Pow's rule); the engine now uses mul_no_nan
    s = series("x**2", order=3, points=3)
    assert s.ys[3].tolist() == [0.0, 0.0, 0.0]


def test_series_is_a_few_vectorized_calls(tmp_path, nested_only):
    script = tmp_path / "counted.py"
    script.write_text(textwrap.dedent("""
        import tape
        CALLS = []

        def f(t):
            CALLS.append(tuple(t.shape))
            return tape.sin(t) * t
    """))
    target = make_target([str(script)])
    s = plotting.compute_series(target, -2.0, 2.0, 50, 2)
    # vectorized passes over the grid (a small measured one first, then what the budget holds)
    calls = target.function.__globals__["CALLS"]
    assert sum(n for (n,) in calls) == 50 and len(calls) == 2
    x = np.linspace(-2, 2, 50)
    np.testing.assert_allclose(s.ys[2], 2 * np.cos(x) - x * np.sin(x), atol=1e-12)
    assert s.variable == "t"


def test_every_order_comes_from_one_taylor_mode_pass(monkeypatch):
    from tape.engine import cauchy

    calls = []
    real = cauchy.coefficients_with_errors

    def counted(f, x, order):
        calls.append(order)
        return real(f, x, order)

    monkeypatch.setattr(cauchy, "coefficients_with_errors", counted)
    monkeypatch.setattr(plotting, "_nested", None)      # not this way
    s = series("exp(2*x)", order=4, points=11)
    assert calls == [4]
    x = np.linspace(-5, 5, 11)
    for k in range(5):
        np.testing.assert_allclose(s.ys[k], 2.0 ** k * np.exp(2 * x), rtol=1e-12)


def test_order_zero_and_constants(nested_only):
    assert len(series("sin(x)", order=0).ys) == 1
    s = series("3", order=2, points=5)
    assert s.ys[0].tolist() == [3.0] * 5 and s.ys[1].tolist() == [0.0] * 5


def test_script_that_is_not_vectorized_gets_a_hint(tmp_path):
    script = tmp_path / "scalar_only.py"
    script.write_text("import math\n\ndef f(x):\n    return math.sin(float(x))\n")
    result = run("plot", str(script), "--points", "5")
    assert result.exit_code == 2
    lines = result.stderr.splitlines()
    assert lines[0].startswith("error: the script raised") and "scalar_only.py:4" in lines[0]
    assert any("shape (5,)" in line for line in lines[1:]) and "Traceback" not in result.stderr


# --- gaps and the y-range -------------------------------------------------------------------

def test_undefined_points_are_gaps(nested_only):
    s = series("log(x)", points=11, order=2)
    x = s.x
    for y in s.ys:  # nan wherever log is undefined, derivatives included
        assert np.isnan(y[x <= 0]).all() and np.isfinite(y[x > 0]).all()
    np.testing.assert_allclose(s.ys[1][x > 0], 1 / x[x > 0])


def test_gaps_in_json_and_plain_output():
    result = run("plot", "1/x", "--points", "5", "--format", "json")
    assert result.exit_code == 0
    doc = json.loads(result.stdout)
    assert doc["x"] == [-5.0, -2.5, 0.0, 2.5, 5.0]
    assert doc["series"]["f"] == [-0.2, -0.4, "nan", 0.4, 0.2]      # JSON has no NaN
    assert doc["series"]["f'"][2] == "nan" and doc["series"]["f'"][0] == pytest.approx(-0.04)
    assert "undefined" in result.stderr and "1 of 5" in result.stderr
    plain = run("plot", "1/x", "--points", "5", "--format", "plain").stdout.splitlines()
    assert plain[2].split() == ["0.0", "nan", "nan"] and len(plain) == 5


def test_undefined_everywhere_is_exit_2():
    result = run("plot", "log(x)", "--range", "-5:-1")
    assert result.exit_code == 2 and "undefined" in result.stderr


def test_view_keeps_whole_polynomial_but_cuts_poles(nested_only):
    s = series(POLY, order=1)
    lo, hi = plotting.view(s)
    for y in s.ys:
        assert lo <= y.min() and y.max() <= hi
    t = series("tan(x)", points=401)
    lo, hi = plotting.view(t)
    assert -40 < lo < -1 and 1 < hi < 40  # not stretched to the poles' huge values
    assert np.nanmax(np.abs(t.ys[1])) > 1000


def test_line_breaks_after_gaps():
    defined = np.array([True, False, True, True, False, False, True])
    assert plotting.line_breaks(defined) == [1, 3]
    assert plotting.line_breaks(np.array([True, True])) == []


# --- images ---------------------------------------------------------------------------------

def png_size(data: bytes) -> tuple[int, int]:
    assert data[:8] == PNG_SIGNATURE and data[12:16] == b"IHDR"
    return struct.unpack(">II", data[16:24])


def test_png(tmp_path):
    path = tmp_path / "poly.png"
    result = run("plot", POLY, "--order", "2", "--out", str(path))
    assert result.exit_code == 0, result.stderr
    data = path.read_bytes()
    assert len(data) > 1000 and png_size(data) == (800, 500)
    assert data.endswith(b"IEND\xaeB`\x82")
    path2 = tmp_path / "small.png"
    assert run("plot", "x", "--out", str(path2), "--width", "400", "--height", "300"
               ).exit_code == 0
    assert png_size(path2.read_bytes()) == (400, 300)


def test_figure_data_covers_the_function(nested_only):
    s = series(POLY, order=2)
    fig = charts.figure(s, 800, 500)
    ax = fig.axes[0]
    lo, hi = ax.get_ylim()
    for y in s.ys:
        assert lo <= y.min() and y.max() <= hi
    lines = ax.get_lines()
    plotted = [line for line in lines if line.get_label() in s.labels]
    assert [line.get_label() for line in plotted] == ["f", "f'", "f''"]
    np.testing.assert_allclose(plotted[0].get_ydata(), s.ys[0])
    assert [t.get_text() for t in ax.get_legend().get_texts()] == ["f", "f'", "f''"]
    assert ax.get_xlabel() == "x" and ax.get_title() == POLY
    assert ax.xaxis._major_tick_kw.get("gridOn") and ax.get_xlim() == (-5.0, 5.0)


def test_figure_keeps_gaps(nested_only):
    s = series("log(x)", points=11, order=1)
    line = charts.figure(s, 800, 500).axes[0].get_lines()[0]
    y = np.asarray(line.get_ydata())
    assert np.isnan(y[s.x <= 0]).all() and np.isfinite(y[s.x > 0]).all()


def test_svg_and_pdf(tmp_path):
    svg = tmp_path / "f.svg"
    assert run("plot", "sin(x)", "--out", str(svg)).exit_code == 0
    root = ET.parse(svg).getroot()  # well-formed XML
    assert root.tag.endswith("svg") and svg.stat().st_size > 1000
    pdf = tmp_path / "f.pdf"
    assert run("plot", "sqrt(x)", "--out", str(pdf)).exit_code == 0
    assert pdf.read_bytes()[:5] == b"%PDF-"


def test_image_with_gaps_and_poles(tmp_path):
    path = tmp_path / "tan.png"
    result = run("plot", "tan(x)/x", "--out", str(path), "--order", "2")
    assert result.exit_code == 0 and path.read_bytes()[:8] == PNG_SIGNATURE


@pytest.mark.parametrize("name", ["plot.gif", "plot"])
def test_unknown_image_format_is_exit_2(tmp_path, name):
    result = run("plot", "x", "--out", str(tmp_path / name))
    assert result.exit_code == 2 and ".png" in result.stderr
    assert not (tmp_path / name).exists()


# --- the terminal chart ---------------------------------------------------------------------

def test_terminal_chart_fixed_width_with_legend():
    result = run("plot", "x^2", "--order", "2", "--format", "table",
                 "--width", "60", "--height", "20")
    assert result.exit_code == 0, result.stderr
    lines = result.stdout.rstrip("\n").splitlines()
    assert max(len(line) for line in lines) == 60 and len(lines) == 20
    legend = " ".join(lines)
    assert " f " in legend and " f' " in legend and " f'' " in legend
    assert lines[0] == "read as x**2" and "x^2" in lines[1]  # the reading, then the title
    assert "\x1b[" not in result.stdout  # no colour codes when not on a terminal


def test_terminal_chart_draws_curves_in_its_window(nested_only):
    s = series("x^2", order=0)
    text = charts.terminal_chart(s, 50, 15, color=False)
    ticks = [float(m.group(1)) for line in text.splitlines()
             if (m := re.match(r"^\s*(-?[\d.]+)┤", line))]
    assert 25 <= max(ticks) < 28 and -2 < min(ticks) <= 0  # the window fits 0..25
    assert "-5.0" in text and "5.0" in text  # the x range
    canvas = "".join(line[6:-1] for line in text.splitlines()[2:-3])
    assert sum(ch not in " │┌┐└┘─" for ch in canvas) > 40  # the curve is drawn
    with_colour = charts.terminal_chart(s, 50, 15, color=True)
    assert "\x1b[" in with_colour
    assert "\x1b[48;" not in with_colour  # never paints over the terminal's background
    colours = set(re.findall(r"\x1b\[38;5;(\d+)m", charts.terminal_chart(
        series("x^2", order=2), 50, 15, color=True)))
    assert len(colours) >= 3  # one per curve


def test_legend_goes_to_the_emptiest_corner(nested_only):
    s = series("x^2", order=0)  # a parabola: the bottom corners are empty
    assert charts.quietest_corner(s, plotting.view(s))[0] == "bottom"
    s = series("exp(x)", order=0)  # flat at the bottom left, rising at the right
    assert charts.quietest_corner(s, plotting.view(s)) == ("top", "left")
    s = series("-exp(x)", order=0)
    assert charts.quietest_corner(s, plotting.view(s)) == ("bottom", "left")


def test_terminal_chart_with_gaps():
    result = run("plot", "1/x", "--format", "table", "--width", "50", "--height", "15")
    assert result.exit_code == 0 and " f' " in result.stdout


# --- the plot extra -------------------------------------------------------------------------

def test_missing_plotext_gives_install_hint(monkeypatch):
    monkeypatch.setitem(sys.modules, "plotext", None)  # import plotext now fails
    result = run("plot", "x^2", "--format", "table")
    assert result.exit_code == 2
    assert result.stderr.startswith("error:") and "pip install 'tape[plot]'" in result.stderr
    assert "Traceback" not in result.stderr and result.stdout == ""


def test_missing_matplotlib_gives_install_hint(monkeypatch, tmp_path):
    monkeypatch.setitem(sys.modules, "matplotlib", None)
    result = run("plot", "x^2", "--out", str(tmp_path / "p.png"))
    assert result.exit_code == 2 and "pip install 'tape[plot]'" in result.stderr
    assert not (tmp_path / "p.png").exists()


def test_data_formats_and_other_commands_never_import_plot_libraries():
    code = textwrap.dedent("""
        import sys
        from typer.testing import CliRunner
        from tape.cli.app import app
        r = CliRunner()
        for args in (["plot", "sin(x)", "--format", "csv"], ["trace", "x^2", "--at", "1"],
                     ["grad", "x^2", "--at", "1"]):
            assert r.invoke(app, args).exit_code == 0, args
        print(sorted(m for m in ("matplotlib", "plotext") if m in sys.modules))
    """)
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         timeout=120)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "[]"


# --- options --------------------------------------------------------------------------------

def test_csv_and_plain_rows():
    result = run("plot", "sin(t)", "--range", "-pi:pi", "--points", "3", "--order", "2",
                 "--format", "csv")
    lines = result.stdout.splitlines()
    assert lines[0] == "t,f,f',f''" and len(lines) == 4
    assert [float(v) for v in lines[2].split(",")] == [0.0, 0.0, 1.0, -0.0]
    plain = run("plot", "x", "--points", "7").stdout.splitlines()
    assert len(plain) == 7 and all(len(line.split()) == 3 for line in plain)


@pytest.mark.parametrize("args, fragment", [
    (["x", "--range", "5"], "A:B"),
    (["x", "--range", "1:1"], "below"),
    (["x", "--range", "a:b"], "not a number"),
    (["x*y"], "one variable"),
    (["x", "--order", "31"], "--order"),
    (["x", "--points", "1"], "--points"),
    (["sin(x", "--format", "plain"], "column"),
])
def test_bad_input_is_exit_2(args, fragment):
    result = run("plot", *args)
    assert result.exit_code == 2, result.stdout
    assert result.stderr.startswith("error:") and fragment in result.stderr
