"""The textbook differentiation rules, written once, over an abstract builder.

``differentiate(tree, x, builder)`` walks tape's expression tree and applies, at each node, one
rule of SPEC section 5: ``constant``, ``identity``, ``sum``, ``constant multiple``, ``product``,
``quotient``, ``power``, ``exponential``, ``general power`` (u^v with both sides varying, by
logarithmic differentiation), ``rewrite`` (``log(u, b)``, ``sigmoid``...: written in elementary
terms first), each function's own rule from the function table (``functions.Function.derivative``
and ``.rule``) and the ``chain`` rule around it. The arithmetic of every rule is here and only
here; a builder decides what the results are made of:

* ``treediff.TreeBuilder``: tape trees, numbers folded and like terms collected;
* ``steps.StepBuilder``: SymPy expressions, and a named ``Step`` recorded for every rule;
* ``diagnosis._Rules``: SymPy expressions, with a hook that puts a textbook mistake in place of
  one node's derivative.

A builder has the operations of ``functions.py``'s protocol (``number``, ``add``, ``sub``,
``mul``, ``div``, ``neg``, ``power`` (an int or an expression as exponent), ``call``, ``sign``)
and ``lift(node)``, the node's own value as a builder expression. Optional hooks, looked up
once: ``known(node)`` (a derivative already known, e.g. a mistake, or None), ``done(node, d)``,
``outer(name, u)`` (f'(u) for function ``name``, default: the table's template),
``no_rule(node)`` (a node no rule here covers: return its derivative or raise),
``record(rule, node, wrt, derivative, children, substitution, shown)`` (returns the
derivative to use upward and a record of the step; the records of a node's sub-derivations
are its ``children``), ``rewrites`` (False: a function the steps rewrite has no rule) and
``flatten`` (True: a chain of ``+``/``-`` is one sum and a chain of ``*`` one product, as a
textbook writes them; False: every binary node is its own rule application, so a hook can
name any node).

The walk is iterative (a stack of pending rule applications), so deep trees do not reach
Python's recursion limit.
"""
from __future__ import annotations

from typing import Any, Optional

from ..expr import tree as E
from ..expr.functions import FUNCTIONS

#: placeholder names for the inner part of a chain step, tried in order (the first one that is
#: not a variable of the expression is used)
PLACEHOLDERS = ("u", "v", "w", "t", "s", "z")


class NoRule(Exception):
    """A node no rule here differentiates (a function without a derivative template, an
    index, a function of several arguments)."""


class _Plan:
    """One rule application: ``rule`` at ``node``, needing the derivatives of ``subtrees``
    (children of ``node`` or trees made for the rule, such as ``v*log(u)``)."""

    __slots__ = ("rule", "node", "subtrees", "signs", "extra")

    def __init__(self, rule: str, node, subtrees=(), signs=None, extra=None):
        self.rule, self.node, self.subtrees = rule, node, list(subtrees)
        self.signs, self.extra = signs, extra


def rewritten(node: E.Call) -> Optional[E.Expr]:
    """Functions a textbook writes in elementary terms before differentiating them."""
    one, two = E.Number(1.0), E.Number(2.0)
    name, args = node.name, node.args
    if name == "log" and len(args) == 2:       # log_b(u) = ln(u)/ln(b), the change of base
        return E.Binary("/", E.Call("log", (args[0],)), E.Call("log", (args[1],)))
    if len(args) != 1:
        return None
    arg = args[0]
    if name == "sigmoid":
        return E.Binary("/", one, E.Binary("+", one, E.Call("exp", (E.Unary("-", arg),))))
    if name == "softplus":
        return E.Call("log", (E.Binary("+", one, E.Call("exp", (arg,))),))
    if name == "relu":
        return E.Binary("/", E.Binary("+", arg, E.Call("abs", (arg,))), two)
    return None


def signed_terms(node: E.Expr) -> list[tuple[int, E.Expr]]:
    """A chain of ``+``/``-`` as (sign, term) pairs, left to right."""
    out: list[tuple[int, E.Expr]] = []
    stack = [(1, node)]
    while stack:
        sign, n = stack.pop()
        if isinstance(n, E.Binary) and n.op in "+-":
            stack.append((sign if n.op == "+" else -sign, n.right))
            stack.append((sign, n.left))
        else:
            out.append((sign, n))
    return out


