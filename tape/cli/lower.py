"""Lowering expression trees: a shape check, and the tree -> tape callable walker.

Batched layout: an expression is evaluated once for all points. Every value has shape
``(N, k)``: ``N`` points along the first axis, ``k`` components along the last, with ``k = 1``
for scalars. Keeping the trailing axis for scalars lets scalars and vectors broadcast against
each other, and vector functions in ``functions.FUNCTIONS`` reduce over ``axis=-1``
(``keepdims=True``) so their results are scalars of shape ``(N, 1)`` again. When no variable
is a vector, nothing needs the trailing axis and every value is ``(N,)``
(``targets.Target.batched``); the walker is the same.

The SymPy lowering lives in ``symbolic.py`` (the symbolic issue) and is the same kind of walker:
``expr.fold(tree, visit)`` where ``visit`` maps ``Number``/``Constant``/``Variable``/``Unary``/
``Binary``/``Call``/``Index`` nodes to SymPy, using ``Function.sympy`` from the table and
``functions.CONSTANTS`` for ``pi``/``e``; a vector variable becomes a list of symbols.
"""
from __future__ import annotations

from typing import Callable, Optional

import numpy as np

from . import expr as E
from .errors import ExprError
from .functions import CONSTANTS, FUNCTIONS
from .tree import postorder, run_postorder

#: a shape in the checker: None for a scalar, an int for a vector of that many components
Shape = Optional[int]


def _describe(shape: Shape) -> str:
    return "a scalar" if shape is None else f"a vector of length {shape}"


def check_shapes(tree: E.Expr, sizes: dict[str, Shape], text: str | None = None) -> Shape:
    """Check that ``tree`` is well-shaped given each variable's size; return its own shape.

    ``sizes`` maps a variable name to None (scalar) or its vector length. Raises ``ExprError``
    pointing at the offending node (``text`` is the expression as typed, for the caret).
    """

    def fail(node, message):
        return ExprError(message, text, node.span[0], node.span[1])

    def merge(node, shapes):
        vectors = {s for s in shapes if s is not None}
        if len(vectors) > 1:
            raise fail(node, "shapes do not match: "
                             + " and ".join(_describe(s) for s in shapes))
        return vectors.pop() if vectors else None

    def visit(node, kids):
        if isinstance(node, E.Variable):
            return sizes[node.name]
        if isinstance(node, (E.Number, E.Constant)):
            return None
        if isinstance(node, E.Unary):
            return kids[0]
        if isinstance(node, E.Binary):
            return merge(node, kids)
        if isinstance(node, E.Index):
            if kids[0] is None:
                raise fail(node, "only vectors can be indexed; this is a scalar")
            if not -kids[0] <= node.index < kids[0]:
                raise fail(node, f"index {node.index} is out of range for a vector of "
                                 f"length {kids[0]}")
            return None
        if isinstance(node, E.Call):
            kind = FUNCTIONS[node.name].kind
            if kind == "elementwise":
                return merge(node, kids)
            if any(k is None for k in kids):
                raise fail(node, f"{node.name} needs vector arguments (variables given as "
                                 f"x=[1,2,3]); got {' and '.join(map(_describe, kids))}")
            if kind == "dot":
                merge(node, kids)
            return None
        raise TypeError(f"unknown expression node {node!r}")

    return E.fold(tree, visit)


def to_tape(tree: E.Expr, variables: list[str]) -> Callable:
    """Build ``f(*tensors)`` evaluating ``tree`` on tape tensors given in ``variables`` order.

    Inputs and the result follow the batched layout above (``(N, k)``; the result of a
    scalar expression over no variables may be a 0-d tensor: broadcast it).
    """
    import tape

    position = {name: i for i, name in enumerate(variables)}
    order = postorder(tree)     # walked once here, run at every call

    def constant(value):
        return tape.constant(np.float64(value))

    def run(*tensors):
        def visit(node, kids):
            if isinstance(node, E.Variable):
                return tensors[position[node.name]]
            if isinstance(node, E.Number):
                return constant(node.value)
            if isinstance(node, E.Constant):
                return constant(CONSTANTS[node.name][0])
            if isinstance(node, E.Unary):
                return -kids[0] if node.op == "-" else kids[0]
            if isinstance(node, E.Binary):
                a, b = kids
                if node.op == "+":
                    return a + b
                if node.op == "-":
                    return a - b
                if node.op == "*":
                    return a * b
                if node.op == "/":
                    return a / b
                return a ** b
            if isinstance(node, E.Index):
                i = node.index
                return kids[0][:, i:i + 1] if i != -1 else kids[0][:, -1:]
            if isinstance(node, E.Call):
                return FUNCTIONS[node.name].tape(*kids)
            raise TypeError(f"unknown expression node {node!r}")

        return run_postorder(order, visit)

    return run
