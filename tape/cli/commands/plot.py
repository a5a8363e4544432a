"""``tape plot``: f and its first N derivatives over a range, as a chart or as data.

Where it goes:

* ``--out FILE.png|svg|pdf``: an image written with matplotlib (the ``plot`` extra);
* otherwise ``--format auto`` draws the chart in the terminal with plotext (the ``plot``
  extra) when standard output is a terminal, and prints the numbers when it is piped;
  ``--format table`` always draws the chart (without colours when piped);
* ``plain``: one line per grid point, ``x f f' ...`` separated by spaces (``nan`` = undefined);
  ``csv``: the same with a header row (the variable's name, ``f``, ``f'``, ...);
  ``json``: ``{"expression", "variable", "range", "order", "x", "series": {"f": [...], ...}}``
  with ``null`` where the function is undefined.
"""
from __future__ import annotations

import shutil
from typing import Annotated

import numpy as np
import typer

from .. import options as O, output, points as P
from ...calculus.budget import from_option
from ...calculus.plotting import Series, compute_series, derivative_label, tangent_line
from ...calculus.targets import make_target
from ..process import script_code

#: image size in pixels when --width/--height are not given
IMAGE_SIZE = (800, 500)


def plot(
    expression: Annotated[str, typer.Argument(
        metavar="EXPR", help="A function of one variable, such as 'sin(x)/x' "
                             "(or a script path.py[:function] that accepts arrays).")],
    range_: O.RangeOption = "-5:5",
    order: O.PlotOrderOption = 1,
    out: O.ImageOption = None,
    points: O.GridOption = 401,
    width: O.WidthOption = None,
    height: O.HeightOption = None,
    fmt: O.FormatOption = O.Format.auto,
    tangent: O.PlotTangentOption = None,
    memory: O.MemoryOption = None,
) -> None:
    """Plot EXPR and its first N derivatives over a range (--tangent A adds the tangent
    line at x = A).

    Drawn in the terminal, or written as an image with --out (PNG, SVG, PDF);
    piped, it prints one line per point: x f f' ...
    Points where the function is undefined are left as gaps.
    """
    target = make_target([expression], fence=script_code)
    lo, hi = parse_range(range_)
    budget = from_option(memory)
    if out is not None:
        from ..charts import check_image_size, image_format

        image_format(out)  # a bad file name or size fails before any work
        check_image_size(width or IMAGE_SIZE[0], height or IMAGE_SIZE[1])
    series = compute_series(target, lo, hi, points, order, budget)
    _warn_gaps(series)
    _warn_digits(series)
    if tangent is not None:
        a = P.parse_number(tangent, "--tangent")
        series.extra.append(tangent_line(target, series, a, tangent))
    if out is not None:
        from ..charts import save_image

        save_image(series, out, width or IMAGE_SIZE[0], height or IMAGE_SIZE[1])
        return
    output.render(PlotResult(series, target, lo, hi, width, height), output.resolve_format(fmt))


class PlotResult(output.Result):
    """f and its derivatives on the grid: a chart on a terminal, numbers otherwise."""

    def __init__(self, series: Series, target, lo: float, hi: float, width, height) -> None:
        self.series = series
        self.target = target
        self.range = (lo, hi)
        self.size = (width, height)

    def document(self) -> dict:
        return document(self.series, *self.range)

    def header(self) -> list[str]:
        return [self.series.variable] + self.series.labels

    def rows(self):
        for block in self._blocks():
            yield output.repr_columns(block)

    def lines(self):
        yield from output.numeric_text(np.column_stack([self.series.x] + self.series.curves), " ")

    def _blocks(self):
        """The grid as ``x f f' ...`` rows, a block at a time: about ``OUTPUT_BLOCK`` numbers
        in text at once, whatever --points and --order are."""
        numbers = np.column_stack([self.series.x] + self.series.curves)
        step = max(1, output.OUTPUT_BLOCK // numbers.shape[1])
        for start in range(0, numbers.shape[0], step):
            yield numbers[start:start + step]

    def draw(self, out, precision: int) -> None:
        from ..charts import terminal_chart

        width, height = self.size
        columns, rows = shutil.get_terminal_size((100, 30))
        # the render path prints a `read as` line above the chart: --height counts it
        above = 0 if self.read_as is None else 1
        text = terminal_chart(self.series, width or max(40, min(columns, 120)),
                              (height or max(12 + above, min(rows - 2, 30))) - above,
                              color=output.is_terminal(out))
        out.write(text + "\n")


def document(series: Series, lo: float, hi: float) -> dict:
    """The JSON document (nan becomes null when serialised)."""
    doc = {"expression": series.expression, "variable": series.variable,
           "range": [lo, hi], "order": len(series.ys) - 1, "x": series.x.tolist(),
           "series": {label: y.tolist() for label, y in zip(series.labels, series.curves)}}
    if series.digits:   # beside the numbers with fewer than 8 estimated digits; null elsewhere
        doc["digits"] = {derivative_label(k): [None if np.isnan(v) else int(v) for v in d]
                         for k, d in sorted(series.digits.items())}
    return doc


def _warn_digits(series: Series) -> None:
    """One warning for the derivatives drawn with fewer correct digits than printed: the one
    with the fewest, at its point, and how many numbers are so."""
    from ...calculus.derivatives import digits_warning

    warning = digits_warning(series.digits, lambda k, i: f"{derivative_label(k)} at "
                                                         f"{series.variable} = "
                                                         f"{float(series.x[i])!r}")
    if warning:
        output.warn(warning)


def _warn_gaps(series: Series) -> None:
    undefined = int(np.isnan(series.ys[0]).sum())
    if undefined == len(series.x):
        output.abort(f"{series.expression!r} is undefined (inf or nan) at every point of the "
                     f"range")
    if undefined:
        output.warn(f"f is undefined (inf or nan) at {undefined} of {len(series.x)} points; "
                    f"they are left as gaps")


def parse_range(text: str) -> tuple[float, float]:
    """``"-5:5"`` or ``"-pi:pi"`` -> ``(lo, hi)`` with lo < hi, both finite."""
    parts = text.split(":")
    if len(parts) != 2:
        output.abort(f"--range: {text!r} is not of the form A:B (for example -5:5)")
    lo, hi = (P.parse_number(p, "--range") for p in parts)
    if not (np.isfinite(lo) and np.isfinite(hi)):
        output.abort(f"--range: {text!r} must have finite ends")
    if not lo < hi:
        output.abort(f"--range: the start must be below the end (got {text!r})")
    with np.errstate(over="ignore"):
        width = np.float64(hi) - np.float64(lo)
    if not np.isfinite(width) or not np.isfinite(width / 2):
        output.abort(f"--range: {text!r} is wider than a float can hold (its width overflows); "
                     f"keep |B - A| below about 1e308")
    return lo, hi
