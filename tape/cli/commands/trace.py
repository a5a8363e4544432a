"""``tape trace``: the recorded tape of one evaluation: ops, forward values and adjoints.

Formats (``--format``):

* ``table`` (a terminal): one row per node with id, op, inputs, value and adjoint.
* ``plain`` (piped): one line per node, six fields separated by single spaces:
  ``id kind label inputs value adjoint``. ``kind`` is ``variable``, ``constant``, ``op``, or
  ``output`` for the node whose value is the result; ``label`` is the variable name, the
  constant's value or the op name; ``inputs`` are comma-separated ids (``-`` for none); values
  and adjoints are full-precision numbers, arrays as ``[1.0,2.0]`` lists with no spaces;
  the adjoint is ``-`` when the result does not depend on the node or it is a constant.
* ``json``: ``{"expression", "variables", "at", "value", "gradient", "output", "nodes": [...]}``.
* ``csv``: a header row, then the plain fields as columns.
"""
from __future__ import annotations

import sys
from typing import Annotated

import typer

from .. import options as O, output, points as P
from ...calculus.targets import make_target
from ..process import script_code
from ...calculus.tracing import Node, Trace, record
from ..values import exact, preview


def trace(
    target: Annotated[str, typer.Argument(
        help="An expression such as '2*x**3+4*x**2+5*x+6' or a script path.py[:function].")],
    at: O.OnePointOption = None,
    dot: O.DotOption = None,
    fmt: O.FormatOption = O.Format.auto,
    precision: O.PrecisionOption = 6,
) -> None:
    """Show the tape recorded for TARGET at one point: ops, values and adjoints.

    One row per node in execution order, with its inputs and forward value;
    after the backward sweep, each node's adjoint d(output)/d(node).
    Piped: one line per node, "id kind label inputs value adjoint".
    """
    fmt = output.resolve_format(fmt)
    if at and len(at) > 1:
        output.abort(f"tape trace takes one point, and --at was given {len(at)} times; "
                     f"trace each point in its own run")
    at = at[0] if at else None
    parsed = make_target([target], fence=script_code)
    variables = parsed.ordered([])
    if at is None:
        if variables:
            output.abort(f"the target has variables ({', '.join(variables)}): say where to "
                         f"evaluate with --at")
        point = {}
    else:
        if at.strip() == "-":
            output.abort("tape trace takes one point; give it with --at")
        point = P.parse_point(at, variables)
    result = TraceResult(record(parsed, variables, point), target, parsed,
                         f"trace of {target}" + (f" at {_point_text(point)}" if point else ""))
    if dot is not None:
        write_dot(result.trace, dot, result.title, precision)
        if dot == "-":
            return
    output.render(result, fmt, precision)


class TraceResult(output.Result):
    """The recorded tape, in every format (see the module docstring)."""

    def __init__(self, trace: Trace, source: str, target, title: str) -> None:
        self.trace = trace
        self.source = source
        self.target = target
        self.title = title

    def warnings(self) -> list[str]:
        return self.trace.notes + nonfinite(self.trace)

    def document(self) -> dict:
        return document(self.trace, self.source)

    def header(self) -> list[str]:
        return ["id", "kind", "label", "inputs", "value", "adjoint"]

    def rows(self):
        yield [plain_fields(self.trace, node) for node in self.trace.nodes]

    def lines(self):
        yield "".join(" ".join(plain_fields(self.trace, node)) + "\n"
                      for node in self.trace.nodes)

    def draw(self, out, precision: int) -> None:
        render_table(self.trace, self.title, precision, out)


def write_dot(result: Trace, path: str, title: str, precision: int) -> None:
    """Write the DOT graph to ``path`` (``-``: standard output)."""
    from ..graph import to_dot

    text = to_dot(result, title, precision)
    if path == "-":
        sys.stdout.write(text)
        return
    try:
        with open(path, "w", encoding="utf-8") as handle:
            handle.write(text)
    except BrokenPipeError:     # a pipe or /dev/stdout whose reader is gone: end quietly
        raise
    except OSError as exc:
        output.abort(f"--dot: cannot write {path!r}: {exc.strerror}")


