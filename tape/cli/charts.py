"""Drawing a ``plotting.Series``: in the terminal with plotext, to PNG/SVG/PDF with matplotlib.

Both libraries are the optional ``plot`` extra and are imported here only, inside the functions
that draw, so no other command ever loads them. Without them, ``require`` raises a ``CLIError``
(exit 2) that says how to install the extra.
"""
from __future__ import annotations

import importlib

from .errors import BAD_INPUT, CLIError
from .plotting import Series, line_breaks, view, visible

INSTALL_HINT = "install the plot extra: pip install 'tape[plot]'"
#: image formats matplotlib writes for ``--out``
IMAGE_FORMATS = ("png", "svg", "pdf")
#: markers for a terminal without colours, one per curve, so the legend tells them apart
PLAIN_MARKERS = ("hd", "•", "+", "x", "o", "*", "#")
DPI = 100


def require(module: str, purpose: str):
    """Import ``module`` or fail with the install hint."""
    try:
        return importlib.import_module(module)
    except ImportError:
        raise CLIError(f"{purpose} needs {module.split('.')[0]}, which is not installed; "
                       f"{INSTALL_HINT}", BAD_INPUT) from None


def terminal_chart(series: Series, width: int, height: int, color: bool) -> str:
    """The chart as text (with ANSI colours when ``color``), legend f, f', f''..."""
    plt = require("plotext", "drawing in the terminal")
    fig = plt.figure
    fig.clear()
    fig.plot_size(width, height)
    limits = view(series)
    for k, (label, y) in enumerate(zip(series.labels, series.ys)):
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
    fig.title(series.expression)
    fig.label(series.variable, "x")
    fig.ruler("x").lim(float(series.x[0]), float(series.x[-1]))
    fig.ruler("y").lim(*limits)
    text = fig.build().string(colorless=not color)
    fig.clear()
    return text


def image_format(path: str) -> str:
    """The image format from the file's extension (exit 2 if not png, svg or pdf)."""
    ext = path.rsplit(".", 1)[-1].lower() if "." in path else ""
    if ext not in IMAGE_FORMATS:
        raise CLIError(f"--out: cannot tell the image format of {path!r}; use a name ending "
                       f"in {', '.join('.' + f for f in IMAGE_FORMATS)}")
    return ext


def figure(series: Series, width: int, height: int):
    """A matplotlib Figure of the series (Agg backend): labels, legend, grid, gaps kept."""
    require("matplotlib", "writing an image")
    from matplotlib.figure import Figure  # no pyplot: no GUI backend, no global state

    fig = Figure(figsize=(width / DPI, height / DPI), dpi=DPI)
    ax = fig.add_subplot()
    limits = view(series)
    for label, y in zip(series.labels, series.ys):
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


def save_image(series: Series, path: str, width: int, height: int) -> None:
    """Write the chart to ``path`` (format from the extension)."""
    fmt = image_format(path)
    fig = figure(series, width, height)
    try:
        fig.savefig(path, format=fmt)
    except OSError as exc:
        raise CLIError(f"--out: cannot write {path!r}: {exc.strerror or exc}") from None
