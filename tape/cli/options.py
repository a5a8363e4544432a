"""Every option of every command, declared once (a command's signature lists the ones it takes).

Each ``...Option`` is a ``typing.Annotated`` type for a command parameter; the bounds and
defaults are the library's (``calculus.limits``), re-exported here for the commands.
"""
from __future__ import annotations

from enum import Enum
from typing import Annotated, Optional

import typer

from ..calculus.limits import (  # noqa: F401  (the commands read them as options.NAME)
    ATOL,
    CHECK_MAX_ORDER,
    DEPENDENT,
    DIFF_MAX_ORDER,
    GRAD_MAX_ORDER,
    MAX_TIMEOUT,
    PLOT_MAX_ORDER,
    PLOT_MAX_POINTS,
    PLOT_NESTED_MAX_ORDER,
    RTOL,
    TAYLOR_MAX_ORDER,
    TIMEOUT,
)


class Format(str, Enum):
    """Output formats (``--format``); ``output.WRITERS`` has one writer per format."""

    auto = "auto"
    table = "table"
    plain = "plain"
    json = "json"
    ndjson = "ndjson"
    csv = "csv"


FormatOption = Annotated[Format, typer.Option(
    "--format", "-f", case_sensitive=False,
    help="auto (a table on a terminal, plain when piped), table, plain, json, ndjson (one "
         "JSON object per point or answer, each line written as it is computed) or csv.")]


class OnError(str, Enum):
    """What a line of points that cannot be read does (``--on-error``): ``points.Misreads``."""

    stop = "stop"
    nan = "nan"
    skip = "skip"


OnErrorOption = Annotated[OnError, typer.Option(
    "--on-error", case_sensitive=False,
    help="A blank or unreadable input line (of --at -, --points, tape diff -, tape check "
         "--answers): stop (exit 2, after the results of the lines before it), nan (write nan "
         "in its place and go on) or skip (go on; the count is said on standard error).")]
PrecisionOption = Annotated[int, typer.Option(
    "--precision", min=1, max=17, help="Significant digits shown in tables.")]

# ------------------------------------------------------------------ where and what to derive
AtOption = Annotated[Optional[list[str]], typer.Option(
    "--at", "-a", metavar="POINT",
    help="Point: 0.5, x=1,y=2, 1,2 (variable order) or x=[1,2,3]; '-' reads one point per "
         "line from standard input. Repeat for several points.")]
PointsOption = Annotated[Optional[str], typer.Option(
    "--points", "-p", metavar="FILE",
    help="CSV file whose header names the variables (other columns are passed through to "
         "csv, json, ndjson and table output); '-' for stdin.")]
WrtOption = Annotated[Optional[str], typer.Option(
    "--wrt", "-w", metavar="VARS",
    help="Comma-separated variables to differentiate, in this order; others stay constant.")]
#: one point; a list so that a command can refuse a repeated --at instead of letting the last
#: one silently win
OnePointOption = Annotated[Optional[list[str]], typer.Option(
    "--at", "-a", metavar="POINT",
    help="The point: 0.5, x=1,y=2, 1,2 (variable order) or x=[1,2,3].")]


GradOrderOption = Annotated[int, typer.Option(
    "--order", "-n", min=1, max=GRAD_MAX_ORDER,
    help="Derivative order: one variable gives the N-th derivative; several give "
         "every distinct N-th order partial.")]
DiffOrderOption = Annotated[int, typer.Option(
    "--order", "-n", min=1, max=DIFF_MAX_ORDER,
    help="Derivative order; with several variables every distinct N-th partial.")]
TaylorOrderOption = Annotated[int, typer.Option(
    "--order", "-n", min=0, max=TAYLOR_MAX_ORDER,
    help=f"The polynomial's degree N (up to {TAYLOR_MAX_ORDER}).")]
CheckOrderOption = Annotated[int, typer.Option(
    "--order", "-n", min=1, max=CHECK_MAX_ORDER, help="Check the N-th derivative.")]
PlotOrderOption = Annotated[int, typer.Option(
    "--order", "-n", min=0, max=PLOT_MAX_ORDER, help="Draw f and its first N derivatives.")]

MemoryOption = Annotated[Optional[int], typer.Option(
    "--memory", metavar="MB", min=128, max=1 << 20,
    help="Memory budget of the run in MB (default: $TAPE_MEMORY, else 1024); points are "
         "evaluated in passes that fit, and work that cannot fit is refused (exit 2).")]

# ------------------------------------------------------------------ --check and its tolerances

