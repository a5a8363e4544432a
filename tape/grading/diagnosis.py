"""Name the mistake behind a wrong derivative, as a teacher grading by hand would.

The expression tree is differentiated rule by rule (sum, product, quotient, power, chain...),
once correctly and then once for every classic mistake at every place it could happen: the
chain rule left out at a composition, the product rule taken as f'g', the quotient rule with
its numerator reversed or its denominator not squared, a^x differentiated as x a^(x-1), ln(u)
as 1/u, the sign of d/dx cos or of d/dx 1/x, a wrong power, a constant factor dropped, a term
kept or left out. Each mistaken derivative is compared with the answer in high precision at
the counterexample and at points where the answer was right; the first match in ``KINDS``
order (most specific first) is the diagnosis. No match: None - never a guess.

Then, less specific, the answer may be the derivative times a constant (``constant factor``,
or ``sign`` for -1) or plus a constant (``extra term``).

Runs in a child process (``timelimit.run_optional``): SymPy work on a student's expression has
no upper bound on time.
"""
from __future__ import annotations

from decimal import Decimal
from fractions import Fraction
from typing import Optional, Sequence

#: the diagnosis kinds of SPEC section 5, most specific first
KINDS = ["chain rule", "product rule", "quotient rule", "exponential", "logarithm",
         "inverse trigonometric", "trigonometric", "power rule", "sign", "extra term",
         "missing term", "constant factor"]
#: trees with more nodes than this get no diagnosis (each mistake is one more differentiation)
MAX_NODES = 200
#: relative agreement for a mistaken derivative to count as the answer
RTOL = 1e-9


class Mistake:
    """One mistake at one node: the node's derivative as the mistaken rule gives it."""

    def __init__(self, node, kind: str, derivative, detail: str):
        self.node, self.kind, self.derivative, self.detail = node, kind, derivative, detail


def diagnose(tree, answer_tree, variables: list[str], along: list[str],
             points: Sequence[tuple]) -> Optional[dict]:
    """``{"kind", "detail"}`` for the classic mistake that gives the answer, or None.

    ``points`` are float tuples in ``variables`` order: the first a counterexample, the others
    points where the answer is right (a mistaken derivative must match it everywhere)."""
    from ..expr import highprec as H
    from ..expr.tree import fold

    if fold(tree, lambda node, kids: 1 + sum(kids)) > MAX_NODES:
        return None
    rules = _Rules(variables, along[0])
    symbols = [rules.S.symbol(n) for n in variables]
    rest = [rules.S.symbol(n) for n in along[1:]]
    answer = H.compile_tree(answer_tree, variables)
    at = [H.at(p) for p in points]
    wanted = [H.value_at(answer, p) for p in at]
    checks = [(p, a) for p, a in zip(at, wanted) if a is not None]
    if not checks:
        return None

    def whole(override):
        out = rules.d(tree, override)
        return rules.S.derivative(out, rest) if rest else out

    def matches(expr) -> bool:
        fn = H.compile_sympy(expr, symbols)
        for p, a in checks:
            v = H.value_at(fn, p)
            # the mistake must give the answer to 12 digits, not just nearly (a third
            # derivative off by 1 in 10^9 is not explained by a slip that cancels out)
            if v is None or H.differ(v, a):
                return False
        return True

    mistakes = sorted(rules.mistakes(tree), key=lambda m: KINDS.index(m.kind))
    for m in mistakes:
        try:
            mistaken = whole({id(m.node): m.derivative})
            if matches(mistaken):
                detail = m.detail
                if m.kind == "missing term":
                    detail = _left_out(rules, m, whole({}) - mistaken, len(along))
                return {"kind": m.kind, "detail": detail}
        except (TypeError, ValueError, ZeroDivisionError):
            continue
    return _scaled_or_shifted(whole({}), symbols, checks, H, rules)


_ORDINAL = {1: "derivative", 2: "second derivative", 3: "third derivative"}


def _left_out(rules, m, missing, order: int) -> str:
    """A term left out of a sum, with its sign, and what is missing from the derivative of the
    order asked (``missing``: the right derivative less the mistaken one)."""
    node, sp = m.node, rules.sp
    gap = rules.d(node, {}) - m.derivative
    term = None
    for child, s in ((node.left, 1), (node.right, 1 if node.op == "+" else -1)):
        if sp.simplify(s * rules.d(child, {}) - gap) == 0:
            term = s * rules.value(child)
    what = _ORDINAL.get(order, f"derivative of order {order}")
    missing = rules.render(sp.simplify(missing))
    if term is None:
        return f"a term of the sum is missing: its {what} is {missing}"
    return f"the term {rules.render(term)} was left out: its {what}, {missing}, is missing"


