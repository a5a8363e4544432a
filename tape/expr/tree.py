"""The expression tree shared by every walker (tape lowering, SymPy lowering, shape checks).

Frozen value classes that behave as frozen dataclasses (``record.Frozen``); ``span`` is the
(start, end) character range in the expression as typed, for error carets, and does not take
part in equality:

* ``Number(value)`` - a float literal;
* ``Constant(name)`` - ``pi`` or ``e`` (see ``functions.CONSTANTS``);
* ``Variable(name)`` - a free name;
* ``Unary(op, operand)`` - op ``"-"`` or ``"+"``;
* ``Binary(op, left, right)`` - op one of ``+ - * / **``;
* ``Call(name, args)`` - a function from ``functions.FUNCTIONS``;
* ``Index(operand, index)`` - ``x[0]`` on a vector (an int; negative counts from the end);
* ``Relation(left, right)`` - an equation ``left = right`` read as an implicit relation
  (``x^2 + y^2 = 1``); only ``expr.read(..., relation=True)`` returns one, at the root.

Walk trees with ``fold`` (iterative, so 100,000-term sums do not hit the recursion limit).
``expr.parse`` builds them from text.
"""
from __future__ import annotations

from typing import Any, Callable, Union

from .record import Frozen

_set = object.__setattr__


class _Node(Frozen):
    """What ``@dataclass(frozen=True)`` with a non-comparing, unshown ``span`` field would
    generate (see ``record.py``): ``_fields`` are the compared, shown fields; ``span`` comes
    last in ``__init__``."""

    __slots__ = ("__dict__",)


class Number(_Node):
    _fields = ("value",)
    __match_args__ = ("value", "span")

    def __init__(self, value: float, span: tuple[int, int] = (0, 0)) -> None:
        _set(self, "value", value)
        _set(self, "span", span)


class Constant(_Node):
    _fields = ("name",)
    __match_args__ = ("name", "span")

    def __init__(self, name: str, span: tuple[int, int] = (0, 0)) -> None:
        _set(self, "name", name)
        _set(self, "span", span)


class Variable(_Node):
    _fields = ("name",)
    __match_args__ = ("name", "span")

    def __init__(self, name: str, span: tuple[int, int] = (0, 0)) -> None:
        _set(self, "name", name)
        _set(self, "span", span)


class Unary(_Node):
    _fields = ("op", "operand")
    __match_args__ = ("op", "operand", "span")

    def __init__(self, op: str, operand: "Expr", span: tuple[int, int] = (0, 0)) -> None:
        _set(self, "op", op)
        _set(self, "operand", operand)
        _set(self, "span", span)


class Binary(_Node):
    _fields = ("op", "left", "right")
    __match_args__ = ("op", "left", "right", "span")

    def __init__(self, op: str, left: "Expr", right: "Expr",
                 span: tuple[int, int] = (0, 0)) -> None:
        _set(self, "op", op)
        _set(self, "left", left)
        _set(self, "right", right)
        _set(self, "span", span)


class Call(_Node):
    _fields = ("name", "args")
    __match_args__ = ("name", "args", "span")

    def __init__(self, name: str, args: tuple, span: tuple[int, int] = (0, 0)) -> None:
        _set(self, "name", name)
        _set(self, "args", args)
        _set(self, "span", span)


class Index(_Node):
    _fields = ("operand", "index")
    __match_args__ = ("operand", "index", "span")

    def __init__(self, operand: "Expr", index: int, span: tuple[int, int] = (0, 0)) -> None:
        _set(self, "operand", operand)
        _set(self, "index", index)
        _set(self, "span", span)


class Relation(_Node):
    _fields = ("left", "right")
    __match_args__ = ("left", "right", "span")

    def __init__(self, left: "Expr", right: "Expr", span: tuple[int, int] = (0, 0)) -> None:
        _set(self, "left", left)
        _set(self, "right", right)
        _set(self, "span", span)


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
    Relation: lambda n: (n.left, n.right),
}


