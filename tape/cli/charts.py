"""Drawing a ``plotting.Series``: in the terminal with plotext, to PNG/SVG/PDF with matplotlib.

Both libraries are the optional ``plot`` extra and are imported here only, inside the functions
that draw, so no other command ever loads them. Without them, ``require`` raises a ``CLIError``
(exit 2) that says how to install the extra.
"""
from __future__ import annotations

import importlib

from ..expr.errors import BAD_INPUT, CLIError
from .output import abort
from ..calculus.plotting import Series, line_breaks, view, visible

INSTALL_HINT = "install the plot extra: pip install 'tape[plot]'"
#: image formats matplotlib writes for ``--out``
IMAGE_FORMATS = ("png", "svg", "pdf")
#: markers for a terminal without colours, one per curve, so the legend tells them apart
PLAIN_MARKERS = ("hd", "•", "+", "x", "o", "*", "#")
DPI = 100
#: the most pixels of an --out image (4096 x 4096): matplotlib allocates the whole canvas, 4
#: bytes a pixel and several copies, before drawing
MAX_IMAGE_PIXELS = 4096 * 4096


def require(module: str, purpose: str):
    """Import ``module`` or fail with the install hint."""
    try:
        return importlib.import_module(module)
    except ImportError:
        abort(f"{purpose} needs {module.split('.')[0]}, which is not installed; "
              f"{INSTALL_HINT}", BAD_INPUT)


def terminal_chart(series: Series, width: int, height: int, color: bool) -> str:
    """The chart as text (with ANSI colours when ``color``), legend f, f', f''..."""
    plt = require("plotext", "drawing in the terminal")
    fig = plt.figure
    fig.clear()
    fig.theme("simple" if color else "colorless")  # coloured curves, the terminal's background
    fig.plot_size(width, height)
    limits = view(series)
    for k, (label, y) in enumerate(zip(series.labels, series.curves)):
        marker = "hd" if color else PLAIN_MARKERS[k % len(PLAIN_MARKERS)]
        xs, ys = series.x, visible(y, limits)
        ok = ys == ys  # not nan
        if not ok.any():
            continue
        signal = fig.signal(xs[ok].tolist(), ys[ok].tolist(), marker=marker).label(label)
        signal.lines()
        for i in line_breaks(ok):  # no line across a gap
            signal.line(i, False)
        fig.draw(signal)
    corner = quietest_corner(series, limits)
    x0, x1 = float(series.x[0]), float(series.x[-1])
    fig.legend(x=x0 if corner[1] == "left" else x1, y=limits[1] if corner[0] == "top"
               else limits[0], ha=corner[1], va=corner[0], relative=True)
    fig.title(series.expression)
    fig.label(series.variable, "x")
    fig.ruler("x").lim(float(series.x[0]), float(series.x[-1]))
    fig.ruler("y").lim(*limits)
    text = fig.build().string(colorless=not color)
    fig.clear()
    return text


def quietest_corner(series: Series, limits: tuple[float, float]) -> tuple[str, str]:
    """``(top|bottom, left|right)``: the corner of the chart with the fewest curve points near
    it (a quarter of the width, a third of the height), where the legend hides least."""
    import numpy as np

    lo, hi = limits
    x0, x1 = float(series.x[0]), float(series.x[-1])
    near_left = series.x <= x0 + (x1 - x0) / 4
    near_right = series.x >= x1 - (x1 - x0) / 4
    counts = {}
    for vertical in ("top", "bottom"):
        for horizontal, near in (("left", near_left), ("right", near_right)):
            total = 0
            for y in series.curves:
                with np.errstate(invalid="ignore"):
                    band = (y >= hi - (hi - lo) / 3) if vertical == "top" else \
                        (y <= lo + (hi - lo) / 3)
                total += int((band & near).sum())
            counts[(vertical, horizontal)] = total
    return min(counts, key=lambda corner: counts[corner])  # ties: top-left first


def image_format(path: str) -> str:
    """The image format from the file's extension (exit 2 if not png, svg or pdf)."""
    ext = path.rsplit(".", 1)[-1].lower() if "." in path else ""
    if ext not in IMAGE_FORMATS:
        abort(f"--out: cannot tell the image format of {path!r}; use a name ending "
              f"in {', '.join('.' + f for f in IMAGE_FORMATS)}")
    return ext


def figure(series: Series, width: int, height: int):
    """A matplotlib Figure of the series (Agg backend): labels, legend, grid, gaps kept."""
    require("matplotlib", "writing an image")
    from matplotlib.figure import Figure  # no pyplot: no GUI backend, no global state

    fig = Figure(figsize=(width / DPI, height / DPI), dpi=DPI)
    ax = fig.add_subplot()
    limits = view(series)
    for label, y in zip(series.labels, series.curves):
        ax.plot(series.x, visible(y, limits), label=label)  # nan breaks the line
    ax.set_xlim(float(series.x[0]), float(series.x[-1]))
    ax.set_ylim(*limits)
    ax.set_xlabel(series.variable)
    ax.set_ylabel(f"f({series.variable}) and derivatives" if len(series.ys) > 1
                  else f"f({series.variable})")
    ax.set_title(series.expression)
    ax.axhline(0.0, color="0.6", linewidth=0.8)
    ax.grid(True, alpha=0.4)
    ax.legend()
    fig.tight_layout()
    return fig


def check_image_size(width: int, height: int) -> None:
    """Refuse an image over ``MAX_IMAGE_PIXELS`` before anything is computed or drawn."""
    if width * height > MAX_IMAGE_PIXELS:
        abort(f"--out: an image of {width} x {height} pixels ({width * height:,}); the limit "
              f"is {MAX_IMAGE_PIXELS:,} pixels (4096 x 4096)")


def save_image(series: Series, path: str, width: int, height: int) -> None:
    """Write the chart to ``path`` (format from the extension)."""
    fmt = image_format(path)
    fig = figure(series, width, height)
    try:
        fig.savefig(path, format=fmt)
    except BrokenPipeError:     # a pipe or /dev/stdout whose reader is gone: end quietly
        raise
    except OSError as exc:
        abort(f"--out: cannot write {path!r}: {exc.strerror or exc}")
