"""Differential testing: tape's derivatives against SymPy's exact ones, evaluated in mpmath.

One place per concept:

* ``sympy_of(text, sizes)`` - the expression -> SymPy, through the CLI's own lowering
  (``tape.expr.symbolic.to_sympy``), with pi and e as symbols valued at evaluation.
* ``exact(...)`` - SymPy derivatives evaluated at 30 significant digits (mpmath), at the
  float64 point itself (``mpf(float)`` is exact), so only tape's arithmetic is on trial.
* ``naive(...)`` - the same SymPy derivative evaluated in 53-bit arithmetic. When even that
  disagrees with the exact value the problem is ill-conditioned at that point (any float64
  evaluation loses the digits), which is how disagreements are classified.
* ``tape_partials`` / ``tape_jacobian`` / ``tape_derivative`` - the engine's numbers, through
  the CLI's own path (``targets`` + ``derivatives``: lowering, batching, nested tapes) and, for
  Jacobians and N-th derivatives, through the engine API directly as well.
* ``compare(expr_text, ...)`` runs every check on one generated expression and returns the
  ``Case`` records (one per derivative value); ``summarise`` prints "N/M agree, worst ...".
"""
from __future__ import annotations

import math
import random
import re
from dataclasses import dataclass

import mpmath
import numpy as np
import sympy as sp

import tape
from tape.calculus import derivatives
from tape.expr import parse as E
from tape.expr.functions import CONSTANTS
from tape.expr.symbolic import component_symbols, to_sympy
from tape.calculus.targets import expression_target, expressions_target

from exprgen import BOX, SCALARS, VECTORS, Generated

DIGITS = 30
#: a derivative agrees when |tape - exact| <= RTOL * max(|exact|, FLOOR)
RTOL = 1e-9
FLOOR = 1e-6
#: ... and FLOOR is raised to SCALE_FLOOR times the largest entry of the same derivative object
SCALE_FLOOR = 1e-3
#: points are rejected when a kinked argument is this close to its kink
KINK_MARGIN = 0.05


# --------------------------------------------------------------------------- SymPy lowering

#: the lowering under test alongside the engine: the CLI's own (``--check``, ``tape diff``)
LOWERING = "tape.expr.symbolic"

#: pi and e reach SymPy as symbols valued only when evaluated: exactly for the exact value, at
#: their float64 values for the 53-bit one. (As sp.pi, SymPy would turn sin(pi) into 0, which no
#: float64 evaluation can give, and the difference would count as tape's error.)
CONSTANT_SYMBOLS = {name: f"{name}_const" for name in CONSTANTS}
_CONSTANT_WORD = re.compile(r"\b(" + "|".join(CONSTANTS) + r")\b")


def sympy_of(text, sizes):
    """SymPy for an expression's text (see ``to_sympy``), its constants as symbols."""
    renamed = _CONSTANT_WORD.sub(lambda m: CONSTANT_SYMBOLS[m.group(1)], text)
    return to_sympy(E.parse(renamed), {**sizes, **dict.fromkeys(CONSTANT_SYMBOLS.values())})


def _constant_values(bits):
    """The constants' symbols -> their values: exact (30 digits), or float64's (``bits``)."""
    out = {}
    for name, symbol in CONSTANT_SYMBOLS.items():
        value = CONSTANTS[name][0]
        exact = mpmath.pi if name == "pi" else mpmath.e
        out[sp.Symbol(symbol, real=True)] = mpmath.mpf(value) if bits else +exact
    return out


def _drop_deltas(e):
    """0 for the derivative of a step (DiracDelta, d/dx sign(g(x)), d/dx Heaviside(g(x))):
    the derivative everywhere except at the kink, which is what tape computes."""
    if e.has(sp.DiracDelta):
        e = e.replace(sp.DiracDelta, lambda *a: sp.S.Zero)
    if e.has(sp.Derivative):
        e = e.replace(lambda n: isinstance(n, sp.Derivative)
                      and n.expr.func in (sp.sign, sp.Heaviside), lambda n: sp.S.Zero)
    return e


def derivative(e, comps):
    for c in comps:
        e = sp.diff(e, c)
    return _drop_deltas(e)


def _flat_symbols(sizes):
    return component_symbols(sorted(sizes), sizes)


