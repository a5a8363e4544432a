"""``tape jacobian``: the Jacobian of several expressions, a bracketed list, or a script
function returning a vector."""
from typing import Annotated

import typer

from .derive import derivative_command

jacobian = derivative_command("jacobian", Annotated[list[str], typer.Argument(
    metavar="TARGET...",
    help="Expressions ('x*y' 'x+y'), one bracketed list '\\[x*y, x+y]', or a script "
         "path.py[:function] returning a vector.")],
    "Value and Jacobian of TARGET(s) at each point: one row per output, one column per\n"
    "--wrt component.", order=1)
