"""High-precision evaluation for verdicts: values and derivatives that rounding cannot decide.

An expression tree is compiled straight to a function of mpmath numbers (``compile_tree``:
no SymPy, so a verdict decided by the numbers never waits for SymPy to load); decimals keep the
value as typed (``0.1`` is 1/10), and every constant is made at the precision of the call, so
``mpmath.diff`` raising its working precision raises theirs too. The semantics are SymPy's on
the reals (a principal power of a negative base is complex, hence undefined); a test holds the
two lowerings to the same values for every function of the language. SymPy expressions (the
diagnosis's mistaken derivatives) go through ``compile_sympy``. Everything runs at ``DIGITS``
significant digits.

A value is *defined* at a point only when it is real and finite there. A derivative is taken
numerically by ``mpmath.diff`` (which raises its own working precision to make up for the
difference quotient), and is trusted only where the function is differentiable: the central
estimate must agree with both one-sided ones (a kink fails) and with a central estimate of much
larger step (an infinite derivative, as of a cube root at 0, grows as the step shrinks). Where
the checks fail the derivative is ``None``: such points are evidence neither way.
"""
from __future__ import annotations

from typing import Callable, Optional, Sequence

#: significant digits of every high-precision evaluation
DIGITS = 40
#: relative agreement needed between the differentiability probes
PROBE_RTOL = 1e-8
#: two high-precision numbers differ when apart by more than this, relative to their size
RTOL = 1e-12
#: ``agree`` at ``digits`` significant digits: relative to the size, apart by at most
#: 10**-(FINE_SHARE * digits); in absolute terms 10**-(digits - FLOOR_GUARD) times the scale
FINE_SHARE = 0.6
FLOOR_GUARD = 8
#: the significant digits two values ``agree`` to at ``DIGITS``
AGREED_DIGITS = int(FINE_SHARE * DIGITS)
#: a difference is real when it is the same at ``MORE_DIGITS``, to this share of it
STABLE_RTOL = 1e-3
#: the digits a difference is asked again at
MORE_DIGITS = 2 * DIGITS


#: an argument of a periodic or exponential function, or an exponent, larger than 2**this is
#: out of range: reducing it (modulo 2 pi, or ln 2) takes as many bits of precision as it has
#: bits of size, so 10^(10^10) would take gigabytes; floats end at 2**1024 anyway
LARGEST_BITS = 4096
#: the functions whose cost grows with the size of their argument (``LARGEST_BITS``)
REDUCING = frozenset({"sin", "cos", "tan", "sec", "csc", "cot", "sinh", "cosh", "tanh", "sech",
                      "csch", "coth", "exp", "sigmoid", "softplus", "erf"})


class Undefined(Exception):
    """The function is not defined (real and finite) at the point asked."""


def mpmath():
    import mpmath as mp

    return mp


def compile_sympy(expr, symbols: Sequence) -> Callable:
    """``f(*mpf) -> mpf`` for a SymPy expression; raises ``Undefined`` off the real domain."""
    import sympy as sp

    from .symbolic import _drop_deltas

    fn = sp.lambdify(list(symbols), _drop_deltas(sp.sympify(expr)), modules=["mpmath"])

    def value(*args):
        try:
            out = fn(*args)
        except (ZeroDivisionError, ValueError, OverflowError, TypeError, AttributeError):
            raise Undefined from None
        return real(out)

    return value


def compile_tree(tree, variables: Sequence[str]) -> Callable:
    """``f(*mpf) -> mpf`` for an expression tree in ``variables`` (all scalars); raises
    ``Undefined`` off the real domain. Trees with vector functions or indexing go through
    SymPy (``compile_sympy``)."""
    try:
        build = _lowered(tree, list(variables))
    except _NotScalar:
        from . import symbolic as S

        expr = S.as_scalar(S.to_sympy(tree, {n: None for n in variables}))
        return compile_sympy(expr, [S.symbol(n) for n in variables])

    def value(*args):
        try:
            out = build(args)
        except (ZeroDivisionError, ValueError, OverflowError, TypeError):
            raise Undefined from None
        return real(out)

    return value


class _NotScalar(Exception):
    """The tree uses vectors; ``compile_tree`` lowers it through SymPy instead."""


