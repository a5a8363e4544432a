"""Derivatives of expression trees without SymPy, for showing the right derivative quickly.

``tape check`` decides by the numbers and then prints the derivative asked for; loading SymPy
only to write that line would take most of the command's time. ``derivative`` differentiates
tape's own tree by the textbook rules (``rules.py``: sum, product, quotient, power, chain, and
the function table's rule for each elementary function) and builds the result through
constructors that fold numbers and drop
zeros and ones, so the text reads like a hand-written answer (``3*cos(3*x)``); ``expr.read_as``
prints it in SymPy syntax. Each function's derivative is its template in the function table
(``functions.Function.derivative``), built here by ``TreeBuilder``; functions without one
(the piecewise ones, ``erf``...) give ``None``: the caller goes to SymPy instead. The caller
also checks the result against the engine's derivative before showing it.
"""
from __future__ import annotations

from fractions import Fraction
from typing import Optional

from ..expr import tree as E
from .rules import NoRule, differentiate

ZERO, ONE = E.Number(0.0), E.Number(1.0)
#: larger trees, given or derived, are left to SymPy: collecting like terms here compares
#: every term with every other (quadratic), and each differentiation can multiply the size
MAX_NODES = 300


def derivative(tree: E.Expr, along: list[str]) -> Optional[E.Expr]:
    """The derivative of ``tree`` along each name of ``along`` in turn, or None when some
    function has no rule here."""
    if _size(tree) > MAX_NODES:     # before any work (the exp form is no larger)
        return None
    try:
        tree = E.fold(tree, _exp_form)
        for k, name in enumerate(along):
            if k and _size(tree) > MAX_NODES:
                return None
            tree = differentiate(tree, name, _BUILDER)
    except NoRule:
        return None
    return tree if _size(tree) <= 4 * MAX_NODES else None


def _size(tree: E.Expr) -> int:
    return E.fold(tree, lambda node, kids: 1 + sum(kids))


def _exp_form(node: E.Expr, kids: list) -> E.Expr:
    """``node`` rebuilt from ``kids``, with e**v written exp(v)."""
    if isinstance(node, E.Binary):
        if node.op == "**" and isinstance(kids[0], E.Constant) and kids[0].name == "e":
            return call("exp", kids[1])
        return E.Binary(node.op, *kids)
    if isinstance(node, E.Unary):
        return E.Unary(node.op, kids[0])
    if isinstance(node, E.Call):
        return E.Call(node.name, tuple(kids))
    if isinstance(node, (E.Index, E.Relation)):
        raise NoRule(type(node).__name__)
    return node


# --------------------------------------------------------------------------- constructors
#
# A product is kept as a coefficient and a list of (base, exponent) pairs, exponents exact
# fractions (negative ones in the denominator); a sum as a list of such products. Equal bases
# and like terms combine, so x/x is 1 and (x + 1) - x is 1.

def exact_value(node: E.Expr) -> Optional[Fraction]:
    """The exact value of a tree made of numbers only (decimals as typed), else None."""
    if isinstance(node, E.Number):
        v = node.value
        if v != v or abs(v) == float("inf"):
            return None
        return Fraction(int(v)) if v.is_integer() else Fraction(repr(v))
    if isinstance(node, E.Unary):
        inner = exact_value(node.operand)
        return None if inner is None else (-inner if node.op == "-" else inner)
    if isinstance(node, E.Binary) and node.op in "+-*/":
        a, b = exact_value(node.left), exact_value(node.right)
        if a is None or b is None or (node.op == "/" and b == 0):
            return None
        return {"+": a + b, "-": a - b, "*": a * b}.get(node.op) if node.op != "/" else a / b
    return None


def number(q: Fraction) -> E.Expr:
    if q < 0:
        return E.Unary("-", number(-q))
    if q.denominator == 1:
        return E.Number(float(q.numerator))
    return E.Binary("/", E.Number(float(q.numerator)), E.Number(float(q.denominator)))


def _merge(powers: list, more: list, sign: int = 1) -> list:
    out = list(powers)
    for base, k in more:
        for i, (b, j) in enumerate(out):
            if b == base:
                out[i] = (b, j + sign * k)
                break
        else:
            out.append((base, sign * k))
    return [(b, k) for b, k in out if k != 0]


