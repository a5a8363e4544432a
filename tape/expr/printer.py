"""Trees written back as text: the ``read as`` spelling every command shows (SymPy syntax).

Reading the text this writes gives the same tree again.
"""
from __future__ import annotations

from collections import deque

from .tree import Binary, Call, Constant, Index, Number, Relation, Unary, Variable, fold

_PRINTED = {"ceil": "ceiling", "max": "Max", "min": "Min"}
_SUPERSCRIPTS = str.maketrans("0123456789-", "⁰¹²³⁴⁵⁶⁷⁸⁹⁻")
_LEVEL = {"+": 1, "-": 1, "*": 2, "/": 2, "**": 4}


def read_as(tree) -> str:
    """The tree in SymPy syntax, bracketed exactly where the tree's shape needs it, so that
    reading the result gives the same tree: ``2*x*y``, ``sin(x)**2``, ``log(x, 2)``."""

    def number(value: float) -> str:
        if value != value:
            return "nan"
        if value == float("inf"):
            return "1e999"
        if value.is_integer() and abs(value) < 1e16:
            return str(int(value))
        return repr(value)

    def join(left: deque, middle: str, right: deque) -> deque:
        # pieces in deques, the longer one grown in place: a 100,000-term sum is linear
        if len(left) >= len(right):
            left.append(middle)
            left.extend(right)
            return left
        right.appendleft(middle)
        right.extendleft(reversed(left))
        return right

    def bracket(parts: deque) -> deque:
        parts.appendleft("(")
        parts.append(")")
        return parts

    def visit(node, kids):
        # each result: (pieces, level); atoms are 5, unary minus 3, ** 4, * / 2, + - 1
        if isinstance(node, Number):
            return deque([number(node.value)]), 5
        if isinstance(node, (Constant, Variable)):
            return deque([node.name]), 5
        if isinstance(node, Index):
            parts, level = kids[0]
            # a number before brackets reads as a product (``3[3]`` is 3*3): keep it bracketed
            atom = level == 5 and not isinstance(node.operand, Number)
            parts = parts if atom else bracket(parts)
            parts.append(f"[{node.index}]")
            return parts, 5
        if isinstance(node, Call):
            name = _PRINTED.get(node.name, node.name)
            parts = deque([name, "("])
            for k, (kid, _) in enumerate(kids):
                parts = join(parts, ", " if k else "", kid)
            parts.append(")")
            return parts, 5
        if isinstance(node, Unary):
            parts, level = kids[0]
            parts = parts if level >= 3 else bracket(parts)
            parts.appendleft(node.op)
            return parts, 3
        if isinstance(node, Binary):
            (left, ll), (right, rl) = kids
            level = _LEVEL[node.op]
            if node.op == "**":
                left = left if ll > 4 else bracket(left)
                right = right if rl >= 3 else bracket(right)
                return join(left, "**", right), 4
            left = left if ll >= level else bracket(left)
            right = right if rl > level else bracket(right)
            return join(left, f" {node.op} " if level == 1 else node.op, right), level
        if isinstance(node, Relation):
            # a lone name before = would read back as a label (y = ...): bracketed, it stays
            # the equation's left side
            left = bracket(kids[0][0]) if isinstance(node.left, Variable) else kids[0][0]
            return join(left, " = ", kids[1][0]), 0
        raise TypeError(f"unknown expression node {node!r}")

    return "".join(fold(tree, visit)[0])


def superscript(n: int) -> str:
    """An integer in superscript digits: ``12`` -> ``¹²``, ``-1`` -> ``⁻¹``."""
    return str(n).translate(_SUPERSCRIPTS)