def _lowered(tree, variables: list) -> Callable:
    """``build(args) -> mpf`` for ``tree``, ``args`` in ``variables`` order (``_NotScalar`` for
    vector functions and indexing). The tree becomes a flat program, one step per node in
    postorder, each step computing its node from the values before it: a sum of 10,000 terms
    is as deep as a chain of 10,000 calls would be, which Python's recursion limit forbids."""
    from fractions import Fraction

    from . import tree as E
    from .functions import FUNCTIONS, mpmath_function

    mp = mpmath()
    slots = {name: i for i, name in enumerate(variables)}
    program: list[Callable] = []      # step(values, args) -> the value of one node

    def number(value: float) -> Callable:
        if value != value or value in (float("inf"), float("-inf")):
            return lambda v, args: mp.mpf(value)
        if value.is_integer():
            whole = int(value)
            return lambda v, args: mp.mpf(whole)
        exact = Fraction(repr(value))          # the decimal as typed: 0.1 -> 1/10
        p, q = exact.numerator, exact.denominator
        return lambda v, args: mp.mpf(p) / q

    def binary(op: str, node, a: int, b: int) -> Callable:
        if op == "+":
            return lambda v, args: v[a] + v[b]
        if op == "-":
            return lambda v, args: v[a] - v[b]
        if op == "*":
            return lambda v, args: v[a] * v[b]
        if op == "/":
            return lambda v, args: v[a] / v[b]
        if isinstance(node.right, E.Number) and node.right.value.is_integer():
            k = int(node.right.value)          # exact, and real for a negative base
            return lambda v, args: v[a] ** k
        return lambda v, args: _power(v[a], v[b])

    def step(node, kids: list) -> Callable:
        if isinstance(node, E.Number):
            return number(node.value)
        if isinstance(node, E.Constant):
            constant = {"pi": mp.pi, "e": mp.e}[node.name]
            return lambda v, args: +constant   # evaluated at the caller's precision
        if isinstance(node, E.Variable):
            if node.name not in slots:
                raise _NotScalar(node.name)
            i = slots[node.name]
            return lambda v, args: args[i]
        if isinstance(node, E.Unary):
            (a,) = kids
            return (lambda v, args: v[a]) if node.op == "+" else (lambda v, args: -v[a])
        if isinstance(node, E.Binary):
            return binary(node.op, node, *kids)
        if isinstance(node, E.Call) and FUNCTIONS[node.name].mpmath is not None:
            fn = mpmath_function(mp, node.name)
            if node.name in REDUCING:
                fn = _bounded(fn)
            if len(kids) == 1:
                (a,) = kids
                return lambda v, args: fn(v[a])
            return lambda v, args: fn(*[v[k] for k in kids])
        raise _NotScalar(type(node).__name__)

    def visit(node, kids: list) -> int:
        program.append(step(node, kids))
        return len(program) - 1

    E.fold(tree, visit)

    def build(args):
        values: list = []
        for compute in program:
            values.append(compute(values, args))
        return values[-1]

    return build


def _too_large(value) -> bool:
    mp = mpmath()
    return mp.isfinite(value) and mp.mag(value) > LARGEST_BITS


def _power(base, exponent):
    """``base ** exponent``, with an exponent beyond ``LARGEST_BITS`` out of range (mpmath
    would write it out as an integer: x^(10^10^10)) unless the base makes it exact."""
    if _too_large(exponent):
        if base == 0 and exponent > 0 or base == 1:
            return base
        raise Undefined
    return base ** exponent


def _bounded(fn: Callable) -> Callable:
    """``fn`` with an argument beyond ``LARGEST_BITS`` out of range."""
    def bounded(x):
        if _too_large(x):
            raise Undefined
        return fn(x)

    return bounded


def real(value):
    """``value`` as a finite real mpf, or raise ``Undefined``."""
    mp = mpmath()
    try:
        if isinstance(value, mp.mpc):
            if value.imag != 0 and abs(value.imag) > mp.mpf(10) ** (-DIGITS + 5) * \
                    max(1, abs(value.real)):
                raise Undefined
            value = value.real
        value = mp.mpf(value)
    except (TypeError, ValueError):
        raise Undefined from None
    if not mp.isfinite(value):
        raise Undefined
    return value


def at(point: Sequence[float]) -> list:
    """A float point as exact mpf numbers."""
    mp = mpmath()
    return [mp.mpf(float(v)) for v in point]