def _split(node: E.Expr) -> tuple[Fraction, list]:
    """``node`` as coefficient * product of base**exponent."""
    value = exact_value(node)
    if value is not None:
        return value, []
    if isinstance(node, E.Unary):
        c, ps = _split(node.operand)
        return (-c if node.op == "-" else c), ps
    if isinstance(node, E.Binary) and node.op in "*/":
        c1, p1 = _split(node.left)
        c2, p2 = _split(node.right)
        if node.op == "*":
            return c1 * c2, _merge(p1, p2)
        if c2 != 0:
            return c1 / c2, _merge(p1, p2, -1)
    if isinstance(node, E.Binary) and node.op == "**":
        k = exact_value(node.right)
        if k is not None:
            return Fraction(1), [(node.left, k)]
    if isinstance(node, E.Call) and node.name == "sqrt":
        return Fraction(1), [(node.args[0], Fraction(1, 2))]
    return Fraction(1), [(node, Fraction(1))]


def _factor(base: E.Expr, k: Fraction) -> E.Expr:
    if k == 1:
        return base
    if k == Fraction(1, 2):
        return call("sqrt", base)
    return E.Binary("**", base, number(k))


def _chain(items: list) -> Optional[E.Expr]:
    if not items:
        return None
    out = items[0]
    for item in items[1:]:
        out = E.Binary("*", out, item)
    return out


def _product(c: Fraction, powers: list) -> E.Expr:
    if c == 0:
        return ZERO
    magnitude = abs(c)
    # variables and their powers first, as in 2*x*cos(x)
    powers = sorted(powers, key=lambda p: not isinstance(p[0], E.Variable))
    top = [_factor(b, k) for b, k in powers if k > 0]
    bottom = [_factor(b, -k) for b, k in powers if k < 0]
    if magnitude.numerator != 1 or not top:
        top.insert(0, E.Number(float(magnitude.numerator)))
    if magnitude.denominator != 1:
        bottom.insert(0, E.Number(float(magnitude.denominator)))
    if c < 0:                                 # the sign on the first factor: -2*x, -sin(x)
        first = top[0]
        top[0] = E.Number(-first.value) if isinstance(first, E.Number) else \
            E.Unary("-", first)
    body = _chain(top)
    return E.Binary("/", body, _chain(bottom)) if bottom else body


def _terms(node: E.Expr) -> list:
    """``node`` as a list of products (``_split``) to add."""
    if isinstance(node, E.Binary) and node.op in "+-":
        right = _terms(node.right)
        if node.op == "-":
            right = [(-c, ps) for c, ps in right]
        return _terms(node.left) + right
    if isinstance(node, E.Unary) and node.op == "-" and isinstance(node.operand, E.Binary) \
            and node.operand.op in "+-":
        return [(-c, ps) for c, ps in _terms(node.operand)]
    return [_split(node)]


def _same(p: list, q: list) -> bool:
    return len(p) == len(q) and all(any(b == d and k == j for d, j in q) for b, k in p)


def _sum(terms: list) -> E.Expr:
    combined: list = []
    for c, ps in terms:
        for i, (d, qs) in enumerate(combined):
            if _same(ps, qs):
                combined[i] = (c + d, qs)
                break
        else:
            combined.append((c, ps))
    combined = [(c, ps) for c, ps in combined if c != 0]
    if not combined:
        return ZERO
    out = _product(*combined[0])
    for c, ps in combined[1:]:
        out = E.Binary("-" if c < 0 else "+", out, _product(abs(c), ps))
    return out


def mul(a: E.Expr, b: E.Expr) -> E.Expr:
    ca, pa = _split(a)
    cb, pb = _split(b)
    return _product(ca * cb, _merge(pa, pb))


def neg(a: E.Expr) -> E.Expr:
    return _sum([(-c, ps) for c, ps in _terms(a)])


def add(a: E.Expr, b: E.Expr) -> E.Expr:
    return _sum(_terms(a) + _terms(b))


def sub(a: E.Expr, b: E.Expr) -> E.Expr:
    return _sum(_terms(a) + [(-c, ps) for c, ps in _terms(b)])


def div(a: E.Expr, b: E.Expr) -> E.Expr:
    cb, pb = _split(b)
    if cb == 0:
        return E.Binary("/", a, b)
    terms = _terms(a)
    if len(terms) == 1:
        c, ps = terms[0]
        return _product(c / cb, _merge(ps, pb, -1))
    return _product(1 / cb, _merge([(_sum(terms), Fraction(1))], pb, -1))