def children(node: Expr) -> tuple:
    """The sub-expressions of ``node``, left to right."""
    return _CHILDREN[type(node)](node)


def postorder(tree: Expr) -> list[tuple[Expr, int]]:
    """Every node with its number of children, children before their parent, left to right
    (iterative, so 100,000-term sums do not hit the recursion limit). A walker that runs a
    tree more than once (``lower.to_tape``) takes this list once and loops over it itself.

    >>> [(type(n).__name__, k) for n, k in postorder(Binary("*", Number(2.0), Variable("y")))]
    [('Number', 0), ('Variable', 0), ('Binary', 2)]
    """
    order: list = []
    stack: list = [(tree, False)]
    push, pop, table = stack.append, stack.pop, _CHILDREN
    while stack:
        node, expanded = pop()
        kids = table[type(node)](node)
        if not kids or expanded:
            order.append((node, len(kids)))
        else:
            push((node, True))
            for kid in reversed(kids):
                push((kid, False))
    return order


def fold(tree: Expr, visit: Callable[[Expr, list], Any]) -> Any:
    """Post-order fold without recursion: ``visit(node, results_of_children)`` for every node.

    >>> tree = Binary("+", Variable("x"), Binary("*", Number(2.0), Variable("y")))
    >>> fold(tree, lambda node, kids: 1 + sum(kids))   # count the nodes
    5
    """
    return run_postorder(postorder(tree), visit)


def run_postorder(order: list[tuple[Expr, int]], visit: Callable[[Expr, list], Any]) -> Any:
    """``fold`` over a ``postorder`` list: each node's ``visit`` gets its children's results."""
    results: list = []
    for node, n in order:
        if n:
            args = results[-n:]
            del results[-n:]
        else:
            args = []
        results.append(visit(node, args))
    return results[0]


def build(items: list[tuple]) -> tuple[Expr, list[tuple[Expr, int]], set[str]]:
    """The tree described by ``items``, each ``(class, value, span, number of children)``
    in postorder (``value``: the op, name, number or index; children come from the items
    before), with its ``postorder`` list and its free variable names, in one pass.

    >>> tree, order, names = build([(Number, 2.0, (0, 1), 0), (Variable, "y", (2, 3), 0),
    ...                             (Binary, "*", (0, 3), 2)])
    >>> tree == Binary("*", Number(2.0), Variable("y")), [k for _, k in order], names
    (True, [0, 0, 2], {'y'})
    """
    results: list = []
    order: list = []
    names: set[str] = set()
    for cls, value, span, n in items:
        kids = results[len(results) - n:] if n else []
        if n:
            del results[len(results) - n:]
        if cls is Binary:
            node = Binary(value, kids[0], kids[1], span)
        elif cls is Unary:
            node = Unary(value, kids[0], span)
        elif cls is Call:
            node = Call(value, tuple(kids), span)
        elif cls is Index:
            node = Index(kids[0], value, span)
        else:                       # Number, Constant, Variable: no children
            node = cls(value, span)
            if cls is Variable:
                names.add(value)
        results.append(node)
        order.append((node, n))
    return results[0], order, names


def rebuild(node: Expr, kids: list) -> Expr:
    """``node`` with its children replaced by ``kids`` (a ``fold`` visitor's building block)."""
    if isinstance(node, Unary):
        return Unary(node.op, kids[0], node.span)
    if isinstance(node, Binary):
        return Binary(node.op, kids[0], kids[1], node.span)
    if isinstance(node, Call):
        return Call(node.name, tuple(kids), node.span)
    if isinstance(node, Index):
        return Index(kids[0], node.index, node.span)
    if isinstance(node, Relation):
        return Relation(kids[0], kids[1], node.span)
    return node


def renamed(tree: Expr, names: dict[str, str]) -> Expr:
    """``tree`` with each variable named in ``names`` renamed to its value there."""
    def visit(node, kids):
        if isinstance(node, Variable) and node.name in names:
            return Variable(names[node.name], node.span)
        return rebuild(node, kids)

    return fold(tree, visit)


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