def _point_values(point, sizes):
    out = []
    for name in sorted(sizes):
        value = point[name]
        out.extend(value if isinstance(value, list) else [value])
    return out


#: SymPy function -> mpmath function, for the tree-walking evaluator below
_MP = {
    sp.sin: mpmath.sin, sp.cos: mpmath.cos, sp.tan: mpmath.tan, sp.sec: mpmath.sec,
    sp.csc: mpmath.csc, sp.cot: mpmath.cot, sp.asin: mpmath.asin, sp.acos: mpmath.acos,
    sp.atan: mpmath.atan, sp.sinh: mpmath.sinh, sp.cosh: mpmath.cosh, sp.tanh: mpmath.tanh,
    sp.asinh: mpmath.asinh, sp.acosh: mpmath.acosh, sp.atanh: mpmath.atanh,
    sp.exp: mpmath.exp, sp.erf: mpmath.erf, sp.Abs: abs, sp.sign: mpmath.sign,
    sp.atan2: lambda y, x: mpmath.atan2(y, x),
    sp.Heaviside: lambda t, *h: mpmath.mpf(0) if t < 0 else mpmath.mpf(1) if t > 0 else
    mpmath.mpf(0.5),
    sp.Max: lambda *a: max(a), sp.Min: lambda *a: min(a),
    sp.log: lambda t, *base: mpmath.log(t) / (mpmath.log(base[0]) if base else 1),
    sp.sech: mpmath.sech, sp.csch: mpmath.csch, sp.coth: mpmath.coth,
}


class Evaluator:
    """Evaluate SymPy expressions at float64 points, exactly (30 digits) or naively (53 bits).

    A direct walk of the SymPy trees in mpmath (memoised per point, so shared subexpressions
    cost once); anything it does not know falls back to SymPy's ``evalf``. (``lambdify`` is
    several times slower to build for the one or two points each expression is used at.)
    """

    def __init__(self, exprs, sizes):
        self.symbols = _flat_symbols(sizes)
        self.sizes = sizes
        self.exprs = list(exprs)

    def __call__(self, point, bits=None):
        values = [mpmath.mpf(float(v)) for v in _point_values(point, self.sizes)]
        ctx = mpmath.workprec(bits) if bits else mpmath.workdps(DIGITS)
        with ctx:
            memo = {s: v for s, v in zip(self.symbols, values)}
            memo.update(_constant_values(bits))
            out = []
            for e in self.exprs:
                try:
                    out.append(_real(_walk(e, memo)))
                except (ZeroDivisionError, ValueError, OverflowError, TypeError, KeyError):
                    out.append(self._slow(e, values, bits))
            return out

    def _slow(self, e, values, bits):
        """SymPy's own evalf (for what the walker does not cover)."""
        subs = dict(zip(self.symbols, (sp.Float(v, 40) for v in values)))
        subs.update({s: sp.Float(v, 40) for s, v in _constant_values(bits).items()})
        try:
            return _real(sp.N(e, DIGITS if bits is None else 16, subs=subs))
        except (TypeError, ValueError, ZeroDivisionError):
            return math.nan


def _walk(root, memo):
    """Evaluate a SymPy tree with mpmath, iteratively (post-order), memoised in ``memo``."""
    stack = [(root, False)]
    while stack:
        node, expanded = stack.pop()
        if node in memo:
            continue
        if not expanded:
            if node.is_Number or node is sp.pi or node is sp.E or node.is_NumberSymbol:
                memo[node] = _number(node)
                continue
            stack.append((node, True))
            stack.extend((a, False) for a in node.args if a not in memo)
            continue
        args = [memo[a] for a in node.args]
        if node.is_Add:
            value = mpmath.fsum(args)
        elif node.is_Mul:
            value = mpmath.fprod(args)
        elif node.is_Pow:
            base, exp_ = args
            if node.exp.is_Integer:
                value = base ** int(node.exp)
            else:
                value = mpmath.power(base, exp_)
        elif node.func in _MP:
            value = _MP[node.func](*args)
        else:
            raise KeyError(node.func)
        memo[node] = value
    return memo[root]


def _number(node):
    if node.is_Rational:
        return mpmath.mpf(node.p) / node.q
    if node is sp.pi:
        return +mpmath.pi
    if node is sp.E:
        return mpmath.e + 0
    return mpmath.mpf(str(sp.N(node, DIGITS + 5)))