#: a number power folded into one number has at most this many bits ((2x)^(10^10) keeps its
#: power: 2^(10^10) written out is a billion digits)
FOLDED_BITS = 256


def _bits(q: Fraction) -> int:
    return q.numerator.bit_length() + q.denominator.bit_length()


def power(base: E.Expr, exponent: E.Expr) -> E.Expr:
    v = exact_value(exponent)
    if v == 1:
        return base
    if v == 0:
        return ONE
    if v is not None and v.denominator == 1:
        # an integer power of a product is the product of the powers: (2*x)**2 = 4*x**2
        c, ps = _split(base)
        if abs(c) == 1 or _bits(c) * abs(v) <= FOLDED_BITS:
            return _product(c ** int(v), [(b, k * v) for b, k in ps])
        return E.Binary("**", base, exponent)
    if v is not None:
        return _product(Fraction(1), [(base, v)])
    if isinstance(base, E.Constant) and base.name == "e":
        return call("exp", exponent)
    return E.Binary("**", base, exponent)


def call(name: str, *args: E.Expr) -> E.Expr:
    if name in ("log", "ln") and args == (E.Constant("e"),):     # ln e, as in (e^u)' = e^u ln e
        return ONE
    return E.Call(name, tuple(args))


def _with_numbers(constructor):
    """``constructor`` of two trees, taking an int for a number too (the templates' ``1``)."""
    def build(self, a, b):
        return constructor(*(number(Fraction(t)) if isinstance(t, int) else t for t in (a, b)))

    return build


class TreeBuilder:
    """The builder ``rules.differentiate`` and the function table's derivative templates
    (``functions.Function``) write tape trees with: the constructors above. The functions the
    steps rewrite first (``sigmoid``, ``log(u, b)``...) are left to SymPy here."""

    add, sub, mul, div = map(_with_numbers, (add, sub, mul, div))
    rewrites = False

    @staticmethod
    def lift(node: E.Expr) -> E.Expr:
        return node

    @staticmethod
    def number(k: int) -> E.Expr:
        return number(Fraction(k))

    @staticmethod
    def neg(a: E.Expr) -> E.Expr:
        return neg(a)

    @staticmethod
    def power(base: E.Expr, k) -> E.Expr:
        return power(base, number(Fraction(k)) if isinstance(k, int) else k)

    @staticmethod
    def call(name: str, *args: E.Expr) -> E.Expr:
        return call(name, *args)

    @staticmethod
    def sign(u: E.Expr) -> E.Expr:
        return call("sign", u)


_BUILDER = TreeBuilder()


# --------------------------------------------------------------------------- checked

#: random points each derivative is checked at, and how many must lie where it is defined
CHECK_POINTS = 48
CHECK_NEEDED = 3
#: agreement with the engine: |ours - engine| <= CHECK_RTOL * max(|ours|, |engine|) + 1e-9
CHECK_RTOL = 1e-6


def undefined_constant(tree: E.Expr) -> Optional[E.Expr]:
    """The first function of constants in ``tree`` that has no real, finite value, or None.
    Each is evaluated at 40 and at 80 digits: a pole (tan(pi/2), which floats see as 1.6e16)
    gives values that grow with the digits, and a value off the real line (acos(2),
    sqrt(-1)) gives none."""
    from ..expr import highprec as H

    calls = [node for node, _ in E.postorder(tree)
             if isinstance(node, E.Call) and not E.free_variables(node)]
    for call in calls:
        fn = H.compile_tree(call, [])
        low, high = H.value_at(fn, [], H.DIGITS), H.value_at(fn, [], H.MORE_DIGITS)
        if low is None or high is None:
            return call
        mp = H.mpmath()
        if not (mp.isfinite(low) and mp.isfinite(high)) or \
                abs(high - low) > mp.mpf(10) ** -20 * max(abs(high), 1):
            return call
    return None


