"""Name the mistake behind a wrong derivative, as a teacher grading by hand would.

The expression tree is differentiated rule by rule (the one table of rules,
``calculus.rules``), once correctly and then once for every classic mistake at every place it
could happen: the chain rule left out at a composition, the product rule taken as f'g', the
quotient rule with its numerator reversed or its denominator not squared, a^x differentiated
as x a^(x-1), ln(u) as 1/u, the sign of d/dx cos or of d/dx 1/x, a wrong power, a constant
factor dropped, a term kept or left out. Each mistaken derivative is compared with the answer
in high precision at the counterexample and at points where the answer was right; the first
match in ``KINDS`` order (most specific first) is the diagnosis. No match: None - never a
guess.

Then, less specific, the answer may be the derivative times a constant (``constant factor``,
or ``sign`` for -1) or plus a constant (``extra term``).

The mistakes are written once, over a builder of the rules table: ``diagnose`` builds tape's
own trees (``treediff``'s constructors, evaluated by ``highprec.compile_tree``), in-process
and without SymPy, and raises ``rules.NoRule`` when a function of the tree has no rule there;
``diagnose_symbolic`` builds SymPy expressions for those, and runs in a child process
(``timelimit.run_optional``): SymPy work on a student's expression has no upper bound on time.
"""
from __future__ import annotations

import time
from decimal import Decimal
from fractions import Fraction
from typing import Optional, Sequence

#: the diagnosis kinds of SPEC section 5, most specific first
KINDS = ["chain rule", "product rule", "quotient rule", "exponential", "logarithm",
         "inverse trigonometric", "trigonometric", "power rule", "sign", "extra term",
         "missing term", "constant factor"]
#: trees with more nodes than this get no diagnosis (each mistake is one more differentiation)
MAX_NODES = 200
#: points where the answer is defined that a mistake must match (when as many are given)
ENOUGH_CHECKS = 3
#: relative agreement for a mistaken derivative to count as the answer
RTOL = 1e-9


class Mistake:
    """One mistake at one node: the node's derivative as the mistaken rule gives it."""

    def __init__(self, node, kind: str, derivative, detail: str, term=None):
        self.node, self.kind, self.derivative, self.detail = node, kind, derivative, detail
        #: for ``missing term``: the term of the sum left out, signed
        self.term = term


def diagnose(tree, answer_tree, variables: list[str], along: list[str],
             points: Sequence[tuple], deadline: Optional[float] = None) -> Optional[dict]:
    """``{"kind", "detail"}`` for the classic mistake that gives the answer, or None; on tape's
    own trees, without SymPy. Raises ``rules.NoRule`` when a function of the tree has no rule
    here (``diagnose_symbolic`` is the way then).

    ``points`` are float tuples in ``variables`` order: the first a counterexample, the others
    points where the answer is right (a mistaken derivative must match it everywhere). Past
    ``deadline`` (``time.monotonic()``) the search gives up: None."""
    from ..calculus.treediff import _exp_form
    from ..expr.tree import fold

    if fold(tree, lambda node, kids: 1 + sum(kids)) > MAX_NODES:
        return None
    return _search(_TreeRules(variables, along), fold(tree, _exp_form), answer_tree,
                   variables, points, deadline)


def diagnose_symbolic(tree, answer_tree, variables: list[str], along: list[str],
                      points: Sequence[tuple]) -> Optional[dict]:
    """``diagnose`` with SymPy expressions, for trees with a function that has no rule of
    tape's own (SymPy differentiates it); for a child process."""
    from ..expr.tree import fold

    if fold(tree, lambda node, kids: 1 + sum(kids)) > MAX_NODES:
        return None
    return _search(_SympyRules(variables, along), tree, answer_tree, variables, points, None)


