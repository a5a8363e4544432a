"""The ``--check``, ``--rtol``, ``--atol`` and ``--timeout`` options and their defaults.

Apart from ``crosscheck.py`` so that ``tape grad`` without ``--check`` declares them without
importing the checking machinery (``crosscheck`` re-exports them).
"""
from __future__ import annotations

from typing import Annotated

import typer

CheckOption = Annotated[bool, typer.Option(
    "--check", help="Cross-check every number: SymPy for expressions, finite differences "
                    "for scripts; exit 1 on disagreement.")]
RtolOption = Annotated[float, typer.Option(
    "--rtol", min=0.0, help="Relative tolerance of --check.")]
AtolOption = Annotated[float, typer.Option(
    "--atol", min=0.0, help="Absolute tolerance of --check.")]
TimeoutOption = Annotated[float, typer.Option(
    "--timeout", min=0.0, help="Seconds the symbolic work may take (then exit 3).")]

RTOL = 1e-6
ATOL = 1e-9
#: seconds; also ``timelimit.DEFAULT_TIMEOUT`` (defined here so that grad never loads timelimit)
TIMEOUT = 10.0