def checked(tree: E.Expr, variables: list[str], alongs: list[list[str]],
            seed: int = 0) -> list[Optional[E.Expr]]:
    """The derivative of ``tree`` along each list of ``alongs`` (all of one order, names from
    ``variables``), each kept only where the engine's own derivative agrees with it at random
    points of its domain; None where there is no rule here or no agreement (the caller goes
    to SymPy). A wrong derivative is never returned silently."""
    import warnings

    import numpy as np
    import tape

    from ..expr.lower import to_tape

    if undefined_constant(tree) is not None:
        return [None] * len(alongs)     # SymPy's check names what is undefined
    found = [derivative(tree, along) for along in alongs]
    # the form shown is the one checked
    found = [written_simply(d) if d is not None else d for d in found]
    found = [d if d is not None and undefined_constant(d) is None else None for d in found]
    if not any(d is not None for d in found) or not variables:
        return found
    rng = np.random.default_rng(seed)
    count = CHECK_POINTS
    arrays = []
    for _ in variables:
        values = rng.uniform(-1.0, 1.0, count) * rng.choice([0.5, 1.0, 2.0, 3.0], count)
        values[::3] = np.abs(values[::3]) + 1.0     # some points where roots and logs live
        arrays.append(values)
    order = len(alongs[0])
    with np.errstate(all="ignore"), warnings.catch_warnings():
        warnings.simplefilter("ignore")
        fn = to_tape(tree, variables, count=count)
        levels = _engine_partials(fn, arrays, variables, alongs, order)
        if levels is None:
            return [None] * len(alongs)
        value = np.asarray(levels[0][()], dtype=float).reshape(-1)
        out = []
        for along, d in zip(alongs, found):
            if d is None:
                out.append(None)
                continue
            key = tuple(sorted(variables.index(n) for n in along))
            if key not in levels[order]:
                out.append(None)
                continue
            engine = np.broadcast_to(np.asarray(levels[order][key], dtype=float).reshape(-1),
                                     (count,))
            ours = np.asarray(to_tape(d, variables, count=count)(
                *[tape.constant(a) for a in arrays]).numpy(), dtype=float).reshape(-1)
            ours = np.broadcast_to(ours, (count,))
            inside = np.isfinite(value) & np.isfinite(engine)
            both = inside & np.isfinite(ours)
            off = np.abs(ours - engine) > CHECK_RTOL * np.maximum(np.abs(ours),
                                                                  np.abs(engine)) + 1e-9
            good = both.sum() >= CHECK_NEEDED and not np.any(off & both) \
                and not np.any(inside & ~np.isfinite(ours))
            out.append(d if good else None)
    return out


#: mixed partials up to this order are checked with nested tapes (their cost grows
#: exponentially with the order); along one variable Taylor mode takes any order
NESTED_ORDER = 4


def _engine_partials(fn, arrays, variables: list[str], alongs: list[list[str]], order: int):
    """The engine's value and the partials named by ``alongs``, as ``pointwise_partials``
    lays them out (``levels[0][()]``, ``levels[order][multiset]``); None when only nested
    tapes of a high order could give them."""
    import tape

    from .derivatives import Component, single_derivative

    if all(len(set(along)) == 1 for along in alongs):
        levels: list = [{}] + [{} for _ in range(order)]
        for name in dict.fromkeys(along[0] for along in alongs):
            i = variables.index(name)
            got = single_derivative(fn, arrays, Component(name, i, None), order)
            if got is None:
                break
            levels[0][()] = got[0]
            levels[order][(i,) * order] = got[1][(0,) * order]
        else:
            return levels
    if order > NESTED_ORDER:
        return None
    return tape.pointwise_partials(fn, arrays, [(i, None) for i in range(len(variables))],
                                   order)


def implicit_slope(function: E.Expr, x: str, y: str, order: int = 1,
                   seed: int = 0) -> Optional[E.Expr]:
    """dy/dx (order 1) or d²y/dx² (order 2) along the curve ``function = 0`` as a tree in x
    and y: -F_x/F_y, and for order 2 its derivative along the curve, d/dx + y' d/dy. Each
    partial of F is ``checked`` against the engine; the rest is exact construction. None when
    a rule is missing."""
    first_order = checked(function, [x, y], [[x], [y]], seed)
    if any(d is None for d in first_order):
        return None
    fx, fy = first_order
    try:
        slope = simplest(neg(div(fx, fy)))
        if order == 1:
            return slope
        if _size(slope) > MAX_NODES:
            return None
        along_x, along_y = (differentiate(slope, n, _BUILDER) for n in (x, y))
        second = add(along_x, mul(along_y, slope))
        return written_simply(second)
    except NoRule:
        return None


# --------------------------------------------------------------------------- shorter forms