def _search(rules, tree, answer_tree, variables, points, deadline) -> Optional[dict]:
    from ..expr import highprec as H

    answer = H.compile_tree(answer_tree, variables)
    at = [H.at(p) for p in points]
    wanted = [H.value_at(answer, p) for p in at]
    checks = [(p, a) for p, a in zip(at, wanted) if a is not None]
    distinct = {tuple(map(float, p)) for p in points}
    if len({tuple(map(float, p)) for p, _ in checks}) < min(len(distinct), ENOUGH_CHECKS):
        return None         # matching at 0 and 1 alone names a mistake on too little
    correct = rules.whole(tree, {})

    def matches(expr) -> bool:
        fn = rules.compile(expr)
        for p, a in checks:
            v = H.value_at(fn, p)
            # the mistake must give the answer to 12 digits, not just nearly (a third
            # derivative off by 1 in 10^9 is not explained by a slip that cancels out)
            if v is None or H.differ(v, a):
                return False
        return True

    mistakes = sorted(rules.mistakes(tree), key=lambda m: KINDS.index(m.kind))
    for m in mistakes:
        if deadline is not None and time.monotonic() > deadline:
            return None
        try:
            mistaken = rules.whole(tree, {id(m.node): m.derivative})
            if matches(mistaken):
                detail = m.detail
                if m.kind == "missing term":
                    detail = _left_out(rules, m, rules.sub(correct, mistaken), len(rules.along))
                return {"kind": m.kind, "detail": detail}
        except (TypeError, ValueError, ZeroDivisionError):
            continue
    fn = rules.compile(correct)
    pairs = [(H.value_at(fn, p), a) for p, a in checks]
    return scaled_or_shifted([(d, a) for d, a in pairs if d is not None],
                             rules.render(correct))


_ORDINAL = {1: "derivative", 2: "second derivative", 3: "third derivative"}


def _left_out(rules, m, missing, order: int) -> str:
    """A term left out of a sum, with its sign, and what is missing from the derivative of the
    order asked (``missing``: the right derivative less the mistaken one)."""
    what = _ORDINAL.get(order, f"derivative of order {order}")
    missing = rules.render(rules.tidy(missing))
    return f"the term {rules.render(m.term)} was left out: its {what}, {missing}, is missing"


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


#: the sizes of a factor or a term the diagnosis names exactly: a fraction with denominator up
#: to 10**6, and a numerator short enough to read
EXACT_LEAST, EXACT_MOST = 1e-6, 1e15


