"""A trace as a Graphviz DOT graph: one node per tensor, edges from inputs to the ops using them.

Node shapes: variables are ellipses, constants plain text, ops boxes; the output has a double
border. Each label shows the op (or name), the forward value and the adjoint. Render with
``dot -Tsvg trace.dot -o trace.svg``.
"""
from __future__ import annotations

from ..calculus.tracing import Node, Trace
from .values import preview

_SHAPES = {"variable": "ellipse", "constant": "plaintext", "op": "box"}


def quote(text: str) -> str:
    """A DOT double-quoted string (backslashes and quotes escaped, newlines as ``\\n``)."""
    escaped = text.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n")
    return f'"{escaped}"'


def node_label(node: Node, precision: int = 6) -> str:
    """``Mul #4`` / ``value 0.25`` / ``adjoint 1`` (constants: just their value)."""
    if node.kind == "constant":
        return node.label
    lines = [f"{node.label}  #{node.id}", f"value {preview(node.value, precision)}"]
    if node.adjoint is not None:
        lines.append(f"adjoint {preview(node.adjoint, precision)}")
    return "\n".join(lines)


def to_dot(trace: Trace, title: str = "", precision: int = 6) -> str:
    """The DOT text of ``trace`` (a ``digraph``; node names ``n0``, ``n1``, ...)."""
    lines = ["digraph tape {",
             "  rankdir=BT;",
             '  node [fontname="Helvetica", fontsize=11];']
    if title:
        lines.append(f"  label={quote(title)};")
        lines.append("  labelloc=t;")
    for node in trace.nodes:
        attrs = [f"label={quote(node_label(node, precision))}",
                 f"shape={_SHAPES[node.kind]}"]
        if node.id == trace.output:
            attrs.append("peripheries=2")
        lines.append(f"  n{node.id} [{', '.join(attrs)}];")
    for node in trace.nodes:
        for position, source in enumerate(node.inputs):
            edge = f"  n{source} -> n{node.id}"
            if len(node.inputs) > 1:
                edge += f" [taillabel={quote(str(position))}, fontsize=8]"
            lines.append(edge + ";")
    lines.append("}")
    return "\n".join(lines) + "\n"