def written_simply(tree: E.Expr) -> E.Expr:
    """``simplest(tree)`` for a tree of at most ``MAX_NODES`` nodes, a larger one as it is:
    the form every derivative is shown in (``tape diff``, ``tape check``'s right answer)."""
    return simplest(tree) if _size(tree) <= MAX_NODES else tree


def simplest(tree: E.Expr) -> E.Expr:
    """``tree`` with, at each sum, its common factor taken out (``(x + 1)*exp(x)`` for
    ``exp(x) + x*exp(x)``) and, at each product with a sum in it, the product multiplied out
    where that cancels (``x**2*(1/x**2 + 1)`` is ``x**2 + 1``) - each only where the text
    gets shorter by more than a character or two, so the textbook's expanded form stays
    when it is about as short. Quotients and products are rebuilt by the constructors, so
    the common factors of a numerator and its denominator cancel."""
    from ..expr.printer import read_as

    inner_sums = set()
    for node, _ in E.postorder(tree):
        if isinstance(node, E.Binary) and node.op in "+-":
            inner_sums.update(id(k) for k in (node.left, node.right)
                              if isinstance(k, E.Binary) and k.op in "+-")

    def shorter(candidate: E.Expr, current: E.Expr) -> E.Expr:
        return candidate if len(read_as(candidate)) + SAVING <= len(read_as(current)) \
            else current

    def visit(node, kids):
        if isinstance(node, E.Unary) and node.op == "-":
            return neg(kids[0])
        if isinstance(node, E.Binary) and node.op == "*":
            built = mul(*kids)
            built = shorter(_double_angle_product(built), built)
            return shorter(_multiplied_out(built), built)
        if isinstance(node, E.Binary) and node.op == "/":
            built = div(*kids)
            # common factors of the numerator and the denominator cancel; then the signs
            # flip where that drops a minus
            top, bottom = (_factored(k) if _is_sum(k) else k for k in kids)
            built = shorter(div(top, bottom), built)
            if _is_sum(kids[0]):        # a numerator multiplied out: x**2 - 4*x - 1
                built = shorter(div(_sum(_numbers_last(_expanded(_terms(kids[0])))), kids[1]),
                                built)
            built = shorter(_multiplied_out(built), built)      # cos(x)/x - sin(x)/x**2
            if isinstance(built, E.Binary) and built.op == "/" and _is_sum(built.right):
                flipped = div(_positive_first(neg(built.left)), _positive_first(neg(built.right)))
                if len(read_as(flipped)) < len(read_as(built)):
                    built = flipped
            return built
        if isinstance(node, E.Binary) and node.op in "+-" and id(node) not in inner_sums:
            built = _highest_first(E.rebuild(node, kids))
            built = shorter(_double_angle_sum(built), built)
            return shorter(_factored(built), built)
        return E.rebuild(node, kids)

    keep = {id(n): n for n, _ in E.postorder(tree)}     # ids stay the nodes' own
    out = E.fold(tree, visit)
    del keep
    return out


#: characters a rewritten form must save to replace the expanded one
SAVING = 2


def _factored(node: E.Expr) -> E.Expr:
    """A sum with its common factor (number and powers) taken out; ``node`` when none."""
    from math import gcd

    terms = [(c, ps) for c, ps in _terms(node) if c != 0]
    if len(terms) < 2:
        return node
    numerators = [abs(c.numerator) for c, _ in terms]
    g = Fraction(numerators[0])
    for n in numerators[1:]:
        g = Fraction(gcd(int(g), n))
    lcm = 1
    for c, _ in terms:
        lcm = lcm * c.denominator // gcd(lcm, c.denominator)
    g = g / lcm
    if all(c < 0 for c, _ in terms):
        g = -g
    common = []
    for base, k in terms[0][1]:
        ks = [next((j for b, j in ps if b == base), None) for _, ps in terms]
        if any(j is None for j in ks):
            continue
        if k > 0 and all(j > 0 for j in ks):
            common.append((base, min(ks)))
        elif k < 0 and all(j < 0 for j in ks):
            common.append((base, max(ks)))
    if g == 1 and not common:
        return node
    from ..expr.printer import read_as

    rest = [(c / g, _merge(ps, common, -1)) for c, ps in terms]
    inside = _sum(_numbers_last(rest))
    # what is left may collect further once multiplied out: 2*(x + 1) - x is x + 2
    collected = _sum(_numbers_last(_expanded(rest)))
    if len(read_as(collected)) < len(read_as(inside)):
        inside = collected
    return mul(_product(g, common), inside)


