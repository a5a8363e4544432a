"""``tape jacobian``: the Jacobian of several expressions, a bracketed list, or a script
function returning a vector."""

# (no ``from __future__ import annotations`` here: Typer reads this module's command
# signatures at every start, and string annotations would be evaluated each time)
from typing import Annotated

import typer

from .. import options as O
from .common import Request, derive


def jacobian(
    targets: Annotated[list[str], typer.Argument(
        metavar="TARGET...",
        help="Expressions ('x*y' 'x+y'), one bracketed list '\\[x*y, x+y]', or a script "
             "path.py[:function] returning a vector.")],
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
    """Value and Jacobian of TARGET(s) at each point: one row per output, one column per
    --wrt component."""
    derive(Request("jacobian", targets, at, points, wrt, 1, fmt, precision, check, rtol, atol,
                   timeout))