def _scaled_or_shifted(correct, symbols, checks, H, rules) -> Optional[dict]:
    fn = H.compile_sympy(correct, symbols)
    pairs = [(H.value_at(fn, p), a) for p, a in checks]
    return scaled_or_shifted([(d, a) for d, a in pairs if d is not None], rules.render(correct))


def scaled_or_shifted(pairs: list, derivative: str) -> Optional[dict]:
    """The answer as k * derivative (``constant factor``; ``sign`` for k = -1) or derivative + c
    (``extra term``), judged from high-precision ``(derivative, answer)`` pairs at two or more
    points; None otherwise. ``derivative`` is the right derivative as text."""
    from ..expr import highprec as H

    mp = H.mpmath()
    if len(pairs) < 2:
        return None
    with mp.workdps(H.DIGITS):
        nonzero = [(d, a) for d, a in pairs if d != 0]
        if len(nonzero) >= 2:
            ratios = [a / d for d, a in nonzero]
            k = _exact(mp, ratios[0])
            if k is not None and k != 1 and all(not H.differ(r, ratios[0]) for r in ratios):
                if k == -1:
                    return {"kind": "sign", "detail": f"the sign is wrong: the derivative is "
                                                      f"{derivative}, and the answer is its "
                                                      f"negative"}
                return {"kind": "constant factor",
                        "detail": f"the answer is {k} times the derivative "
                                  f"{derivative}: a constant factor is wrong"}
        shifts = [a - d for d, a in pairs]
        c = _exact(mp, shifts[0])
        if c is not None and c != 0 and all(not H.differ(s, shifts[0]) for s in shifts):
            return {"kind": "extra term",
                    "detail": f"the answer has an extra constant term {c}: "
                              f"the derivative is {derivative}"}
    return None


def _exact(mp, value):
    """``value`` as an exact fraction (``Fraction``, shown as ``3`` or ``-2/3``) when it is
    one to 30 digits with a denominator up to 10**6, else None: a factor or a term the
    diagnosis names is stated exactly or not at all."""
    guess = Fraction(mp.nstr(value, 35, min_fixed=-mp.inf, max_fixed=mp.inf)
                     ).limit_denominator(10 ** 6)
    if abs(value - mp.mpf(guess.numerator) / guess.denominator) > \
            mp.mpf(10) ** -30 * max(1, abs(value)):
        return None
    return _Exact(guess)


class _Exact(Fraction):
    """A fraction shown as people write it: ``3``, ``2.5`` (a decimal that ends), ``-2/3``."""

    def __str__(self) -> str:
        q = self.denominator
        while q % 2 == 0:
            q //= 2
        while q % 5 == 0:
            q //= 5
        if self.denominator != 1 and q == 1:
            return format(Decimal(self.numerator) / Decimal(self.denominator), "f")
        return Fraction.__str__(self)