def _real(v):
    try:
        c = complex(v)
    except (TypeError, ValueError):
        return math.nan
    if abs(c.imag) > 1e-25 * max(1.0, abs(c.real)):
        return math.nan
    return float(c.real) if abs(c.real) < 1e300 else math.copysign(math.inf, c.real)


# --------------------------------------------------------------------------- points

def sample_points(gen: Generated, rng: random.Random, n: int, sizes, tries: int = 40):
    """``n`` points of the box, none within ``KINK_MARGIN`` of a kink of ``gen``."""
    checks = _kink_checks(gen, sizes)
    points = []
    for _ in range(tries * n):
        point = {name: (rng.uniform(*BOX) if size is None else
                        [rng.uniform(*BOX) for _ in range(size)])
                 for name, size in sizes.items()}
        if all(check(point) for check in checks):
            points.append(point)
            if len(points) == n:
                break
    return points


def _kink_checks(gen: Generated, sizes):
    checks = []
    for kind, text in gen.kinks:
        if kind == "atan2":
            a_text, b_text = text.split("|")
            a, b = (sympy_of(t, sizes) for t in (a_text, b_text))
            pairs = list(zip(a, b)) if isinstance(a, list) and isinstance(b, list) else \
                [(ai, b) for ai in a] if isinstance(a, list) else \
                [(a, bi) for bi in b] if isinstance(b, list) else [(a, b)]
            radius = [p * p + q * q for p, q in pairs]
            ev = Evaluator(radius, sizes)
            checks.append(lambda pt, ev=ev: all(r > KINK_MARGIN ** 2 for r in ev(pt)))
            continue
        value = sympy_of(text, sizes)
        parts = value if isinstance(value, list) else [value]
        if kind == "norm":
            ev = Evaluator([sum(p * p for p in parts)], sizes)
            checks.append(lambda pt, ev=ev: ev(pt)[0] > KINK_MARGIN ** 2)
        else:
            ev = Evaluator(parts, sizes)
            checks.append(lambda pt, ev=ev: all(abs(r) > KINK_MARGIN for r in ev(pt)))
    return checks


def sizes_of(tree) -> dict:
    return {n: VECTORS.get(n) for n in E.free_variables(tree)}


def stack_points(points, variables):
    return [np.asarray([p[n] for p in points], dtype=np.float64) for n in variables]


# --------------------------------------------------------------------------- tape's side

def tape_partials(text, points, order, wrt=None):
    """``{multiset: array (N,)}`` from the CLI's path (targets + compute, nested tapes)."""
    target = expression_target(text)
    variables = target.ordered(wrt)
    sizes = {n: VECTORS.get(n) for n in variables}
    comps = derivatives.components(variables, wrt or variables, sizes)
    fn = target.batched(variables, sizes, len(points))
    with np.errstate(all="ignore"):
        value, parts = derivatives.partials(fn, stack_points(points, variables), comps, order)
    return variables, comps, value, parts


def tape_jacobian(texts, points):
    """Jacobian (N, m, d) of several expressions, from the CLI path and from the engine's
    vectorized ``GradientTape.jacobian`` (which must agree with each other)."""
    target = expressions_target(list(texts))
    variables = target.ordered(None)
    sizes = {n: VECTORS.get(n) for n in variables}
    comps = derivatives.components(variables, variables, sizes)
    n = len(points)
    fn = target.batched(variables, sizes, n)
    arrays = stack_points(points, variables)
    with np.errstate(all="ignore"):
        value, jac = derivatives.jacobian(fn, arrays, comps)
        xs = [tape.constant(a) for a in arrays]
        with tape.GradientTape() as t:
            t.watch(xs)
            y = fn(*xs)
        full = t.jacobian(y, xs, unconnected_gradients="zero")
    # engine Jacobian: block (N, m, N[, k]) per input; points are independent: take diagonals
    cols = []
    for block, x in zip(full, xs):
        b = np.asarray(block)
        diag = b[np.arange(n), :, np.arange(n)]          # (N, m[, k])
        cols.append(diag[..., None] if x.ndim == 1 else diag)   # (N, m, 1) or (N, m, k)
    engine = np.concatenate(cols, axis=-1)
    return variables, sizes, value, jac, engine


