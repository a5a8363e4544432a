"""``tape hessian``: the matrix of second derivatives of a scalar target."""
from typing import Annotated

import typer

from .derive import derivative_command

hessian = derivative_command("hessian", Annotated[str, typer.Argument(
    metavar="TARGET",
    help="A scalar expression such as 'x**2*y' or a script path.py[:function].")],
    "Hessian of TARGET at each point: rows and columns in --wrt order.", order=2)