class _Rules:
    """Rule-by-rule differentiation of expression trees along one variable, with mistakes:
    a builder of ``calculus.rules`` (SymPy expressions) whose ``known`` hook puts a mistaken
    derivative in place of a node's own."""

    flatten = False        # every binary node is one rule application: a mistake can be at any
    rewrites = False       # sigmoid, log(u, b) ... are differentiated as they stand

    def __init__(self, variables: list[str], wrt: str):
        from ..expr import symbolic as S

        self.S = S
        self.sp = S.sympy()
        self.sizes = {n: None for n in variables}
        self.x = S.symbol(wrt)
        self.t = S.symbol("_t")
        self.wrt = wrt
        builder = S.SympyBuilder(quotient_sign=False)
        for op in ("number", "add", "sub", "mul", "div", "neg", "power", "call", "sign"):
            setattr(self, op, getattr(builder, op))
        # caches keyed by id hold their node too, so that no id is reused by another node
        self._values: dict = {}
        self._depends: dict = {}
        self._correct: dict = {}
        self._override: dict = {}

    # ----------------------------------------------------------------- helpers
    def value(self, node):
        key = id(node)
        if key not in self._values:
            self._values[key] = (node, self.S.as_scalar(self.S.to_sympy(node, self.sizes)))
        return self._values[key][1]

    lift = value

    def depends(self, node) -> bool:
        key = id(node)
        if key not in self._depends:
            from ..expr.tree import free_variables

            self._depends[key] = (node, self.wrt in free_variables(node))
        return self._depends[key][1]

    def render(self, expr) -> str:
        return self.S.render(expr)

    def outer(self, name: str, u):
        """f'(u) for a one-argument function of the language: the function table's textbook
        form, as the ``d/dx`` line and ``tape diff --steps`` write it; SymPy's where the table
        has none."""
        from ..expr.functions import FUNCTIONS, call_sympy

        template = FUNCTIONS[name].derivative
        if template is not None:
            return template(self, u)
        return self.S._drop_deltas(self.sp.diff(call_sympy(self.sp, name, [self.t]), self.t)
                                   ).subs(self.t, u)

    def no_rule(self, node):
        return self.S.derivative(self.value(node), [self.x])

    # ----------------------------------------------------------------- the rules
    def d(self, node, override: dict):
        """The derivative of ``node``, with the derivatives of the nodes in ``override``
        replaced (a mistake made there)."""
        from ..calculus.rules import differentiate

        self._override = override
        return differentiate(node, self.wrt, self)

    def known(self, node):
        hit = self._override.get(id(node))
        if hit is None and not self._override:
            hit = self._correct.get(id(node), (None, None))[1]
        return hit

    def done(self, node, derivative) -> None:
        if not self._override:
            self._correct[id(node)] = (node, derivative)

    # ----------------------------------------------------------------- the mistakes
    def mistakes(self, tree) -> list[Mistake]:
        from ..expr import tree as E

        out: list[Mistake] = []
        stack = [tree]
        while stack:
            node = stack.pop()
            stack.extend(reversed(E.children(node)))
            if not self.depends(node):
                continue
            if isinstance(node, E.Binary):
                out.extend(self._binary_mistakes(node))
            elif isinstance(node, E.Call) and len(node.args) == 1:
                out.extend(self._call_mistakes(node))
        return out

    def _say(self, node, kind, wrong, what: str) -> Mistake:
        right = self.d(node, {})
        text = f"{what}: its derivative is {self.render(right)}, not {self.render(wrong)}"
        return Mistake(node, kind, wrong, text)

    def _binary_mistakes(self, node) -> list[Mistake]:
        u, v = self.value(node.left), self.value(node.right)
        du, dv = self.d(node.left, {}), self.d(node.right, {})
        lu, lv = self.depends(node.left), self.depends(node.right)
        out = []
        if node.op in "+-":
            sign = 1 if node.op == "+" else -1
            for side, dside, varies, s in ((u, du, lu, 1), (v, dv, lv, sign)):
                if varies:
                    out.append(Mistake(node, "missing term", du + sign * dv - s * dside,
                                       f"the derivative of the term {self.render(side)} "
                                       f"({self.render(s * dside)}) is missing"))
                elif side != 0:
                    out.append(Mistake(node, "extra term", du + sign * dv + s * side,
                                       f"the constant term {self.render(s * side)} was kept; "
                                       f"its derivative is 0"))
        elif node.op == "*":
            if lu and lv:
                what = f"the product rule was not applied to {self.render(u * v)}"
                out += [self._say(node, "product rule", du * dv, what),
                        self._say(node, "product rule", du * v, what),
                        self._say(node, "product rule", u * dv, what)]
            else:
                const, dvar = (u, dv) if lv else (v, du)
                out.append(self._say(node, "constant factor", dvar,
                                     f"the constant factor {self.render(const)} was dropped "
                                     f"from {self.render(u * v)}"))
        elif node.op == "/":
            if lu and lv:
                what = f"the quotient rule was misapplied to {self.render(u / v)}"
                out += [self._say(node, "quotient rule", (u * dv - du * v) / v ** 2,
                                  what + " (numerator reversed)"),
                        self._say(node, "quotient rule", (du * v - u * dv) / v,
                                  what + " (denominator not squared)"),
                        self._say(node, "quotient rule", du / dv, what)]
            elif lv:
                out.append(self._say(node, "sign", u * dv / v ** 2,
                                     f"the sign of d/d{self.wrt} {self.render(u / v)} is wrong"))
                out.append(self._say(node, "quotient rule", -u * dv / v,
                                     f"the denominator of the derivative of "
                                     f"{self.render(u / v)} was not squared"))
            else:
                out.append(self._say(node, "constant factor", du,
                                     f"the constant divisor {self.render(v)} was dropped "
                                     f"from {self.render(u / v)}"))
        else:
            out.extend(self._power_mistakes(node, u, v, du, dv, lu, lv))
        return out

    def _power_mistakes(self, node, u, v, du, dv, lu, lv) -> list[Mistake]:
        sp = self.sp
        out = []
        shown = self.render(u ** v)
        if lu and not lv:
            if du != 1:
                out.append(self._say(node, "chain rule", v * u ** (v - 1),
                                     f"the chain rule was not applied to {shown}"))
            what = f"the power rule was misapplied to {shown}"
            out += [self._say(node, "power rule", v * u ** v * du, what),
                    self._say(node, "power rule", u ** (v - 1) * du, what),
                    self._say(node, "power rule", v * u ** (v + 1) * du, what)]
        elif lv and not lu:
            if dv != 1:
                out.append(self._say(node, "chain rule", u ** v * sp.log(u),
                                     f"the chain rule was not applied to {shown}"))
            what = f"{shown} is an exponential, not a power"
            out.append(self._say(node, "exponential", v * u ** (v - 1) * dv, what))
            if u != sp.E:
                out.append(self._say(node, "exponential", u ** v * dv,
                                     f"the factor ln({self.render(u)}) is missing from the "
                                     f"derivative of {shown}"))
        else:
            out.append(self._say(node, "power rule", v * u ** (v - 1) * du,
                                 f"the power rule does not apply to {shown}, whose exponent "
                                 f"varies too"))
            out.append(self._say(node, "exponential", u ** v * sp.log(u) * dv,
                                 f"{shown} is not only an exponential: its base varies too"))
        return out

    def _call_mistakes(self, node) -> list[Mistake]:
        name = node.name
        u = self.value(node.args[0])
        du = self.d(node.args[0], {})
        shown = self.render(self.value(node))
        out = []
        if du != 1:
            kind = "logarithm" if name in ("ln", "log") else "chain rule"
            out.append(self._say(node, kind, self.outer(name, u),
                                 f"the chain rule was not applied to {shown}"))
        for kind, wrong, what in self._rule_slips(name, u):
            out.append(self._say(node, kind, wrong * du, what.format(shown)))
        return out

    def _rule_slips(self, name: str, u) -> list[tuple]:
        """Wrong derivative formulas for one function, as ``(kind, f'(u) taken, what)``."""
        sp = self.sp
        sign = "the sign of the derivative of {} is wrong"
        trig = "the derivative of {} is mixed up with another trigonometric one"
        inverse = "the derivative of {} is mixed up with another inverse trigonometric one"
        table = {
            "sin": [("sign", -sp.cos(u), sign)],
            "cos": [("sign", sp.sin(u), sign)],
            "tan": [("trigonometric", sp.sec(u) * sp.tan(u), trig),
                    ("trigonometric", sp.sec(u), trig), ("sign", -sp.sec(u) ** 2, sign)],
            "sec": [("trigonometric", sp.sec(u) ** 2, trig),
                    ("trigonometric", sp.tan(u) ** 2, trig),
                    ("sign", -sp.sec(u) * sp.tan(u), sign)],
            "csc": [("sign", sp.csc(u) * sp.cot(u), sign),
                    ("trigonometric", -sp.csc(u) ** 2, trig)],
            "cot": [("sign", sp.csc(u) ** 2, sign), ("trigonometric", -sp.sec(u) ** 2, trig)],
            "sinh": [("sign", -sp.cosh(u), sign)],
            "cosh": [("sign", -sp.sinh(u), sign)],
            "exp": [("exponential", u * sp.exp(u - 1),
                     "{} is an exponential, not a power")],
            "log": [("logarithm", sp.log(u) / u, "the derivative of {} is 1/u times u'")],
            "ln": [("logarithm", sp.log(u) / u, "the derivative of {} is 1/u times u'")],
            "log2": [("logarithm", 1 / u, "the factor 1/ln(2) is missing from {}")],
            "log10": [("logarithm", 1 / u, "the factor 1/ln(10) is missing from {}")],
            "sqrt": [("power rule", 1 / sp.sqrt(u), "the power rule was misapplied to {}"),
                     ("power rule", sp.sqrt(u) / 2, "the power rule was misapplied to {}")],
            "asin": [("inverse trigonometric", -1 / sp.sqrt(1 - u ** 2), inverse),
                     ("inverse trigonometric", 1 / sp.sqrt(1 + u ** 2), inverse),
                     ("inverse trigonometric", 1 / (1 - u ** 2), inverse)],
            "acos": [("inverse trigonometric", 1 / sp.sqrt(1 - u ** 2), inverse),
                     ("inverse trigonometric", -1 / sp.sqrt(1 + u ** 2), inverse)],
            "atan": [("inverse trigonometric", 1 / sp.sqrt(1 + u ** 2), inverse),
                     ("inverse trigonometric", 1 / (1 - u ** 2), inverse),
                     ("inverse trigonometric", -1 / (1 + u ** 2), inverse),
                     ("inverse trigonometric", 1 / sp.sqrt(1 - u ** 2), inverse)],
        }
        return table.get(name, [])


def _short(mp, value) -> str:
    """A constant in 6 significant digits, a whole number without ``.0`` (``1``, ``2.5``)."""
    text = mp.nstr(value, 6)
    return text[:-2] if text.endswith(".0") else text
