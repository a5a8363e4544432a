"""A seeded random expression generator over the whole function table, with safe domains.

``Generator(seed).expression()`` returns a ``Generated``: the expression as text (in the
language ``tape`` accepts, ``^`` and implicit multiplication included) and a guaranteed range
of its value over the input box. Every function in ``tape.expr.functions.FUNCTIONS`` is drawn
with equal probability; when the argument's range does not fit the function's domain (or keeps
it too close to a singularity), the argument is wrapped in a transformation that does, e.g.
``log(1 + g^2)``, ``asin(tanh(g)/2)``, ``acosh(1.5 + g^2)``, ``tan(tanh(g))``, ``a / exp(g)``.
Ranges come from interval arithmetic, so the guarantee holds for *every* point of the box:

* scalar variables ``x y z`` and the components of the vector variables ``v w`` (length 3)
  range over ``BOX``;
* ``log sqrt`` and real powers see arguments >= 0.2, ``asin acos atanh`` |arg| <= 0.9,
  ``acosh`` >= 1.2, ``tan sec`` |arg| <= 1.3, ``csc cot`` [0.3, 2.8], denominators |d| >= 0.3,
  ``exp sinh cosh`` |arg| <= 6; values are kept within +-1e3 (else squashed by tanh/atan).

The kinks (``abs relu`` at 0, ``cbrt``'s infinite slope at 0, ``atan2`` and ``norm`` at the
origin) are not excluded by ranges; ``Generated.kinks`` lists those arguments (as text) so a
caller can reject points that fall too close to one (see ``reference.py``).

Used by ``tests/differential/test_differential.py`` (quick) and ``benchmarks/differential.py``
(long). Deterministic: the same seed gives the same expressions on every platform.
"""
from __future__ import annotations

import math
import random
from dataclasses import dataclass, field

from tape.expr.functions import FUNCTIONS

SCALARS = ("x", "y", "z")
VECTORS = {"v": 3, "w": 3}
BOX = (-2.0, 2.0)
#: values beyond this magnitude are squashed (conditioning, not correctness)
MAX_MAGNITUDE = 1e3

ELEMENTWISE = sorted(n for n, f in FUNCTIONS.items() if f.kind == "elementwise" and f.arity == 1)
REDUCTIONS = sorted(n for n, f in FUNCTIONS.items() if f.kind in ("reduce", "dot"))
BINARY_FUNCTIONS = sorted(n for n, f in FUNCTIONS.items() if f.kind == "elementwise"
                          and f.arity == 2)
REAL_EXPONENTS = (("0.5", 0.5), ("1.5", 1.5), ("(-0.5)", -0.5), ("2.5", 2.5),
                  ("(1/3)", 1 / 3), ("0.75", 0.75))
NUMBERS = ("2", "3", "0.5", "1.5", "0.25", "7", "0.1", "1.25", "pi", "e")


@dataclass
class Generated:
    """An expression's text, its value range over the box, whether it is a vector, and the
    arguments of kinked functions (``(kind, text)``; see the module docstring)."""

    text: str
    lo: float
    hi: float
    vector: bool = False
    kinks: list = field(default_factory=list)

    @property
    def magnitude(self) -> float:
        return max(abs(self.lo), abs(self.hi))


def _monotone(f, lo, hi, increasing=True):
    a, b = f(lo), f(hi)
    return (a, b) if increasing else (b, a)


def _sinh(t):
    return math.sinh(t)


def _cos_range(lo, hi):
    # cos over [lo, hi] (used only for |.| <= 1.3 here, where cos > 0)
    m = max(abs(lo), abs(hi))
    low = math.cos(m)
    high = 1.0 if lo <= 0 <= hi else max(math.cos(lo), math.cos(hi))
    return low, high


def _sin_range_pos(lo, hi):
    # sin over [lo, hi] within (0, pi)
    low = min(math.sin(lo), math.sin(hi))
    high = 1.0 if lo <= math.pi / 2 <= hi else max(math.sin(lo), math.sin(hi))
    return low, high