def factors(node: E.Expr) -> list[E.Expr]:
    """A chain of ``*`` as its factors, left to right."""
    out: list[E.Expr] = []
    stack = [node]
    while stack:
        n = stack.pop()
        if isinstance(n, E.Binary) and n.op == "*":
            stack.append(n.right)
            stack.append(n.left)
        else:
            out.append(n)
    return out


def product(items: list[E.Expr]) -> E.Expr:
    out = items[0]
    for f in items[1:]:
        out = E.Binary("*", out, f)
    return out


def placeholder(tree: E.Expr) -> str:
    taken = set(E.free_variables(tree))
    return next(n for n in PLACEHOLDERS if n not in taken)


def _with_placeholder(node: E.Expr, inner: E.Expr, name: str) -> E.Expr:
    """``node`` with its direct argument ``inner`` replaced by the variable ``name``."""
    new = E.Variable(name)
    if isinstance(node, E.Call):
        return E.Call(node.name, tuple(new if a is inner else a for a in node.args))
    return E.Binary(node.op, new if node.left is inner else node.left,
                    new if node.right is inner else node.right)


class _Depends:
    """Whether a subtree depends on ``x``, each node computed once (iteratively); the nodes
    are kept referenced so that their ids stay theirs."""

    def __init__(self, x: str):
        self.x = x
        self.seen: dict[int, tuple[Any, bool]] = {}

    def __call__(self, node) -> bool:
        hit = self.seen.get(id(node))
        if hit is not None:
            return hit[1]
        for n, _ in E.postorder(node):
            if id(n) in self.seen:
                continue
            if isinstance(n, E.Variable):
                value = n.name == self.x
            else:
                value = any(self.seen[id(k)][1] for k in E.children(n))
            self.seen[id(n)] = (n, value)
        return self.seen[id(node)][1]


def differentiate(tree: E.Expr, x: str, builder) -> Any:
    """The derivative of ``tree`` along ``x`` built by ``builder``; with a ``record`` hook,
    ``(derivative, record of the root step)``."""
    depends = _Depends(x)
    record = getattr(builder, "record", None)
    known = getattr(builder, "known", None)
    done = getattr(builder, "done", None)
    flatten = getattr(builder, "flatten", False)
    rewrites = getattr(builder, "rewrites", True)
    own_outer = getattr(builder, "outer", None)
    outer = own_outer or (lambda name, u: _table(builder, name, u))
    results: list = []          # (derivative, record) per finished subtree
    stack: list = [(tree, None)]
    while stack:
        node, plan = stack.pop()
        if plan is None:
            hit = known(node) if known else None
            if hit is not None:
                results.append((hit, None))
                continue
            plan = _plan(node, x, depends, flatten, rewrites, own_outer is not None)
            if plan.subtrees:
                stack.append((node, plan))
                stack.extend((s, None) for s in reversed(plan.subtrees))
                continue
        n = len(plan.subtrees)
        subs = results[len(results) - n:] if n else []
        if n:
            del results[len(results) - n:]
        d, rec = _apply(plan, subs, builder, x, outer, record)
        if done:
            done(node, d)
        results.append((d, rec))
    d, rec = results[0]
    return (d, rec) if record else d


def _table(builder, name: str, u):
    template = FUNCTIONS[name].derivative
    if template is None:
        raise NoRule(name)
    return template(builder, u)


def _plan(node, x: str, depends, flatten: bool, rewrites: bool, any_function: bool) -> _Plan:
    """Which rule differentiates ``node``, and the derivatives it needs."""
    if not depends(node):
        return _Plan("constant", node)
    if isinstance(node, E.Variable):
        return _Plan("identity", node)
    if isinstance(node, E.Unary):
        return _Plan("same" if node.op == "+" else "negation", node, [node.operand])
    if isinstance(node, E.Binary):
        op, u, v = node.op, node.left, node.right
        if op in "+-":
            pairs = signed_terms(node) if flatten else [(1, u), (1 if op == "+" else -1, v)]
            return _Plan("sum", node, [t for _, t in pairs], [s for s, _ in pairs])
        if op == "*":
            items = factors(node) if flatten else [u, v]
            constant = [f for f in items if not depends(f)]
            if constant:
                varying = [f for f in items if depends(f)]
                return _Plan("constant multiple", node, [product(varying)],
                             extra=[(f, depends(f)) for f in items])
            return _Plan("product", node, items)
        if op == "/":
            if not depends(v):
                return _Plan("constant quotient", node, [u], extra=v)
            return _Plan("quotient", node, [u, v])
        if not depends(v):
            return _chain("power", node, u, x)
        if not depends(u):
            return _chain("exponential", node, v, x)
        return _Plan("general power", node, [E.Binary("*", v, E.Call("log", (u,)))])
    if isinstance(node, E.Call):
        function = FUNCTIONS[node.name]
        if function.kind == "elementwise":
            again = rewritten(node) if rewrites else None
            if again is not None:
                return _Plan("rewrite", node, [again], extra=again)
            # a builder with its own ``outer`` decides about functions without a template
            if len(node.args) == 1 and (function.derivative is not None or any_function):
                return _chain("function", node, node.args[0], x)
    return _Plan("no rule", node)


