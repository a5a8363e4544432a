"""Recording one evaluation of a target: the tape's ops, forward values and adjoints.

``record`` runs a target once, at one point, under a persistent ``GradientTape`` and turns what
the tape recorded (``GradientTape.recorded_operations()``) into a Wengert list: one ``Node`` per
tensor, in execution order. Variables come first; a constant gets its row just before the first
op that reads it; then every op's output(s). After the forward pass, one backward sweep
(``tape.gradient(output, every_node)``) gives each node's *adjoint*: the derivative of the output
with respect to that node. Constants are not watched, so they have no adjoint (None), and nodes
the output does not depend on have none either.

This module is pure data: rendering lives in ``commands/trace.py`` and ``graph.py``.
"""
from __future__ import annotations

import warnings
from dataclasses import dataclass, field

import numpy as np

from ..expr.errors import CLIError
from .targets import Target


@dataclass
class Node:
    """One tensor of the trace.

    ``kind`` is ``"variable"``, ``"constant"`` or ``"op"``; ``label`` is the variable name, the
    constant's value, or the op name (``"Unstack:1"`` for an op's second output); ``inputs``
    are node ids; ``adjoint`` is None when the output does not depend on the node (or it is a
    constant, which the tape does not watch).
    """

    id: int
    kind: str
    label: str
    inputs: list[int]
    value: np.ndarray
    adjoint: np.ndarray | None = None
    op: str | None = None
    attrs: dict = field(default_factory=dict)

    @property
    def shape(self) -> tuple:
        return tuple(self.value.shape)


@dataclass
class Trace:
    """A recorded evaluation: the nodes in order, which one is the output, and the point."""

    nodes: list[Node]
    output: int
    variables: list[str]
    at: dict
    notes: list[str] = field(default_factory=list)

    def gradient(self) -> dict:
        """Each variable's adjoint (``d output / d variable``), by name (None if unconnected)."""
        by_label = {n.label: n for n in self.nodes if n.kind == "variable"}
        return {name: by_label[name].adjoint for name in self.variables}


def inputs_for(target: Target, variables: list[str], point: dict) -> list:
    """Tensors for one point, in ``variables`` order.

    Scalars are 0-d. A vector is ``(k,)`` for scripts (the shape they are written for) and
    ``(1, k)`` for expressions, whose lowering indexes and reduces along the last axis of the
    batched layout (``lower.py``); displays drop that leading axis of length 1.
    """
    import tape

    tensors = []
    for name in variables:
        value = np.asarray(point[name], dtype=np.float64)
        if value.ndim == 1 and not target.is_script:
            value = value.reshape(1, -1)
        tensors.append(tape.constant(value))
    return tensors


def record(target: Target, variables: list[str], point: dict) -> Trace:
    """Run ``target`` once at ``point`` under a tape and return its ``Trace``."""
    import tape

    fn = _function(target, variables, point)
    xs = inputs_for(target, variables, point)
    with warnings.catch_warnings(record=True) as caught, np.errstate(all="ignore"):
        warnings.simplefilter("always")
        with tape.GradientTape(persistent=True) as t:
            t.watch(xs)
            y = fn(*xs)
        if not isinstance(y, tape.Tensor):
            y = tape.convert_to_tensor(y, dtype=tape.float64)
        if _value(y).dtype.kind not in "fc":
            raise CLIError(f"the target's result has dtype {_value(y).dtype}; "
                           f"it must be a floating-point number")
        nodes, tensors = _number(t.recorded_operations(), xs, variables)
        output = next((n for n, tensor in zip(nodes, tensors) if tensor is y), None)
        if output is None:  # the result was not recorded (it does not depend on anything)
            output = Node(len(nodes), "constant", _constant_label(y), [], _value(y))
            nodes.append(output)
            tensors.append(y)
        sources = [(n, tensor) for n, tensor in zip(nodes, tensors)
                   if n.kind != "constant" and _value(tensor).dtype.kind in "fc"]
        adjoints = t.gradient(y, [tensor for _, tensor in sources])
        for (node, _), adj in zip(sources, adjoints):
            node.adjoint = None if adj is None else _value(adj)
        if output.adjoint is None:
            output.adjoint = np.ones_like(output.value, dtype=np.float64)
    if not target.is_script:
        for node in nodes:
            node.value, node.adjoint = _unbatch(node.value), _unbatch(node.adjoint)
    notes = sorted({str(w.message) for w in caught})
    if output.value.ndim > 0 and output.value.size > 1:
        notes.append(f"the output has shape {output.value.shape}; adjoints are of the sum of "
                     f"its elements")
    return Trace(nodes, output.id, list(variables), dict(point), notes)


def _function(target: Target, variables: list[str], point: dict):
    """The callable to trace, shape-checked against the point."""
    if target.is_script:
        return target.batched(variables, {}, 1)
    from ..expr.lower import check_shapes, to_tape

    if len(target.trees) != 1:
        raise CLIError("tape trace takes one expression")
    sizes = {n: (len(point[n]) if isinstance(point[n], list) else None) for n in variables}
    check_shapes(target.trees[0], sizes, target.texts[0])
    return to_tape(target.trees[0], variables)


def _unbatch(value):
    """Undo the expression layout for one point: ``(1, k)`` -> ``(k,)``, ``(1, 1)`` -> ``()``.

    (A vector variable of length 1 then shows as a number, which it equals.)
    """
    if value is not None and value.ndim >= 1 and value.shape[0] == 1:
        value = value.reshape(value.shape[1:])
        return value.reshape(()) if value.shape == (1,) else value
    return value


def _value(t) -> np.ndarray:
    return np.asarray(t.numpy() if hasattr(t, "numpy") else t)


def _constant_label(t) -> str:
    v = _value(t)
    return repr(float(v)) if v.size == 1 and v.dtype.kind in "fc" else f"const{tuple(v.shape)}"


def _number(ops, xs, variables) -> tuple[list[Node], list]:
    """Number every tensor: variables, then constants and op outputs in execution order.

    Returns the nodes and, aligned with them, the tensors they stand for.
    """
    nodes: list[Node] = []
    tensors: list = []
    index: dict[int, Node] = {}  # id(tensor) -> node; the ops keep the tensors alive

    def add(tensor, kind, label, inputs, op=None, attrs=None):
        node = Node(len(nodes), kind, label, inputs, _value(tensor), op=op,
                    attrs=dict(attrs or {}))
        nodes.append(node)
        tensors.append(tensor)
        index[id(tensor)] = node

    for x, name in zip(xs, variables):
        add(x, "variable", name, [])
    for op in ops:
        ins = []
        for tensor in op.inputs:
            if id(tensor) not in index:
                add(tensor, "constant", _constant_label(tensor), [])
            ins.append(index[id(tensor)].id)
        many = len(op.outputs) > 1
        for k, out in enumerate(op.outputs):
            add(out, "op", f"{op.name}:{k}" if many else op.name, ins, op=op.name,
                attrs=op.attrs)
    return nodes, tensors
