"""`tape plot --tangent A`: the tangent line f(a) + f'(a)(x - a) drawn beside f, by the engine,
and refused where f has no tangent (a kink, an infinite slope)."""
import json
import math

import pytest

from cli_helpers import tape_cli


@pytest.mark.parametrize("expression, f, df, a, text", [
    ("sin(x)", math.sin, math.cos, math.pi / 4, "pi/4"),
    ("x^3 - 3x", lambda x: x ** 3 - 3 * x, lambda x: 3 * x ** 2 - 3, 2.0, "2"),
    ("exp(-x^2)", lambda x: math.exp(-x * x), lambda x: -2 * x * math.exp(-x * x), -0.5, "-0.5"),
])
def test_the_tangent_line_is_in_every_format(expression, f, df, a, text):
    result = tape_cli("plot", expression, "--range", "-2:2", "--points", "9", "--tangent", text,
                      "--format", "json")
    assert result.exit_code == 0, result.stderr
    doc = json.loads(result.stdout)
    label = f"tangent at x={a!r}"
    assert list(doc["series"])[-1] == label and doc["order"] == 1
    for x, y in zip(doc["x"], doc["series"][label]):
        assert y == pytest.approx(f(a) + df(a) * (x - a), rel=1e-12, abs=1e-12)
    csv = tape_cli("plot", expression, "--range", "-2:2", "--points", "9", "--tangent", text,
                   "--format", "csv")
    assert csv.stdout.splitlines()[0] == f"x,f,f',{label}"


def test_the_tangent_is_drawn_in_the_terminal_and_in_images(tmp_path):
    chart = tape_cli("plot", "x^2", "--range", "-2:2", "--tangent", "1", "--format", "table",
                     "--width", "70", "--height", "20")
    assert chart.exit_code == 0 and "tangent at x=1.0" in chart.stdout
    image = tmp_path / "tangent.png"
    result = tape_cli("plot", "x^2", "--tangent", "1", "--out", str(image))
    assert result.exit_code == 0 and image.stat().st_size > 1000


@pytest.mark.parametrize("args, message", [
    (["abs(x)", "--tangent", "0"], "kink"),
    (["abs(x - 1)", "--tangent", "1"], "kink"),
    (["sqrt(x)", "--range", "0:1", "--tangent", "0"], "no tangent line"),
    (["x^2", "--tangent", "one"], "--tangent"),
])
def test_no_tangent_where_there_is_none(args, message):
    result = tape_cli("plot", *args, "--format", "csv")
    assert result.exit_code == 2, result.stdout
    assert message in result.stderr and result.stdout == "" and "Traceback" not in result.stderr