def _chain(rule: str, node, inner, x: str) -> _Plan:
    """``rule`` at ``node`` = outer(inner): the rule alone when ``inner`` is ``x`` itself,
    else the chain rule around it (the derivative of ``inner`` needed)."""
    if isinstance(inner, E.Variable) and inner.name == x:
        return _Plan(rule, node, extra=inner)
    return _Plan("chain", node, [inner], extra=(rule, inner))


def _outer_rule(rule: str, node, u, builder, outer):
    """(rule name, d/du of ``node`` as a function of its part ``u``) for the outer part of a
    chain, ``u`` a builder expression."""
    if rule == "power":
        k = builder.lift(node.right)
        return "power", builder.mul(k, builder.power(u, builder.sub(k, 1)))
    if rule == "exponential":
        base = builder.lift(node.left)
        return "exponential", builder.mul(builder.power(base, u), builder.call("log", base))
    return FUNCTIONS[node.name].rule, outer(node.name, u)


def _apply(plan: _Plan, subs: list, builder, x: str, outer, record):
    """The rule's derivative from its sub-derivatives, and its record."""
    b, rule, node = builder, plan.rule, plan.node
    ds = [d for d, _ in subs]
    children = [r for _, r in subs]
    substitution = shown = None
    if rule == "constant":
        d = b.number(0)
    elif rule == "identity":
        d = b.number(1)
    elif rule == "same":
        return subs[0]
    elif rule == "negation":
        rule, d = "constant multiple", b.neg(ds[0])
    elif rule == "sum":
        d = None
        for sign, term in zip(plan.signs, ds):
            d = (term if sign > 0 else b.neg(term)) if d is None else (
                b.add(d, term) if sign > 0 else b.sub(d, term))
    elif rule == "constant multiple":
        # the constant factors where they stand, the derivative of the varying ones in place
        # of the first of them
        d, placed = None, False
        for f, varies in plan.extra:
            if varies and placed:
                continue
            factor = ds[0] if varies else b.lift(f)
            placed = placed or varies
            d = factor if d is None else b.mul(d, factor)
    elif rule == "constant quotient":
        rule, d = "constant multiple", b.div(ds[0], b.lift(plan.extra))
    elif rule == "product":
        values = [b.lift(f) for f in plan.subtrees]
        d = None
        for i, di in enumerate(ds):
            term = None
            for j, v in enumerate(values):
                f = di if i == j else v
                term = f if term is None else b.mul(term, f)
            d = term if d is None else b.add(d, term)
    elif rule == "quotient":
        u, v = b.lift(node.left), b.lift(node.right)
        d = b.div(b.sub(b.mul(ds[0], v), b.mul(u, ds[1])), b.power(v, 2))
    elif rule == "general power":
        # ln y = v ln u, so y' = u^v (v ln u)'
        d = b.mul(b.lift(node), ds[0])
    elif rule == "rewrite":
        shown = b.lift(plan.extra)
        d = ds[0]
    elif rule in ("power", "exponential", "function"):
        # the rule applied to x itself: outer'(x)
        rule, d = _outer_rule(rule, node, b.lift(plan.extra), b, outer)
    elif rule == "chain":
        kind, inner = plan.extra
        name, d_outer = _outer_rule(kind, node, b.lift(inner), b, outer)
        d = b.mul(d_outer, ds[0])
        if record:
            u = placeholder(node)
            outer_tree = _with_placeholder(node, inner, u)
            name, at_u = _outer_rule(kind, outer_tree, b.lift(E.Variable(u)), b, outer)
            _, step = record(name, outer_tree, u, at_u, [], None, None)
            children = [step] + children
            substitution = {u: inner}
    else:
        no_rule = getattr(b, "no_rule", None)
        if no_rule is None:
            raise NoRule(getattr(node, "name", type(node).__name__))
        d = no_rule(node)
    if record:
        return record(rule, node, x, d, children, substitution, shown)
    return d, None
