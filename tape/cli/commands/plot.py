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

import csv
import shutil
import sys
from typing import Annotated, Optional

import numpy as np
import typer

from .. import output
from ..errors import CLIError
from ..plotting import MAX_ORDER, MAX_POINTS, Series, compute_series, parse_range
from ..targets import make_target

#: image size in pixels when --width/--height are not given
IMAGE_SIZE = (800, 500)


def plot(
    expression: Annotated[str, typer.Argument(
        metavar="EXPR", help="A function of one variable, such as 'sin(x)/x' "
                             "(or a script path.py[:function] that accepts arrays).")],
    range_: Annotated[str, typer.Option(
        "--range", "-r", metavar="A:B",
        help="The x range, e.g. -5:5 or -pi:pi.")
    ] = "-5:5",
    order: Annotated[int, typer.Option(
        "--order", "-n", min=0, max=MAX_ORDER,
        help="Draw f and its first N derivatives.")] = 1,
    out: Annotated[Optional[str], typer.Option(
        "--out", "-o", metavar="FILE",
        help="Write an image instead: FILE.png, .svg or .pdf (needs the plot extra).")
    ] = None,
    points: Annotated[int, typer.Option(
        "--points", min=2, max=MAX_POINTS, help="Number of grid points.")] = 401,
    width: Annotated[Optional[int], typer.Option(
        "--width", min=20, max=20_000,
        help="Chart width: terminal columns, or image pixels with --out (800).")] = None,
    height: Annotated[Optional[int], typer.Option(
        "--height", min=8, max=20_000,
        help="Chart height: terminal rows, or image pixels with --out (500).")] = None,
    fmt: output.FormatOption = output.Format.auto,
) -> None:
    """Plot EXPR and its first N derivatives over a range.

    Drawn in the terminal, or written as an image with --out (PNG, SVG, PDF);
    piped, it prints one line per point: x f f' ...
    Points where the function is undefined are left as gaps.
    """
    target = make_target([expression])
    lo, hi = parse_range(range_)
    if out is not None:
        from ..charts import image_format

        image_format(out)  # a bad file name fails before any work
    series = compute_series(target, lo, hi, points, order)
    _warn_gaps(series)
    if out is not None:
        from ..charts import save_image

        save_image(series, out, width or IMAGE_SIZE[0], height or IMAGE_SIZE[1])
        return
    chosen = output.resolve_format(fmt)
    if chosen is output.Format.table:
        from ..charts import terminal_chart

        columns, rows = shutil.get_terminal_size((100, 30))
        text = terminal_chart(series, width or max(40, min(columns, 120)),
                              height or max(12, min(rows - 2, 30)),
                              color=output.is_terminal(sys.stdout))
        sys.stdout.write(text + "\n")
    elif chosen is output.Format.json:
        output.print_json(document(series, lo, hi))
    else:
        write_rows(series, csv_header=chosen is output.Format.csv)
    sys.stdout.flush()


def document(series: Series, lo: float, hi: float) -> dict:
    """The JSON document (nan becomes null when serialised)."""
    return {"expression": series.expression, "variable": series.variable,
            "range": [lo, hi], "order": len(series.ys) - 1, "x": series.x.tolist(),
            "series": {label: y.tolist() for label, y in zip(series.labels, series.ys)}}


def write_rows(series: Series, csv_header: bool) -> None:
    """One line per grid point: x then f, f', ... (space separated, or CSV with a header)."""
    rows = np.column_stack([series.x] + series.ys).tolist()
    if csv_header:
        writer = csv.writer(sys.stdout, lineterminator="\n")
        writer.writerow([series.variable] + series.labels)
        writer.writerows([repr(v) for v in row] for row in rows)
    else:
        sys.stdout.write("".join(" ".join(map(repr, row)) + "\n" for row in rows))


def _warn_gaps(series: Series) -> None:
    undefined = int(np.isnan(series.ys[0]).sum())
    if undefined == len(series.x):
        raise CLIError(f"{series.expression!r} is undefined (inf or nan) at every point of the "
                       f"range")
    if undefined:
        output.warn(f"f is undefined (inf or nan) at {undefined} of {len(series.x)} points; "
                    f"they are left as gaps")