def _exact(mp, value):
    """``value`` as an exact fraction (``Fraction``, shown as ``3`` or ``-2/3``) when it is
    one to 30 digits with a denominator up to 10**6, else None: a factor or a term the
    diagnosis names is stated exactly or not at all."""
    if value != 0 and not EXACT_LEAST <= abs(value) <= EXACT_MOST:
        # a fraction with denominator up to 10**6 is 0 or at least 10**-6; written out in
        # full, the ratio of x^(10^10) to 2x would be billions of digits
        return None
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
    a builder of ``calculus.rules`` whose ``known`` hook puts a mistaken derivative in place of
    a node's own. The mistakes are written with the builder's operations (``add``, ``mul``,
    ``call``...); a subclass says what they build (``lift``, ``render``, ``compile``,
    ``further``: the derivative along the other names asked, ``tidy``, ``value_is``)."""

    flatten = False        # every binary node is one rule application: a mistake can be at any
    rewrites = False       # sigmoid, log(u, b) ... are differentiated as they stand

    def __init__(self, variables: list[str], along: list[str]):
        self.variables, self.along = variables, along
        self.wrt = along[0]
        # caches keyed by id hold their node too, so that no id is reused by another node
        self._depends: dict = {}
        self._correct: dict = {}
        self._override: dict = {}

    # ----------------------------------------------------------------- helpers
    def value(self, node):
        return self.lift(node)

    def depends(self, node) -> bool:
        key = id(node)
        if key not in self._depends:
            from ..expr.tree import free_variables

            self._depends[key] = (node, self.wrt in free_variables(node))
        return self._depends[key][1]

    def signed(self, sign: int, expr):
        return expr if sign > 0 else self.neg(expr)

    def whole(self, tree, override: dict):
        """The derivative asked for, with the mistakes of ``override`` made along the first
        name."""
        out = self.d(tree, override)
        return self.further(out, self.along[1:]) if len(self.along) > 1 else out

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
        mul, div, power, render = self.mul, self.div, self.power, self.render
        shown = render(self.value(node))        # the node as read
        out = []
        if node.op in "+-":
            sign = 1 if node.op == "+" else -1
            right = self.add(du, self.signed(sign, dv))
            for side, dside, varies, s in ((u, du, lu, 1), (v, dv, lv, sign)):
                if varies:
                    out.append(Mistake(node, "missing term",
                                       self.sub(right, self.signed(s, dside)),
                                       f"the derivative of the term {render(side)} "
                                       f"({render(self.signed(s, dside))}) is missing",
                                       term=self.signed(s, side)))
                elif not self.value_is(side, 0):
                    out.append(Mistake(node, "extra term", self.add(right, self.signed(s, side)),
                                       f"the constant term {render(self.signed(s, side))} was "
                                       f"kept; its derivative is 0"))
        elif node.op == "*":
            if lu and lv:
                what = f"the product rule was not applied to {shown}"
                out += [self._say(node, "product rule", mul(du, dv), what),
                        self._say(node, "product rule", mul(du, v), what),
                        self._say(node, "product rule", mul(u, dv), what)]
            else:
                const, dvar = (u, dv) if lv else (v, du)
                out.append(self._say(node, "constant factor", dvar,
                                     f"the constant factor {render(const)} was dropped "
                                     f"from {shown}"))
        elif node.op == "/":
            if lu and lv:
                what = f"the quotient rule was misapplied to {shown}"
                out += [self._say(node, "quotient rule",
                                  div(self.sub(mul(u, dv), mul(du, v)), power(v, 2)),
                                  what + " (numerator reversed)"),
                        self._say(node, "quotient rule",
                                  div(self.sub(mul(du, v), mul(u, dv)), v),
                                  what + " (denominator not squared)"),
                        self._say(node, "quotient rule", div(du, dv), what)]
            elif lv:
                out.append(self._say(node, "sign", div(mul(u, dv), power(v, 2)),
                                     f"the sign of d/d{self.wrt} {shown} is wrong"))
                out.append(self._say(node, "quotient rule", div(self.neg(mul(u, dv)), v),
                                     f"the denominator of the derivative of {shown} was not "
                                     f"squared"))
            else:
                out.append(self._say(node, "constant factor", du,
                                     f"the constant divisor {render(v)} was dropped "
                                     f"from {shown}"))
        else:
            out.extend(self._power_mistakes(node, u, v, du, dv, lu, lv))
        return out

    def _power_mistakes(self, node, u, v, du, dv, lu, lv) -> list[Mistake]:
        mul, power, call = self.mul, self.power, self.call
        out = []
        shown = self.render(self.value(node))
        if lu and not lv:
            if not self.value_is(du, 1):
                out.append(self._say(node, "chain rule", mul(v, power(u, self.sub(v, 1))),
                                     f"the chain rule was not applied to {shown}"))
            what = f"the power rule was misapplied to {shown}"
            out += [self._say(node, "power rule", mul(mul(v, power(u, v)), du), what),
                    self._say(node, "power rule", mul(power(u, self.sub(v, 1)), du), what),
                    self._say(node, "power rule",
                              mul(mul(v, power(u, self.add(v, 1))), du), what)]
        elif lv and not lu:
            if not self.value_is(dv, 1):
                out.append(self._say(node, "chain rule", mul(power(u, v), call("log", u)),
                                     f"the chain rule was not applied to {shown}"))
            what = f"{shown} is an exponential, not a power"
            out.append(self._say(node, "exponential",
                                 mul(mul(v, power(u, self.sub(v, 1))), dv), what))
            if not self.is_e(u):
                out.append(self._say(node, "exponential", mul(power(u, v), dv),
                                     f"the factor ln({self.render(u)}) is missing from the "
                                     f"derivative of {shown}"))
        else:
            out.append(self._say(node, "power rule", mul(mul(v, power(u, self.sub(v, 1))), du),
                                 f"the power rule does not apply to {shown}, whose exponent "
                                 f"varies too"))
            out.append(self._say(node, "exponential",
                                 mul(mul(power(u, v), call("log", u)), dv),
                                 f"{shown} is not only an exponential: its base varies too"))
        return out

    def _call_mistakes(self, node) -> list[Mistake]:
        name = node.name
        u = self.value(node.args[0])
        du = self.d(node.args[0], {})
        shown = self.render(self.value(node))
        out = []
        if not self.value_is(du, 1):
            kind = "logarithm" if name in ("ln", "log") else "chain rule"
            out.append(self._say(node, kind, self.outer(name, u),
                                 f"the chain rule was not applied to {shown}"))
        for kind, wrong, what in self._rule_slips(name, u):
            out.append(self._say(node, kind, self.mul(wrong, du), what.format(shown)))
        return out

    def _rule_slips(self, name: str, u) -> list[tuple]:
        """Wrong derivative formulas for one function, as ``(kind, f'(u) taken, what)``."""
        call, div, mul, neg, power, sub, add = (self.call, self.div, self.mul, self.neg,
                                                self.power, self.sub, self.add)

        def f(g):
            return call(g, u)

        def root(a):
            return call("sqrt", a)

        sign = "the sign of the derivative of {} is wrong"
        trig = "the derivative of {} is mixed up with another trigonometric one"
        inverse = "the derivative of {} is mixed up with another inverse trigonometric one"
        power_rule = "the power rule was misapplied to {}"
        log_rule = "the derivative of {} is 1/u times u'"
        table = {
            "sin": lambda: [("sign", neg(f("cos")), sign)],
            "cos": lambda: [("sign", f("sin"), sign)],
            "tan": lambda: [("trigonometric", mul(f("sec"), f("tan")), trig),
                            ("trigonometric", f("sec"), trig),
                            ("sign", neg(power(f("sec"), 2)), sign)],
            "sec": lambda: [("trigonometric", power(f("sec"), 2), trig),
                            ("trigonometric", power(f("tan"), 2), trig),
                            ("sign", neg(mul(f("sec"), f("tan"))), sign)],
            "csc": lambda: [("sign", mul(f("csc"), f("cot")), sign),
                            ("trigonometric", neg(power(f("csc"), 2)), trig)],
            "cot": lambda: [("sign", power(f("csc"), 2), sign),
                            ("trigonometric", neg(power(f("sec"), 2)), trig)],
            "sinh": lambda: [("sign", neg(f("cosh")), sign)],
            "cosh": lambda: [("sign", neg(f("sinh")), sign)],
            "exp": lambda: [("exponential", mul(u, call("exp", sub(u, 1))),
                             "{} is an exponential, not a power")],
            "log": lambda: [("logarithm", div(f("log"), u), log_rule)],
            "ln": lambda: [("logarithm", div(f("log"), u), log_rule)],
            "log2": lambda: [("logarithm", div(1, u), "the factor 1/ln(2) is missing from {}")],
            "log10": lambda: [("logarithm", div(1, u),
                               "the factor 1/ln(10) is missing from {}")],
            "sqrt": lambda: [("power rule", div(1, root(u)), power_rule),
                             ("power rule", div(root(u), 2), power_rule)],
            "asin": lambda: [("inverse trigonometric", neg(div(1, root(sub(1, power(u, 2))))),
                              inverse),
                             ("inverse trigonometric", div(1, root(add(1, power(u, 2)))),
                              inverse),
                             ("inverse trigonometric", div(1, sub(1, power(u, 2))), inverse)],
            "acos": lambda: [("inverse trigonometric", div(1, root(sub(1, power(u, 2)))),
                              inverse),
                             ("inverse trigonometric", neg(div(1, root(add(1, power(u, 2))))),
                              inverse)],
            "atan": lambda: [("inverse trigonometric", div(1, root(add(1, power(u, 2)))),
                              inverse),
                             ("inverse trigonometric", div(1, sub(1, power(u, 2))), inverse),
                             ("inverse trigonometric", neg(div(1, add(1, power(u, 2)))),
                              inverse),
                             ("inverse trigonometric", div(1, root(sub(1, power(u, 2)))),
                              inverse)],
        }
        slips = table.get(name)
        return slips() if slips else []


class _TreeRules(_Rules):
    """The mistakes as tape trees (``treediff.TreeBuilder``: numbers folded, like terms
    collected), evaluated by ``highprec.compile_tree``; a function without a rule in the
    function table raises ``rules.NoRule``."""

    def __init__(self, variables: list[str], along: list[str]):
        from ..calculus.treediff import TreeBuilder

        super().__init__(variables, along)
        builder = TreeBuilder()
        for op in ("number", "add", "sub", "mul", "div", "neg", "power", "call", "sign",
                   "lift"):
            setattr(self, op, getattr(builder, op))

    def outer(self, name: str, u):
        from ..expr.functions import FUNCTIONS
        from ..calculus.rules import NoRule

        template = FUNCTIONS[name].derivative
        if template is None:
            raise NoRule(name)
        return template(self, u)

    def no_rule(self, node):
        from ..calculus.rules import NoRule

        raise NoRule(getattr(node, "name", type(node).__name__))

    def further(self, expr, names: list[str]):
        from ..calculus.rules import differentiate
        from ..calculus.treediff import TreeBuilder

        for name in names:
            expr = differentiate(expr, name, TreeBuilder())
        return expr

    def render(self, expr) -> str:
        from ..expr.printer import read_as

        return read_as(expr)

    def tidy(self, expr):
        from ..calculus.treediff import simplest

        return simplest(expr)

    def compile(self, expr):
        from ..expr import highprec as H

        return H.compile_tree(expr, self.variables)

    def value_is(self, expr, k: int) -> bool:
        from ..calculus.treediff import exact_value

        return exact_value(expr) == k

    @staticmethod
    def is_e(expr) -> bool:
        from ..expr import tree as E

        return isinstance(expr, E.Constant) and expr.name == "e"


class _SympyRules(_Rules):
    """The mistakes as SymPy expressions, for functions without a rule of tape's own (SymPy
    differentiates them), evaluated by ``highprec.compile_sympy``."""

    def __init__(self, variables: list[str], along: list[str]):
        from ..expr import symbolic as S

        super().__init__(variables, along)
        self.S = S
        self.sp = S.sympy()
        self.sizes = {n: None for n in variables}
        self.t = S.symbol("_t")
        builder = S.SympyBuilder(quotient_sign=False)
        for op in ("number", "add", "sub", "mul", "div", "neg", "power", "call", "sign"):
            setattr(self, op, getattr(builder, op))
        self._values: dict = {}

    def value(self, node):
        key = id(node)
        if key not in self._values:
            self._values[key] = (node, self.S.as_scalar(self.S.to_sympy(node, self.sizes)))
        return self._values[key][1]

    lift = value

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
        return self.S.derivative(self.value(node), [self.S.symbol(self.wrt)])

    def further(self, expr, names: list[str]):
        return self.S.derivative(expr, [self.S.symbol(n) for n in names])

    def render(self, expr) -> str:
        return self.S.render(expr)

    def tidy(self, expr):
        return self.sp.simplify(expr)

    def compile(self, expr):
        from ..expr import highprec as H

        return H.compile_sympy(expr, [self.S.symbol(n) for n in self.variables])

    @staticmethod
    def value_is(expr, k: int) -> bool:
        return expr == k

    def is_e(self, expr) -> bool:
        return expr == self.sp.E