def _point_text(point: dict) -> str:
    return ", ".join(f"{k} = {exact(v).replace(',', ', ')}" for k, v in point.items())


def kind(result: Trace, node: Node) -> str:
    """The node's kind, ``output`` for the result."""
    return "output" if node.id == result.output else node.kind


def plain_fields(result: Trace, node: Node) -> list[str]:
    """``id kind label inputs value adjoint`` as strings (see the module docstring)."""
    return [str(node.id), kind(result, node), node.label,
            ",".join(map(str, node.inputs)) or "-", exact(node.value),
            "-" if node.adjoint is None else exact(node.adjoint)]


def nonfinite(result: Trace) -> list[str]:
    """A warning naming the first node whose value or adjoint is inf or nan."""
    import numpy as np

    for node in result.nodes:
        for what, v in (("value", node.value), ("adjoint", node.adjoint)):
            if v is not None and v.dtype.kind in "fc" and not np.isfinite(v).all():
                return [f"non-finite {what} (inf or nan) first at node {node.id} ({node.label})"]
    return []


def document(result: Trace, source: str) -> dict:
    """The JSON document: the point, the result, the gradient and every node."""
    out = result.nodes[result.output]
    return {
        "expression": source,
        "variables": result.variables,
        "at": result.at,
        "value": out.value.tolist(),
        "gradient": {k: (None if v is None else v.tolist())
                     for k, v in result.gradient().items()},
        "output": result.output,
        "nodes": [{"id": n.id, "kind": n.kind, "label": n.label, "op": n.op,
                   "inputs": n.inputs, "shape": list(n.shape), "value": n.value.tolist(),
                   "adjoint": None if n.adjoint is None else n.adjoint.tolist(),
                   "attrs": {k: repr(v) for k, v in n.attrs.items()}}
                  for n in result.nodes],
    }


def render_table(result: Trace, title: str, precision: int, out) -> None:
    """A rich table, one row per node; the output row in bold."""
    from rich.console import Console
    from rich.markup import escape
    from rich.table import Table

    table = Table(title=escape(title), title_justify="left")
    table.add_column("id", justify="right", style="dim")
    table.add_column("node")
    table.add_column("inputs", style="dim")
    table.add_column("value", justify="right", style="cyan")
    table.add_column("adjoint ∂f/∂node", justify="right", style="green")
    shown = result.nodes[:output.MAX_TABLE_ROWS]
    if result.output >= len(shown):
        shown = shown[:-1] + [result.nodes[result.output]]
    for node in shown:
        name = {"variable": f"[bold]{escape(node.label)}[/bold] (variable)",
                "constant": f"{escape(node.label)} (constant)"}.get(node.kind,
                                                                     escape(node.label))
        inputs = ", ".join(f"#{i}" for i in node.inputs)
        row = [f"#{node.id}", name, inputs, escape(preview(node.value, precision)),
               escape(preview(node.adjoint, precision))]
        if node.id > 0 and node is shown[-1] and shown[-2:-1] != [result.nodes[node.id - 1]]:
            table.add_row("⋮", "", "", "", "")  # rows were skipped before the output
        table.add_row(*row, style="bold" if node.id == result.output else None)
    grads = ", ".join(f"∂f/∂{k} = {preview(v, precision)}"
                      for k, v in result.gradient().items())
    caption = f"f = {preview(result.nodes[result.output].value, precision)}" + (
        f"; {grads}" if grads else "")
    if len(shown) < len(result.nodes):
        caption += (f"\n{len(result.nodes) - len(shown)} more nodes not shown "
                    f"(--format plain, csv or json prints all)")
    table.caption = escape(caption)
    output.print_table(Console(file=out), table)