def image(name: str, lo: float, hi: float) -> tuple[float, float]:
    """The range of a one-argument function over [lo, hi] (inside its safe domain)."""
    inc = {"atan": math.atan, "sinh": _sinh, "tanh": math.tanh, "asinh": math.asinh,
           "exp": math.exp, "log": math.log, "ln": math.log, "log2": math.log2,
           "log10": math.log10, "sqrt": math.sqrt, "erf": math.erf,
           "asin": math.asin, "atanh": math.atanh, "acosh": math.acosh, "tan": math.tan,
           "cbrt": lambda t: math.copysign(abs(t) ** (1 / 3), t),
           "sigmoid": lambda t: 0.5 * (1 + math.tanh(t / 2)),
           "softplus": lambda t: max(t, 0.0) + math.log1p(math.exp(-abs(t))),
           "relu": lambda t: max(t, 0.0)}
    if name in inc:
        return _monotone(inc[name], lo, hi)
    if name == "acos":
        return _monotone(math.acos, lo, hi, increasing=False)
    dec = {"csch": lambda t: 1 / math.sinh(t), "coth": lambda t: 1 / math.tanh(t),
           "acsc": lambda t: math.asin(1 / t), "acot": lambda t: math.atan(1 / t),
           "asech": lambda t: math.acosh(1 / t), "acsch": lambda t: math.asinh(1 / t),
           "acoth": lambda t: math.atanh(1 / t)}
    if name in dec:
        return _monotone(dec[name], lo, hi, increasing=False)
    if name in ("asec", "floor", "ceil"):
        f = {"asec": lambda t: math.acos(1 / t), "floor": math.floor, "ceil": math.ceil}[name]
        return _monotone(lambda t: float(f(t)), lo, hi)
    if name == "sign":
        return (-1.0, 1.0)
    if name == "sech":
        low = 0.0 if lo <= 0 <= hi else min(abs(lo), abs(hi))
        return (1 / math.cosh(max(abs(lo), abs(hi))), 1 / math.cosh(low))
    if name in ("sin", "cos"):
        return (-1.0, 1.0)
    if name == "cosh":
        low = 0.0 if lo <= 0 <= hi else min(abs(lo), abs(hi))
        return (math.cosh(low), math.cosh(max(abs(lo), abs(hi))))
    if name == "abs":
        low = 0.0 if lo <= 0 <= hi else min(abs(lo), abs(hi))
        return (low, max(abs(lo), abs(hi)))
    if name == "sec":
        a, b = _cos_range(lo, hi)
        return (1 / b, 1 / a)
    if name == "csc":
        a, b = _sin_range_pos(lo, hi)
        return (1 / b, 1 / a)
    if name == "cot":
        return _monotone(lambda t: math.cos(t) / math.sin(t), lo, hi, increasing=False)
    raise KeyError(name)


#: the interval each function's argument must lie in (None: anything)
DOMAIN = {
    "log": (0.2, math.inf), "ln": (0.2, math.inf), "log2": (0.2, math.inf),
    "log10": (0.2, math.inf), "sqrt": (0.2, math.inf),
    "asin": (-0.9, 0.9), "acos": (-0.9, 0.9), "atanh": (-0.9, 0.9),
    "acosh": (1.2, math.inf),
    "exp": (-6.0, 6.0), "sinh": (-6.0, 6.0), "cosh": (-6.0, 6.0),
    "tan": (-1.3, 1.3), "sec": (-1.3, 1.3),
    "csc": (0.3, 2.8), "cot": (0.3, 2.8),
    "sech": (-6.0, 6.0), "csch": (0.3, 2.8), "coth": (0.3, 2.8),
    "asec": (1.2, math.inf), "acsc": (1.2, math.inf), "acoth": (1.2, math.inf),
    "acot": (0.2, math.inf), "acsch": (0.2, math.inf),
    "asech": (0.2, 0.9), "floor": (0.2, 0.9), "ceil": (0.2, 0.9),   # floor, ceil: no jump
}
KINKED = {"abs": "zero", "relu": "zero", "cbrt": "zero", "sign": "zero"}


def _mul(a, b):
    c = [a[0] * b[0], a[0] * b[1], a[1] * b[0], a[1] * b[1]]
    return (min(c), max(c))


