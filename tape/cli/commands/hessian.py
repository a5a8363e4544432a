"""``tape hessian``: the matrix of second derivatives of a scalar target."""

# (no ``from __future__ import annotations`` here: Typer reads this module's command
# signatures at every start, and string annotations would be evaluated each time)
from typing import Annotated

import typer

from .. import options as O
from .common import Request, derive


def hessian(
    target: Annotated[str, typer.Argument(
        metavar="TARGET",
        help="A scalar expression such as 'x**2*y' or a script path.py[:function].")],
    at: O.AtOption = None,
    points: O.PointsOption = None,
    wrt: O.WrtOption = None,
    fmt: O.FormatOption = O.Format.auto,
    precision: O.PrecisionOption = 6,
    check: O.CheckOption = False,
    rtol: O.RtolOption = O.RTOL,
    atol: O.AtolOption = O.ATOL,
    timeout: O.TimeoutOption = O.TIMEOUT,
) -> None:
    """Hessian of TARGET at each point: rows and columns in --wrt order."""
    derive(Request("hessian", [target], at, points, wrt, 2, fmt, precision, check, rtol, atol,
                   timeout))