def tape_derivative(text, var, point, order):
    """The ``order``-th derivative along one scalar variable, others held at ``point``:
    ``tape.derivative`` (Taylor mode) when the engine has it, else nested GradientTapes."""
    target = expression_target(text)
    variables = target.ordered([var])
    sizes = {n: VECTORS.get(n) for n in variables}
    fn = target.batched(variables, sizes, 1)
    others = [tape.constant(np.asarray([point[n]], dtype=np.float64)) for n in variables[1:]]

    def f(x):
        return fn(tape.reshape(x, (1,)), *others)[0]

    x0 = tape.constant(np.float64(point[var]))
    with np.errstate(all="ignore"):
        if hasattr(tape, "derivative"):
            return float(np.asarray(tape.derivative(f, x0, order=order))), "tape.derivative"
        entered = []
        try:
            for _ in range(order):
                t = tape.GradientTape()
                t.__enter__()
                entered.append(t)
                t.watch(x0)
            y = f(x0)
            while entered:
                t = entered.pop()
                t.__exit__(None, None, None)
                y = t.gradient(y, x0) if y is not None else None
        finally:
            while entered:
                entered.pop().__exit__(None, None, None)
        return (0.0 if y is None else float(np.asarray(y))), "nested GradientTape"


# --------------------------------------------------------------------------- comparing

@dataclass
class Case:
    """One derivative value compared: what, where, tape's, exact, naive float64, error."""

    expression: str
    what: str
    point: dict
    got: float
    exact: float
    naive: float = math.nan   # filled in (53-bit evaluation) only when tape disagrees
    floor: float = FLOOR      # see ``scaled_floor``

    @property
    def error(self) -> float:
        return relative_error(self.got, self.exact, self.floor)

    @property
    def naive_error(self) -> float:
        return relative_error(self.naive, self.exact, self.floor)

    @property
    def agrees(self) -> bool:
        return self.error <= RTOL

    @property
    def ill_conditioned(self) -> bool:
        """Even a float64 evaluation of SymPy's own formula misses by more than RTOL/10:
        the digits are lost to the problem, not to tape."""
        return not self.agrees and not self.naive_error <= RTOL / 10


def scaled_floor(exact_values) -> float:
    """The error floor for one derivative object (a gradient, a Hessian, a Jacobian, the
    derivatives up to order N) at one point: ``SCALE_FLOOR`` times its largest entry, at least
    ``FLOOR``. An entry that is exactly 0 (d2/dx2 of a function linear in x) is then judged by
    rounding relative to the entries it is computed alongside, not divided by 0 (normwise
    rather than componentwise relative error, for entries 1000x smaller than the largest)."""
    finite = [abs(v) for v in exact_values if math.isfinite(v)]
    return max(FLOOR, SCALE_FLOOR * max(finite, default=0.0))


def relative_error(got: float, exact: float, floor: float = FLOOR) -> float:
    if math.isnan(exact) or math.isinf(exact):
        return 0.0 if (got == exact or (math.isnan(got) and math.isnan(exact))) else math.inf
    if not math.isfinite(got):
        return math.inf
    return abs(got - exact) / max(abs(exact), floor)


