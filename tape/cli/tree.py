"""The expression tree shared by every walker (tape lowering, SymPy lowering, shape checks).

Frozen dataclasses; ``span`` is the (start, end) character range in the expression as typed,
for error carets, and does not take part in equality:

* ``Number(value)`` - a float literal;
* ``Constant(name)`` - ``pi`` or ``e`` (see ``functions.CONSTANTS``);
* ``Variable(name)`` - a free name;
* ``Unary(op, operand)`` - op ``"-"`` or ``"+"``;
* ``Binary(op, left, right)`` - op one of ``+ - * / **``;
* ``Call(name, args)`` - a function from ``functions.FUNCTIONS``;
* ``Index(operand, index)`` - ``x[0]`` on a vector (an int; negative counts from the end).

Walk trees with ``fold`` (iterative, so 100,000-term sums do not hit the recursion limit).
``expr.parse`` builds them from text.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Callable, Union


@dataclass(frozen=True)
class Number:
    value: float
    span: tuple[int, int] = field(default=(0, 0), compare=False, repr=False)


@dataclass(frozen=True)
class Constant:
    name: str
    span: tuple[int, int] = field(default=(0, 0), compare=False, repr=False)


@dataclass(frozen=True)
class Variable:
    name: str
    span: tuple[int, int] = field(default=(0, 0), compare=False, repr=False)


@dataclass(frozen=True)
class Unary:
    op: str
    operand: "Expr"
    span: tuple[int, int] = field(default=(0, 0), compare=False, repr=False)


@dataclass(frozen=True)
class Binary:
    op: str
    left: "Expr"
    right: "Expr"
    span: tuple[int, int] = field(default=(0, 0), compare=False, repr=False)


@dataclass(frozen=True)
class Call:
    name: str
    args: tuple
    span: tuple[int, int] = field(default=(0, 0), compare=False, repr=False)


@dataclass(frozen=True)
class Index:
    operand: "Expr"
    index: int
    span: tuple[int, int] = field(default=(0, 0), compare=False, repr=False)


Expr = Union[Number, Constant, Variable, Unary, Binary, Call, Index]


_NO_CHILDREN: tuple = ()
_CHILDREN = {
    Number: lambda n: _NO_CHILDREN,
    Constant: lambda n: _NO_CHILDREN,
    Variable: lambda n: _NO_CHILDREN,
    Unary: lambda n: (n.operand,),
    Binary: lambda n: (n.left, n.right),
    Call: lambda n: n.args,
    Index: lambda n: (n.operand,),
}


def children(node: Expr) -> tuple:
    """The sub-expressions of ``node``, left to right."""
    return _CHILDREN[type(node)](node)


def fold(tree: Expr, visit: Callable[[Expr, list], Any]) -> Any:
    """Post-order fold without recursion: ``visit(node, results_of_children)`` for every node.

    >>> tree = Binary("+", Variable("x"), Binary("*", Number(2.0), Variable("y")))
    >>> fold(tree, lambda node, kids: 1 + sum(kids))   # count the nodes
    5
    """
    results: list = []
    stack: list = [(tree, False)]
    push, pop, table = stack.append, stack.pop, _CHILDREN
    while stack:
        node, expanded = pop()
        kids = table[type(node)](node)
        if not kids:
            results.append(visit(node, []))
        elif expanded:
            n = len(kids)
            args = results[-n:]
            del results[-n:]
            results.append(visit(node, args))
        else:
            push((node, True))
            for kid in reversed(kids):
                push((kid, False))
    return results[0]


def free_variables(tree: Expr) -> list[str]:
    """The variable names in ``tree``, sorted alphabetically, each once."""
    names: set[str] = set()
    stack = [tree]
    while stack:
        node = stack.pop()
        if isinstance(node, Variable):
            names.add(node.name)
        stack.extend(children(node))
    return sorted(names)