def value_at(fn: Callable, point: Sequence, digits: int = DIGITS) -> Optional[object]:
    """``fn`` at ``point`` (mpf), or None where it is undefined."""
    with mpmath().workdps(digits):
        try:
            return fn(*point)
        except Undefined:
            return None


def derivative_at(fn: Callable, point: Sequence, orders: Sequence[int],
                  probe: bool = True, digits: int = DIGITS) -> Optional[object]:
    """The partial derivative of ``fn`` with ``orders[i]`` differentiations along variable i, at
    ``point``; None where ``fn`` is undefined nearby or (with ``probe``) not differentiable
    there. Without ``probe`` only the central estimate is taken: enough to see agreement, not
    to trust a disagreement."""
    mp = mpmath()
    orders = tuple(int(k) for k in orders)
    with mp.workdps(digits):
        try:
            fn(*point)
            single = len(point) == 1
            args = (point[0], orders[0]) if single else (tuple(point), orders)
            central = real(mp.diff(fn, *args))
            if not probe:
                return central
            scale = max(abs(p) for p in point) + 1
            wide = real(mp.diff(fn, *args, h=mp.mpf("1e-15") * scale))
            forward = real(mp.diff(fn, *args, direction=1))
            backward = real(mp.diff(fn, *args, direction=-1))
        except (Undefined, ZeroDivisionError, ValueError, OverflowError, TypeError):
            return None
        size = max(abs(central), abs(wide), abs(forward), abs(backward))
        slack = PROBE_RTOL * size + mp.mpf(10) ** (-digits // 2)
        if any(abs(central - other) > slack for other in (wide, forward, backward)):
            return None
        return central


def differ(a, b, scale=0) -> bool:
    """Are two high-precision values apart beyond rounding? ``scale`` is the size of the
    numbers they were computed from (a derivative of a huge function has a larger floor)."""
    mp = mpmath()
    with mp.workdps(DIGITS):
        floor = mp.mpf(10) ** (-DIGITS // 2) * (1 + abs(scale))
        return abs(a - b) > RTOL * max(abs(a), abs(b)) + floor


def agree(a, b, scale=0, digits: int = DIGITS) -> bool:
    """Are two values computed at ``digits`` significant digits equal to nearly all of them?
    Stricter than ``not differ``: a difference too small for ``differ`` to trust (a
    derivative off by 1e-14 of itself) fails it, and ``difference_persists`` then asks again
    at twice the digits."""
    mp = mpmath()
    with mp.workdps(digits):
        floor = mp.mpf(10) ** (FLOOR_GUARD - digits) * (1 + abs(scale))
        rtol = mp.mpf(10) ** -int(FINE_SHARE * digits)
        return abs(a - b) <= rtol * max(abs(a), abs(b)) + floor


def difference_persists(f: Callable, a: Callable, point: Sequence, orders: Sequence[int],
                        gap, scale=0, digits: int = MORE_DIGITS) -> Optional[bool]:
    """A derivative of ``f`` and an answer ``a`` that do not ``agree`` at ``point``, ``gap``
    apart: True when the difference is real, False when it was rounding, None when neither can
    be said (see ``same_gap_again``). A gap of 1e-14 of the values is real when it stays; a
    large one is not when it moves (at x = -707, cos(3 sin(x) sinh(x)) needs more than 40
    digits of its argument: its value at 40 digits is noise). ``digits``: the precision of
    the second look."""
    answer = value_at(a, point, digits)
    derivative = derivative_at(f, point, orders, digits=digits)
    return same_gap_again(derivative, answer, gap, scale, digits)


def same_gap_again(expected, answer, gap, scale=0, digits: int = MORE_DIGITS) -> Optional[bool]:
    """``expected`` and ``answer`` recomputed at ``MORE_DIGITS`` where, at ``DIGITS``, they
    were ``gap`` apart: True when the gap is the same (a real difference), False when they now
    ``agree`` (it was rounding), None when either is missing or the gap moved."""
    if expected is None or answer is None:
        return None
    if agree(expected, answer, scale, digits):
        return False
    with mpmath().workdps(digits):
        return True if abs(expected - answer - gap) <= STABLE_RTOL * abs(gap) else None


def shown(value, digits: int = 3) -> str:
    """A high-precision number in a few significant digits (``1.23e-17``)."""
    return mpmath().nstr(value, digits)
