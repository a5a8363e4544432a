"""A read-only view of what a GradientTape recorded (used by ``tape trace``)."""
from __future__ import annotations

import types
from typing import NamedTuple


class RecordedOp(NamedTuple):
    """One recorded op application: its position, op name, input and output tensors, attributes."""

    index: int
    name: str
    inputs: tuple
    outputs: tuple
    attrs: types.MappingProxyType


def recorded_operations(nodes) -> list:
    """The ops ``tape`` recorded, in execution order (empty after a non-persistent tape was used)."""
    return [RecordedOp(i, node.op.name, tuple(node.inputs), tuple(node.outputs),
                       types.MappingProxyType(dict(node.attrs)))
            for i, node in enumerate(n for n in nodes if n is not None)]
