"""``tape grad``: the value and gradient (or N-th order derivatives) of a scalar target."""
from typing import Annotated

import typer

from .derive import derivative_command

grad = derivative_command("grad", Annotated[str, typer.Argument(
    metavar="TARGET",
    help="An expression such as '2*x**3+4*x**2' or a script path.py[:function].")],
    "Value and gradient of TARGET at each point (higher orders with --order); with "
    "--implicit, TARGET is an equation such as 'x^2 + y^2 = 1' and the result dy/dx on it.",
    implicit=True)