class Generator:
    """Seeded expressions; see the module docstring."""

    def __init__(self, seed: int, max_depth: int = 6, vectors: bool = True):
        self.rng = random.Random(seed)
        self.max_depth = max_depth
        self.vectors = vectors

    # ---------------------------------------------------------------- public
    def expression(self) -> Generated:
        """One scalar expression of depth 1..max_depth (its root is never a leaf)."""
        depth = self.rng.randint(1, self.max_depth)
        return self._scalar(depth, root=True)

    def expressions(self, n: int) -> list[Generated]:
        return [self.expression() for _ in range(n)]

    # ---------------------------------------------------------------- leaves
    def _leaf(self, vector: bool) -> Generated:
        r = self.rng.random()
        if vector and r < 0.6:
            name = self.rng.choice(sorted(VECTORS))
            return Generated(name, *BOX, vector=True)
        if r < 0.75:
            name = self.rng.choice(SCALARS)
            return Generated(name, *BOX)
        text = self.rng.choice(NUMBERS)
        value = {"pi": math.pi, "e": math.e}.get(text) or float(text)
        return Generated(text, value, value)

    def _vector_leaf(self) -> Generated:
        return Generated(self.rng.choice(sorted(VECTORS)), *BOX, vector=True)

    # ---------------------------------------------------------------- nodes
    def _scalar(self, depth: int, root: bool = False) -> Generated:
        """A scalar expression (may reduce vector subexpressions)."""
        if depth <= 0 or (not root and self.rng.random() < 0.2):
            return self._leaf(vector=False)
        r = self.rng.random()
        if self.vectors and r < 0.12:
            return self._reduction(depth)
        return self._node(depth, vector=False)

    def _any(self, depth: int, vector: bool) -> Generated:
        if vector:
            if depth <= 0 or self.rng.random() < 0.25:
                return self._leaf(vector=True)
            return self._node(depth, vector=True)
        return self._scalar(depth)

    def _node(self, depth: int, vector: bool) -> Generated:
        r = self.rng.random()
        if r < 0.55:
            name = self.rng.choice(ELEMENTWISE)
            arg = self._any(depth - 1, vector)
            return self._apply(name, arg)
        if r < 0.58:
            return self._atan2(depth, vector)
        if r < 0.6:
            return self._pair(depth, vector)
        if not vector and r < 0.64 and self.vectors:
            operand = self._any(depth - 1, vector=True)
            if not operand.vector:
                operand = self._vector_leaf()
            i = self.rng.randint(-3, 2)
            text = f"{operand.text}[{i}]" if _is_atom(operand.text) else f"({operand.text})[{i}]"
            return self._squash(Generated(text, operand.lo, operand.hi, False,
                                          list(operand.kinks)))
        op = self.rng.choice(["+", "-", "*", "/", "**"])
        a = self._any(depth - 1, vector)
        b = self._any(depth - 1, vector and self.rng.random() < 0.5)
        return self._binary(op, a, b)

    def _reduction(self, depth: int) -> Generated:
        name = self.rng.choice(REDUCTIONS)
        a = self._any(depth - 1, vector=True)
        if not a.vector:
            a = self._binary("*", a, self._vector_leaf()) if self.rng.random() < 0.5 \
                else self._vector_leaf()
        kinks = list(a.kinks)
        n = 3
        if name == "dot":
            b = self._any(depth - 1, vector=True)
            if not b.vector:
                b = self._vector_leaf()
            lo, hi = _mul((a.lo, a.hi), (b.lo, b.hi))
            kinks += b.kinks
            return self._squash(Generated(f"dot({a.text}, {b.text})", n * lo, n * hi,
                                          False, kinks))
        if name == "sum":
            return self._squash(Generated(f"sum({a.text})", n * a.lo, n * a.hi, False, kinks))
        if name == "mean":
            return Generated(f"mean({a.text})", a.lo, a.hi, False, kinks)
        if name == "prod":
            m = a.magnitude ** n
            return self._squash(Generated(f"prod({a.text})", -m, m, False, kinks))
        # norm: kink at the origin
        kinks.append(("norm", a.text))
        return self._squash(Generated(f"norm({a.text})", 0.0, math.sqrt(n) * a.magnitude,
                                      False, kinks))

    def _atan2(self, depth: int, vector: bool) -> Generated:
        a = self._any(depth - 1, vector)
        b = self._any(depth - 1, vector and self.rng.random() < 0.5)
        kinks = a.kinks + b.kinks
        if self.rng.random() < 0.5:
            b = self._positive(b)
        else:
            kinks = kinks + [("atan2", f"{a.text}|{b.text}")]
        return Generated(f"atan2({a.text}, {b.text})", -math.pi, math.pi,
                         a.vector or b.vector, kinks)

    def _pair(self, depth: int, vector: bool) -> Generated:
        """``root(a, n)`` (a >= 0.2), ``max(a, b)``, ``min(a, b)`` (kinked where a = b)."""
        name = self.rng.choice([n for n in BINARY_FUNCTIONS if n != "atan2"])
        a = self._any(depth - 1, vector)
        if name == "root":
            a = self._positive(a) if a.lo < 0.2 else a
            n = self.rng.choice([2, 3, 4])
            return Generated(f"root({a.text}, {n})", a.lo ** (1 / n), a.hi ** (1 / n),
                             a.vector, list(a.kinks))
        b = self._any(depth - 1, vector and self.rng.random() < 0.5)
        kinks = a.kinks + b.kinks + [("zero", f"({a.text}) - ({b.text})")]
        pick = max if name == "max" else min
        return Generated(f"{name}({a.text}, {b.text})", pick(a.lo, b.lo), pick(a.hi, b.hi),
                         a.vector or b.vector, kinks)

    def _apply(self, name: str, arg: Generated) -> Generated:
        dom = DOMAIN.get(name)
        if dom is not None and not (dom[0] <= arg.lo and arg.hi <= dom[1]):
            arg = self._into(dom, arg)
        kinks = list(arg.kinks)
        if name in KINKED:
            kinks.append((KINKED[name], arg.text))
        lo, hi = image(name, arg.lo, arg.hi)
        return self._squash(Generated(f"{name}({arg.text})", lo, hi, arg.vector, kinks))

    def _binary(self, op: str, a: Generated, b: Generated) -> Generated:
        vector = a.vector or b.vector
        kinks = a.kinks + b.kinks
        if op == "+":
            return self._squash(Generated(f"({a.text} + {b.text})", a.lo + b.lo, a.hi + b.hi,
                                          vector, kinks))
        if op == "-":
            return self._squash(Generated(f"({a.text} - {b.text})", a.lo - b.hi, a.hi - b.lo,
                                          vector, kinks))
        if op == "*":
            lo, hi = _mul((a.lo, a.hi), (b.lo, b.hi))
            if _is_number(a.text) and a.text not in ("pi", "e") and self.rng.random() < 0.5:
                # implicit multiplication: 2x, 3(x + 1), 4sin(x)
                if b.text.isidentifier() and b.text not in FUNCTIONS:
                    text = f"({a.text}{b.text})"
                else:
                    text = f"({a.text}({b.text}))"
            else:
                text = f"({a.text} * {b.text})"
            return self._squash(Generated(text, lo, hi, vector, kinks))
        if op == "/":
            if b.lo < 0.3 and b.hi > -0.3:
                b = self._positive(b)
            inv = (1 / b.hi, 1 / b.lo)
            lo, hi = _mul((a.lo, a.hi), inv)
            return self._squash(Generated(f"({a.text} / {b.text})", lo, hi, vector,
                                          a.kinks + b.kinks))
        return self._power(a, b)

    def _power(self, a: Generated, b: Generated) -> Generated:
        caret = "^" if self.rng.random() < 0.5 else "**"
        form = self.rng.random()
        if form < 0.35:  # integer exponent: any base
            k = self.rng.choice([2, 3, 4])
            lo, hi = _int_power(a.lo, a.hi, k)
            return self._squash(Generated(f"({a.text}){caret}{k}", lo, hi, a.vector, a.kinks))
        if form < 0.5:  # negative integer exponent: base away from 0
            if a.lo < 0.3 and a.hi > -0.3:
                a = self._positive(a)
            k = self.rng.choice([1, 2])
            lo, hi = _int_power(a.lo, a.hi, k)
            lo, hi = sorted((1 / lo, 1 / hi)) if lo > 0 or hi < 0 else (-math.inf, math.inf)
            return self._squash(Generated(f"({a.text}){caret}(-{k})", lo, hi, a.vector, a.kinks))
        if form < 0.7:  # real exponent: positive base
            if a.lo < 0.2:
                a = self._positive(a)
            r, value = self.rng.choice(REAL_EXPONENTS)
            lo, hi = sorted((a.lo ** value, a.hi ** value))
            return self._squash(Generated(f"({a.text}){caret}{r}", lo, hi, a.vector, a.kinks))
        # variable exponent: positive base, bounded exponent
        if a.lo < 0.2:
            a = self._positive(a)
        if b.magnitude > 4:
            b = Generated(f"tanh({b.text})", -1.0, 1.0, b.vector, b.kinks)
        cands = [a.lo ** b.lo, a.lo ** b.hi, a.hi ** b.lo, a.hi ** b.hi]
        return self._squash(Generated(f"({a.text}){caret}({b.text})", min(cands), max(cands),
                                      a.vector or b.vector, a.kinks + b.kinks))

    # ---------------------------------------------------------------- domain fixes
    def _into(self, dom: tuple[float, float], g: Generated) -> Generated:
        lo, hi = dom
        if lo > 0 and hi == math.inf:
            if lo >= 1.2:   # acosh
                sq = _int_power(g.lo, g.hi, 2)
                return Generated(f"(1.5 + ({g.text})^2)", 1.5 + sq[0], 1.5 + sq[1], g.vector,
                                 g.kinks)
            return self._positive(g)
        if lo == 0.2:       # asech floor ceil: [0.2, 0.9]
            choice = self.rng.choice(["tanh", "sin", "erf"])
            return Generated(f"(0.55 + 0.3*{choice}({g.text}))", 0.25, 0.85, g.vector, g.kinks)
        if lo == -0.9:      # asin acos atanh
            choice = self.rng.choice(["tanh", "sin", "erf"])
            return Generated(f"{choice}({g.text})/2", -0.5, 0.5, g.vector, g.kinks)
        if lo == -6.0:      # exp sinh cosh
            if g.magnitude <= 6:
                return g
            choice = self.rng.choice(["tanh", "sin", "atan"])
            bound = math.pi / 2 if choice == "atan" else 1.0
            return Generated(f"3*{choice}({g.text})", -3 * bound, 3 * bound, g.vector, g.kinks)
        if lo == -1.3:      # tan sec
            choice = self.rng.choice(["tanh", "sin"])
            return Generated(f"{choice}({g.text})", -1.0, 1.0, g.vector, g.kinks)
        # csc cot: [0.3, 2.8]
        choice = self.rng.choice(["tanh", "sin"])
        return Generated(f"(1.5 + {choice}({g.text}))", 0.5, 2.5, g.vector, g.kinks)

    def _positive(self, g: Generated) -> Generated:
        """``g`` made >= 0.2 everywhere, by one of a few transformations."""
        r = self.rng.random()
        if r < 0.35:
            sq = _int_power(g.lo, g.hi, 2)
            return Generated(f"(1 + ({g.text})^2)", 1 + sq[0], 1 + sq[1], g.vector, g.kinks)
        if r < 0.6 and g.magnitude <= 6:
            return Generated(f"exp({g.text})", math.exp(g.lo), math.exp(g.hi), g.vector, g.kinks)
        if r < 0.8 and g.magnitude <= 6:
            lo, hi = image("cosh", g.lo, g.hi)
            return Generated(f"cosh({g.text})", lo, hi, g.vector, g.kinks)
        return Generated(f"(2 + sin({g.text}))", 1.0, 3.0, g.vector, g.kinks)

    def _squash(self, g: Generated) -> Generated:
        if g.magnitude <= MAX_MAGNITUDE and math.isfinite(g.lo) and math.isfinite(g.hi):
            return g
        choice = self.rng.choice(["tanh", "atan"])
        bound = 1.0 if choice == "tanh" else math.pi / 2
        return Generated(f"{choice}({g.text})", -bound, bound, g.vector, g.kinks)


def _int_power(lo: float, hi: float, k: int) -> tuple[float, float]:
    cands = [lo ** k, hi ** k]
    if k % 2 == 0 and lo <= 0 <= hi:
        cands.append(0.0)
    return (min(cands), max(cands))


def _is_number(text: str) -> bool:
    return text in ("pi", "e") or text.replace(".", "", 1).isdigit()


def _is_atom(text: str) -> bool:
    return text.isidentifier() or _is_number(text)
