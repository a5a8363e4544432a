"""``tape grad``: the value and gradient (or N-th order derivatives) of a scalar target."""

# (no ``from __future__ import annotations`` here: Typer reads this module's command
# signatures at every start, and string annotations would be evaluated each time)
from typing import Annotated

import typer

from .. import options as O
from .common import Request, derive


def grad(
    target: Annotated[str, typer.Argument(
        metavar="TARGET",
        help="An expression such as '2*x**3+4*x**2' or a script path.py[:function].")],
    at: O.AtOption = None,
    points: O.PointsOption = None,
    wrt: O.WrtOption = None,
    order: O.GradOrderOption = 1,
    fmt: O.FormatOption = O.Format.auto,
    precision: O.PrecisionOption = 6,
    check: O.CheckOption = False,
    rtol: O.RtolOption = O.RTOL,
    atol: O.AtolOption = O.ATOL,
    timeout: O.TimeoutOption = O.TIMEOUT,
) -> None:
    """Value and gradient of TARGET at each point (higher orders with --order)."""
    derive(Request("grad", [target], at, points, wrt, order, fmt, precision, check, rtol, atol,
                   timeout))