def _expanded(terms: list) -> list:
    """Terms with each one-sum product multiplied out (``_multiplied_out``'s terms)."""
    out = []
    for c, ps in terms:
        sums = [b for b, k in ps if k == 1 and _is_sum(b)]
        if len(sums) != 1:
            out.append((c, ps))
            continue
        others = [(b, k) for b, k in ps if b is not sums[0]]
        out.extend((c * d, _merge(qs, others)) for d, qs in _terms(sums[0]))
    return out


def _is_sum(node: E.Expr) -> bool:
    return isinstance(node, E.Binary) and node.op in "+-"


def _highest_first(node: E.Expr) -> E.Expr:
    """A sum's terms by falling degree in the variables, numbers last (``x**2*cos(x) +
    2*x*sin(x)``, ``x + 1``), a positive term first (``1 - x**2``), as textbooks and SymPy
    write them."""
    terms = _terms(node)

    def degree(term) -> Fraction:
        return sum((k for b, k in term[1] if isinstance(b, E.Variable) and k > 0), Fraction(0))

    ordered = sorted(terms, key=lambda t: (not t[1], -degree(t)))
    if ordered[0][0] < 0:       # a positive term first saves the leading minus: 1 - x**2
        first = next((t for t in ordered if t[0] > 0), None)
        if first is not None:
            ordered.remove(first)
            ordered.insert(0, first)
    return node if ordered == terms else _sum(ordered)


def _positive_first(node: E.Expr) -> E.Expr:
    """A sum with its positive terms first (``2*x - y**2``, not ``-y**2 + 2*x``)."""
    if not _is_sum(node):
        return node
    terms = _terms(node)
    ordered = sorted(terms, key=lambda t: t[0] < 0)
    return node if ordered == terms else _sum(ordered)


def _twice(u: E.Expr) -> E.Expr:
    return mul(number(Fraction(2)), u)


def _double_angle_product(node: E.Expr) -> E.Expr:
    """2 sin(u) cos(u) as sin(2u) (likewise sinh, cosh), in a product."""
    c, ps = _split(node)
    for f, g in (("sin", "cos"), ("sinh", "cosh")):
        for base, k in ps:
            if k == 1 and isinstance(base, E.Call) and base.name == f:
                partner = E.Call(g, base.args)
                if any(b == partner and j == 1 for b, j in ps):
                    rest = [(b, j) for b, j in ps if b is not base and b != partner]
                    return _product(c / 2, _merge(rest, [(call(f, _twice(base.args[0])),
                                                          Fraction(1))]))
    return node


def _double_angle_sum(node: E.Expr) -> E.Expr:
    """a cos(u)**2 - a sin(u)**2 as a cos(2u), a cosh(u)**2 + a sinh(u)**2 as a cosh(2u),
    among the terms of a sum."""
    terms = _terms(node)
    for i, (c, ps) in enumerate(terms):
        for base, k in ps:
            if k != 2 or not isinstance(base, E.Call) or base.name not in ("cos", "cosh"):
                continue
            other = E.Call("sin" if base.name == "cos" else "sinh", base.args)
            sign = -1 if base.name == "cos" else 1
            rest = [(b, j) for b, j in ps if b is not base]
            for m, (d, qs) in enumerate(terms):
                if m != i and d == sign * c and _same(qs, _merge(rest, [(other, Fraction(2))])):
                    doubled = (c, _merge(rest, [(call(base.name, _twice(base.args[0])),
                                                 Fraction(1))]))
                    return _sum([doubled if n == i else t for n, t in enumerate(terms)
                                 if n != m])
    return node


def _multiplied_out(node: E.Expr) -> E.Expr:
    """A product holding one sum, multiplied out (like terms collected); ``node`` when it
    holds none."""
    c, ps = _split(node)
    sums = [(b, k) for b, k in ps if k == 1 and isinstance(b, E.Binary) and b.op in "+-"]
    if len(sums) != 1:
        return node
    base = sums[0][0]
    others = [(b, k) for b, k in ps if b is not base]
    return _sum(_numbers_last([(c * d, _merge(qs, others)) for d, qs in _terms(base)]))


def _numbers_last(terms: list) -> list:
    """The terms of a sum with its numbers last, as in ``x + 1``."""
    return sorted(terms, key=lambda t: not t[1])