CheckOption = Annotated[bool, typer.Option(
    "--check", help="Cross-check every number: SymPy for expressions, finite differences "
                    "for scripts; exit 1 on disagreement.")]
RtolOption = Annotated[float, typer.Option(
    "--rtol", min=0.0, help="Relative tolerance of --check.")]
AtolOption = Annotated[float, typer.Option(
    "--atol", min=0.0, help="Absolute tolerance of --check.")]
TimeoutOption = Annotated[float, typer.Option(
    "--timeout", min=0.0, max=MAX_TIMEOUT, help="Seconds the symbolic work may take (then exit 3).")]


# ------------------------------------------------------------------ one command's own options
LatexOption = Annotated[bool, typer.Option(
    "--latex", help="LaTeX instead of text (in every format).")]


class Notation(str, Enum):
    """How formulas are written (``--notation``): ``expr.printer.NOTATIONS``."""

    math = "math"
    python = "python"
    latex = "latex"


NotationOption = Annotated[Optional[Notation], typer.Option(
    "--notation", case_sensitive=False,
    help="How formulas are written: math (x^2 cos(x), ln, e^x, √x), python "
         "(x**2*cos(x)) or latex. Default: math on a terminal, python when piped.")]
NumericOption = Annotated[bool, typer.Option(
    "--numeric", help="Floats from the engine, even where the input is exact (by default an "
                      "exact expression at an exact point gives exact numbers: y = 2x - 1).")]
AnswerOption = Annotated[str, typer.Option(
    "--answer", metavar="ANSWER",
    help="The proposed derivative, same syntax (^, 2x, ln), e.g. '2sin(x)*cos(x)'.")]
VarOption = Annotated[Optional[str], typer.Option(
    "--wrt", "-w", metavar="VAR",
    help="The variable to differentiate by (needed when EXPR has several).")]
StepsOption = Annotated[bool, typer.Option(
    "--steps", help="Show the derivation rule by rule, every step checked by the engine "
                    "(e.g. tape diff 'x^2 sin x' --steps).")]
TangencyOption = Annotated[str, typer.Option(
    "--at", "-a", metavar="POINT",
    help="The point of tangency: 1.5, x=1,y=2 or 1,2 (variables in alphabetical order).")]
ExpansionPointOption = Annotated[str, typer.Option(
    "--at", "-a", metavar="POINT", help="The point a to expand about: 0, 1.5 or x=pi/4.")]
CheckWrtOption = Annotated[Optional[str], typer.Option(
    "--wrt", "-w", metavar="VAR[,VAR...]",
    help="The variable to differentiate by (needed when EXPR has several); "
         "x,y is the mixed partial d/dx then d/dy.")]
ImplicitOption = Annotated[bool, typer.Option(
    "--implicit",
    help="EXPR is an equation F(x,y) = G(x,y) (a curve): the derivative is dy/dx along it.")]
DependentOption = Annotated[str, typer.Option(
    "--dependent", metavar="NAME", help="With --implicit: the dependent variable.")]
AntiderivativeOption = Annotated[bool, typer.Option(
    "--antiderivative",
    help="ANSWER is an antiderivative of EXPR, up to a constant (+ C): is its derivative "
         "EXPR?")]
ConstantOption = Annotated[Optional[str], typer.Option(
    "--constant", metavar="LETTER",
    help="With --antiderivative: the letter of the constant of integration, when not C or c.")]
DotOption = Annotated[Optional[str], typer.Option(
    "--dot", metavar="FILE",
    help="Also write the graph as Graphviz DOT to FILE ('-': print only the DOT).")]


RangeOption = Annotated[str, typer.Option(
    "--range", "-r", metavar="A:B", help="The x range, e.g. -5:5 or -pi:pi.")]
ImageOption = Annotated[Optional[str], typer.Option(
    "--out", "-o", metavar="FILE",
    help="Write an image instead: FILE.png, .svg or .pdf (needs the plot extra).")]
PlotTangentOption = Annotated[Optional[str], typer.Option(
    "--tangent", metavar="A", help="Also draw the tangent line at x = A (e.g. 1 or pi/4).")]
GridOption = Annotated[int, typer.Option(
    "--points", min=2, max=PLOT_MAX_POINTS, help="Number of grid points.")]
WidthOption = Annotated[Optional[int], typer.Option(
    "--width", min=20, max=20_000,
    help="Chart width: terminal columns, or image pixels with --out (800).")]
HeightOption = Annotated[Optional[int], typer.Option(
    "--height", min=8, max=20_000,
    help="Chart height: terminal rows, or image pixels with --out (500).")]

