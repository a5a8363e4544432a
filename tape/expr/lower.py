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

from . import parse as E
from .errors import ExprError
from .functions import CONSTANTS, FUNCTIONS
from .tree import postorder, run_postorder

#: a shape in the checker: None for a scalar, an int for a vector of that many components
Shape = Optional[int]


def _describe(shape: Shape) -> str:
    return "a scalar" if shape is None else f"a vector of length {shape}"


def check_shapes(tree: E.Expr, sizes: dict[str, Shape], text: str | None = None,
                 order: list | None = None) -> Shape:
    """Check that ``tree`` is well-shaped given each variable's size; return its own shape.

    ``sizes`` maps a variable name to None (scalar) or its vector length. Raises ``ExprError``
    pointing at the offending node (``text`` is the expression as typed, for the caret).
    ``order`` is the tree's ``postorder`` list when the caller has it.
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

    return run_postorder(postorder(tree) if order is None else order, visit)


def check_and_lower(tree: E.Expr, sizes: dict[str, Shape], variables: list[str],
                    text: str | None = None, order: list | None = None
                    ) -> tuple[Shape, Optional[Callable]]:
    """``check_shapes``, and in the same step, when ``tree`` is a scalar of scalar variables
    (``variables``, its free names in the order the function takes them; at least one),
    ``to_tape``: the shape and the lowered function (None in every other case). With a
    variable in it, the result has every point's shape already: the function serves any
    number of points."""
    shape = check_shapes(tree, sizes, text, order)
    if shape is not None or not variables or any(sizes[n] is not None for n in variables):
        return shape, None
    return shape, to_tape(tree, variables, None, order, reuse_literals=True)


def to_tape(tree: E.Expr, variables: list[str], count: int | None = None,
            order: list | None = None, reuse_literals: bool = False) -> Callable:
    """Build ``f(*tensors)`` evaluating ``tree`` on tape tensors given in ``variables`` order.

    Inputs and the result follow the batched layout above (``(N, k)``; the result of a
    scalar expression over no variables may be a 0-d tensor: broadcast it). With ``count``
    (only scalar variables, each ``(N,)``), the result is always ``(count,)``: an expression
    with a variable has that shape already, one without is broadcast. ``order`` is the
    tree's ``postorder`` list when the caller has it.

    Every literal is a new tensor at every call (what ``tape trace`` shows as its nodes),
    unless ``reuse_literals``: then a number beside a variable-dependent operand of
    + - * / ** stays a Python float (the operator converts it, cached), and the other literals
    (in functions, under unary minus, in constant sub-expressions) are built once, here.
    """
    import tape

    position = {name: i for i, name in enumerate(variables)}
    order = postorder(tree) if order is None else order
    steps: list = []        # [node, number of children, its literal value or None, fixed]
    stack: list = []        # (step, whether it depends on a variable) of each result so far
    bare = set()            # the literal steps that stay Python floats
    for node, n in order:
        kids = stack[len(stack) - n:] if n else []
        if n:
            del stack[len(stack) - n:]
        if isinstance(node, E.Binary):
            for (i, _), (_, other) in ((kids[0], kids[1]), (kids[1], kids[0])):
                if other and steps[i][2] is not None:
                    bare.add(i)
        value = (node.value if isinstance(node, E.Number) else
                 CONSTANTS[node.name][0] if isinstance(node, E.Constant) else None)
        stack.append((len(steps), isinstance(node, E.Variable) or any(v for _, v in kids)))
        steps.append([node, n, value, False])
    for i, step in enumerate(steps):
        if step[2] is not None and reuse_literals:
            step[3] = True
            if i not in bare:
                step[2] = tape.constant(np.float64(step[2]))
    broadcast = count is not None and not stack[0][1]

    def visit(node, kids, tensors):
        if isinstance(node, E.Variable):
            return tensors[position[node.name]]
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

    def run(*tensors):
        results: list = []
        for node, n, value, fixed in steps:    # children before their parent (postorder)
            if value is not None:
                results.append(value if fixed else tape.constant(np.float64(value)))
                continue
            kids = results[len(results) - n:] if n else []
            if n:
                del results[len(results) - n:]
            results.append(visit(node, kids, tensors))
        y = results[0]
        return tape.broadcast_to(y, (count,)) if broadcast else y

    return run