def compare(gen: Generated, rng: random.Random, n_points: int = 3, hessian: bool = True,
            nth: int = 3, vector_exprs=()) -> list[Case]:
    """Every comparison for one generated expression (see the module docstring)."""
    text = gen.text
    tree = E.parse(text)
    sizes = sizes_of(tree)
    cases: list[Case] = []
    points = sample_points(gen, rng, n_points, sizes)
    if not points:
        return cases
    f = sympy_of(text, sizes)
    if isinstance(f, list):     # a vector-valued expression: tape grad differentiates the sum
        f = sp.Add(*f)
    variables = sorted(sizes)
    comp_syms = component_symbols(variables, sizes)
    orders = [1] + ([2] if hessian and len(comp_syms) <= 4 else [])
    memo = {(): f}

    def partial(key):   # d^k f along comp_syms[key...], reusing lower orders
        if key not in memo:
            memo[key] = derivative(partial(key[:-1]), [comp_syms[key[-1]]])
        return memo[key]

    for order in orders:
        _, comps, value, parts = tape_partials(text, points, order)
        keys = sorted(parts)
        exprs = [f] + [partial(k) for k in keys]
        ev = Evaluator(exprs, sizes)
        for p, point in enumerate(points):
            exact = ev(point)
            found = []
            if order == 1:
                found.append(Case(text, "value", point, float(value[p]), exact[0]))
            floor = scaled_floor(exact[1:])
            for j, k in enumerate(keys):
                label = "d" + "".join(comps[i].label for i in k)
                found.append(Case(text, label, point, float(parts[k][p]), exact[j + 1],
                                  floor=floor))
            _fill_naive(found, ev, point, offset=0 if order == 1 else 1)
            cases.extend(found)
    scalars = [n for n in variables if sizes[n] is None]
    if nth and scalars:
        var = rng.choice(scalars)
        order = rng.randint(2, nth)
        sym = sp.Symbol(var, real=True)
        chain = [f]
        for _ in range(order):
            chain.append(derivative(chain[-1], [sym]))
        ev = Evaluator([chain[-1]] + chain[1:-1], sizes)
        point = points[0]
        got, how = tape_derivative(text, var, point, order)
        exact = ev(point)
        case = Case(text, f"d{order}/d{var}{order} ({how})", point, got, exact[0],
                    floor=scaled_floor(exact))
        _fill_naive([case], ev, point)
        cases.append(case)
    return cases


def _fill_naive(cases, ev, point, offset=0):
    """The 53-bit evaluation, for the cases that disagree (``offset``: index of the first
    case's expression in ``ev``)."""
    if all(c.agrees for c in cases):
        return
    naive = ev(point, bits=53)
    for j, c in enumerate(cases):
        c.naive = naive[j + offset]


def compare_jacobian(gens: list[Generated], rng: random.Random, n_points: int = 2) -> list[Case]:
    """The Jacobian of a vector of generated expressions, CLI path and engine path."""
    texts = [g.text for g in gens]
    trees = [E.parse(t) for t in texts]
    sizes = {}
    for t in trees:
        sizes.update(sizes_of(t))
    if not sizes:
        return []
    merged = Generated(texts[0], 0, 0, kinks=[k for g in gens for k in g.kinks])
    points = sample_points(merged, rng, n_points, sizes)
    if not points:
        return []
    variables, _, _, jac, engine = tape_jacobian(texts, points)
    comp_syms = component_symbols(variables, sizes)
    outputs = []
    for t in texts:
        value = sympy_of(t, sizes)
        outputs.extend(value if isinstance(value, list) else [value])
    exprs = [derivative(o, [c]) for o in outputs for c in comp_syms]
    ev = Evaluator(exprs, sizes)
    cases = []
    label = "[" + ", ".join(texts) + "]"
    for p, point in enumerate(points):
        exact = ev(point)
        floor = scaled_floor(exact)
        found = []
        for i in range(len(outputs)):
            for j, c in enumerate(comp_syms):
                k = i * len(comp_syms) + j
                found.append(Case(label, f"J[{i},{c}] cli", point, float(jac[p, i, j]),
                                  exact[k], floor=floor))
                found.append(Case(label, f"J[{i},{c}] engine", point, float(engine[p, i, j]),
                                  exact[k], floor=floor))
        if not all(c.agrees for c in found):
            naive = ev(point, bits=53)
            for n, c in enumerate(found):
                c.naive = naive[n // 2]
        cases.extend(found)
    return cases


def summarise(cases: list[Case]) -> str:
    """``"N/M agree, worst relative error E (...)"`` plus the ill-conditioned count."""
    bad = [c for c in cases if not c.agrees]
    explained = [c for c in bad if c.ill_conditioned]
    worst = max(cases, key=lambda c: c.error if math.isfinite(c.error) else 1e308,
                default=None)
    good = [c for c in cases if not c.ill_conditioned]
    worst_good = max((c.error for c in good), default=0.0)
    line = (f"{len(cases) - len(bad)}/{len(cases)} agree within {RTOL:g} relative, "
            f"worst relative error {worst_good:.3g} on well-conditioned inputs "
            f"({len(bad) - len(explained)} unexplained disagreements, "
            f"{len(explained)} at ill-conditioned points")
    if worst is not None:
        line += f"; worst overall {worst.error:.3g}"
    return line + ")"
