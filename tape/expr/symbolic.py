"""The symbolic side: expression tree -> SymPy, derivatives, tidy forms, exact evaluation.

SymPy is imported lazily (``sympy()``), so only the code paths that need it load it: ``--check``,
``tape diff`` and ``tape check``. Everything here is plain, synchronous SymPy work; callers run it
under a time limit with ``timelimit.run_limited``.

The lowering is one walker (``to_sympy``) over the same tree ``lower.to_tape`` walks, reading
each function's SymPy builder from the single table in ``functions.py``. Variables are real
symbols; a vector variable ``x`` of length k becomes the list of symbols ``x[0] .. x[k-1]``, and
vector values are Python lists, combined elementwise like the batched tape values.

>>> from tape.expr.parse import parse
>>> d = derivative(to_sympy(parse("x^2*y"), {"x": None, "y": None}), [symbol("x")])
>>> render(tidy(d))
'2*x*y'
"""
from __future__ import annotations

import math
from typing import Any, Sequence

from . import tree as E
from .errors import CLIError
from .functions import CONSTANTS, FUNCTIONS, call_sympy, sympy_function
from .parse import MAX_VECTOR_LENGTH

#: Expressions with more operations than this are shown as differentiated (``simplify`` is
#: superlinear and rarely helps on big expressions).
SIMPLIFY_LIMIT = 150
#: a simplified form is shown only when it has fewer than this fraction of the operations
SHORTER = 0.8
#: Working precision (decimal digits) of the exact evaluation.
DIGITS = 30


def sympy():
    """The SymPy module, imported on first use."""
    import sympy as sp

    return sp


def symbol(name: str):
    """The real SymPy symbol for a scalar variable or a vector component (``x[0]``)."""
    return sympy().Symbol(name, real=True)


def variable_symbols(sizes: dict[str, int | None]) -> dict[str, Any]:
    """Each variable's symbol, or list of component symbols for a vector variable."""
    return {name: symbol(name) if size is None else
            [symbol(f"{name}[{i}]") for i in range(size)]
            for name, size in sizes.items()}


def component_symbols(wrt: Sequence[str], sizes: dict[str, int | None]) -> list:
    """The differentiation components in ``wrt`` order, vectors flattened (like the tape's)."""
    table = variable_symbols({name: sizes[name] for name in wrt})
    out = []
    for name in wrt:
        value = table[name]
        out.extend(value if isinstance(value, list) else [value])
    return out


def infer_sizes(tree: E.Expr) -> dict[str, int | None]:
    """Variable sizes for symbolic work without points: a variable used only as ``x[i]`` is a
    vector long enough for its largest index; any other is a scalar. A vector function on a
    whole variable (``sum(x)``) has no length to go by: CLIError (exit 2)."""
    indexed: dict[str, int] = {}
    whole: set[str] = set()
    stack = [tree]
    while stack:
        node = stack.pop()
        if isinstance(node, E.Index) and isinstance(node.operand, E.Variable):
            need = node.index + 1 if node.index >= 0 else -node.index
            if need > MAX_VECTOR_LENGTH:   # refused before a single symbol is made
                raise CLIError(f"{node.operand.name}[{node.index}] needs a vector of {need:,} "
                               f"components; the limit is {MAX_VECTOR_LENGTH:,} components "
                               f"per vector variable")
            indexed[node.operand.name] = max(indexed.get(node.operand.name, 0), need)
            continue
        if isinstance(node, E.Variable):
            whole.add(node.name)
        if isinstance(node, E.Call) and FUNCTIONS[node.name].kind != "elementwise":
            raise CLIError(f"{node.name}() needs vectors of known length; without points, "
                           f"symbolic work takes scalar variables and indexed components "
                           f"like x[0]")
        stack.extend(E.children(node))
    for name in indexed:
        if name in whole:
            raise CLIError(f"{name!r} is used both as a vector ({name}[...]) and as a whole; "
                           f"symbolic work needs every vector component indexed")
    sizes: dict[str, int | None] = {n: None for n in whole}
    sizes.update(indexed)
    return sizes


# --------------------------------------------------------------------------- lowering

class _Terms(list):
    """A pending sum or product (``op`` is ``sp.Add`` or ``sp.Mul``), built in one call when
    used, so a 50,000-term ``x+x+...`` costs linear rather than quadratic time."""

    def __init__(self, op, items):
        super().__init__(items)
        self.op = op


def _number(sp, value: float):
    if math.isnan(value):
        return sp.nan
    if math.isinf(value):
        return sp.oo if value > 0 else -sp.oo
    if value.is_integer():
        return sp.Integer(int(value))
    return sp.Rational(repr(value))   # the decimal as typed: 0.1 -> 1/10


def _elementwise(fn, *args):
    """Apply ``fn`` to scalars, or componentwise when any argument is a vector (a list)."""
    length = next((len(a) for a in args if isinstance(a, list)), None)
    if length is None:
        return fn(*args)
    return [fn(*[a[i] if isinstance(a, list) else a for a in args]) for i in range(length)]


def to_sympy(tree: E.Expr, sizes: dict[str, int | None]):
    """Lower an expression tree to a SymPy expression (a list of them for a vector value).

    ``sizes`` maps every free variable to None (scalar) or its vector length.
    """
    sp = sympy()
    symbols = variable_symbols(sizes)

    def done(value):
        if isinstance(value, _Terms):
            return value.op(*[done(v) for v in value])
        if isinstance(value, list):
            return [done(v) for v in value]
        return value

    def is_vector(value):
        return isinstance(value, list) and not isinstance(value, _Terms)

    def collect(op, left, right, negate_right=False):
        if is_vector(left) or is_vector(right):
            fn = (lambda a, b: a - b) if negate_right else op
            return _elementwise(fn, done(left), done(right))
        if negate_right:
            right = -done(right)
        # each fold result is used exactly once, so the left sum may grow in place
        items = left if isinstance(left, _Terms) and left.op is op else _Terms(op, [done(left)])
        items.extend(right if isinstance(right, _Terms) and right.op is op else [done(right)])
        return items

    def visit(node, kids):
        if isinstance(node, E.Number):
            return _number(sp, node.value)
        if isinstance(node, E.Constant):
            return getattr(sp, CONSTANTS[node.name][1])
        if isinstance(node, E.Variable):
            if node.name not in symbols:
                raise CLIError(f"no value given for variable {node.name!r}")
            return symbols[node.name]
        if isinstance(node, E.Unary):
            operand = done(kids[0])
            return operand if node.op == "+" else _elementwise(lambda a: -a, operand)
        if isinstance(node, E.Binary):
            left, right = kids
            if node.op == "+":
                return collect(sp.Add, left, right)
            if node.op == "-":
                return collect(sp.Add, left, right, negate_right=True)
            if node.op == "*":
                return collect(sp.Mul, left, right)
            if node.op == "/":
                return _elementwise(lambda a, b: a / b, done(left), done(right))
            return _elementwise(lambda a, b: a ** b, done(left), done(right))
        if isinstance(node, E.Index):
            value = done(kids[0])
            if not isinstance(value, list):
                raise CLIError(f"only vectors can be indexed (at {node.index})")
            if not -len(value) <= node.index < len(value):
                raise CLIError(f"index {node.index} is out of range for a vector of "
                               f"length {len(value)}")
            return value[node.index]
        if isinstance(node, E.Call):
            return _call(sp, FUNCTIONS[node.name], [done(k) for k in kids])
        raise TypeError(f"unknown expression node {node!r}")

    return done(E.fold(tree, visit))


def _call(sp, function, args):
    make = sympy_function(sp, function.name)
    if function.kind == "elementwise":
        return _elementwise(make, *args)
    if any(not isinstance(a, list) for a in args):
        raise CLIError(f"{function.name} needs vector arguments (variables given as x=[1,2,3])")
    return make(*args)


def as_scalar(value):
    """A scalar target: a vector value is differentiated as the sum of its components."""
    return sympy().Add(*value) if isinstance(value, list) else value


def as_vector(value) -> list:
    """A vector target's components (a scalar is a vector of one)."""
    return list(value) if isinstance(value, list) else [value]


# --------------------------------------------------------------------------- derivatives

def derivative(expr, components: Sequence) -> Any:
    """The partial derivative of ``expr`` along each symbol in ``components`` in turn. An
    ``expr`` with no value anywhere raises ``UndefinedResult`` (SymPy's derivative of ``nan``
    is 0, which would print as if it meant something)."""
    sp = sympy()
    problem = undefined(expr, real=False)
    if problem is not None:
        raise UndefinedResult(f"the expression is {problem}; tape works with real numbers: "
                              f"check the constants in the expression")
    out = expr
    for c in components:
        out = sp.diff(out, c)
    return _drop_deltas(out)


class SympyBuilder:
    """The builder the function table's derivative templates (``functions.Function``) write
    SymPy expressions with (``steps.py``'s table rule, ``diagnosis.py``). ``sign(u)`` is
    written ``u/|u|``, so that a next order of steps has a quotient to differentiate by the
    rules; with ``quotient_sign=False`` it is SymPy's ``sign(u)``, defined at u = 0 (a
    diagnosis evaluates the derivative there) and written as the ``d/dx`` line writes it."""

    def __init__(self, quotient_sign: bool = True) -> None:
        self.sp = sympy()
        self.quotient_sign = quotient_sign

    def number(self, k: int):
        return self.sp.Integer(k)

    @staticmethod
    def add(a, b):
        return a + b

    @staticmethod
    def sub(a, b):
        return a - b

    @staticmethod
    def mul(a, b):
        return a * b

    def div(self, a, b):
        return self.sp.S(a) / b

    @staticmethod
    def neg(a):
        return -a

    @staticmethod
    def power(base, k: int):
        return base ** k

    def call(self, name: str, *args):
        return call_sympy(self.sp, name, list(args))

    def sign(self, u):
        return u / self.sp.Abs(u) if self.quotient_sign else self.sp.sign(u)


def _drop_deltas(expr):
    """Replace Dirac deltas (from ``abs``/``relu``/``sign``) by 0: the derivative everywhere
    except at the kink, which is what the tape computes too."""
    sp = sympy()
    if expr.has(sp.DiracDelta):
        expr = expr.replace(sp.DiracDelta, lambda *args: sp.S.Zero)
    if expr.has(sp.Derivative):
        # SymPy leaves d/dx sign(g(x)) (from cbrt = sign*|.|^(1/3)) and d/dx Heaviside(g(x))
        # unevaluated when g is not a symbol: also 0 away from the kink
        expr = expr.replace(lambda e: isinstance(e, sp.Derivative)
                            and e.expr.func in (sp.sign, sp.Heaviside), lambda e: sp.S.Zero)
    return expr


def tidy(expr):
    """A readable form: the derivative as SymPy gives it (the textbook product/chain-rule
    shape), unless ``factor_terms`` or ``simplify`` make it clearly shorter (fewer than
    ``SHORTER`` times the operations), e.g. a quotient rule collapsing to ``-2/(x - 1)**2``."""
    sp = sympy()
    if not isinstance(expr, sp.Basic) or expr.is_number and expr.is_Atom:
        return expr
    # sign(x)**2 (from the real cube root) is 1 wherever the derivative exists
    expr = expr.replace(lambda e: e.is_Pow and isinstance(e.base, sp.sign)
                        and e.exp.is_even is True, lambda e: sp.S.One)
    ops = sp.count_ops(expr)
    if ops > SIMPLIFY_LIMIT:
        return sp.factor_terms(expr)
    best, best_ops = expr, ops * SHORTER
    for candidate in (sp.factor_terms(expr), sp.simplify(expr)):
        if candidate.has(sp.Piecewise):
            continue
        n = sp.count_ops(candidate)
        if n < best_ops:
            best, best_ops = candidate, n
    return best


def is_zero(expr) -> bool | None:
    """True when SymPy proves ``expr`` is zero, False when it proves it is not, else None."""
    sp = sympy()
    expr = _drop_deltas(expr)
    if expr == 0:
        return True
    simple = sp.simplify(expr)
    if simple == 0:
        return True
    if simple.is_number and simple.is_zero is False:
        return False
    return None


class UndefinedResult(CLIError):
    """A symbolic result with no real value: SymPy's ``zoo``, ``nan``, ``oo`` or ``I``, or a
    constant such as ``acos(2)`` that is not real. tape's variables and results are real, so
    such a result is never printed as if it were a formula (exit 2: the expression has a part
    with no real value, such as ``tan(pi/2)``, ``1/0`` or ``sqrt(-1)``)."""


def undefined(expr, real: bool = True) -> str | None:
    """Why ``expr`` (a SymPy expression) has no value, in words, or None when it may have
    one; with ``real``, also why it is not real: it holds a constant that is not (``acos(2)``,
    ``(-1)**(1/3)``), or it is a constant with ``I``. ``I`` in an expression with variables
    is left alone: SymPy writes ``sqrt(-x^2)``, real at 0, as ``I*Abs(x)``, and ``tape
    check`` decides such a function by its domain rules."""
    sp = sympy()
    if not isinstance(expr, sp.Basic):
        return None
    if expr.has(sp.zoo):
        return "undefined: SymPy gives zoo (complex infinity), as for 1/0 or tan(pi/2)"
    if expr.has(sp.nan):
        return "undefined: SymPy gives nan, as for 0/0 or 0*(1/0)"
    if expr.has(sp.oo, -sp.oo):
        return "infinite: SymPy gives oo"
    if not real:
        return None
    if not expr.free_symbols and expr.has(sp.I):
        return "not a real number: SymPy gives the imaginary unit I, as for sqrt(-1) or log(-1)"
    for part in sorted(expr.atoms(sp.Function, sp.Pow), key=sp.count_ops):
        if not part.free_symbols and part.is_extended_real is False:
            return f"not a real number: {part} is not real"
    return None


def render(expr, style: str = "plain") -> str:
    """``expr`` as text: ``plain`` (SymPy's ``str``: ``2*x*y``), ``pretty`` (unicode 2-D),
    ``math`` (``printer.notate``: ``2x y``) or ``latex``. A result with no real value raises ``UndefinedResult`` instead of being
    written as SymPy's token for it (``zoo``, ``nan``, ``I``)."""
    sp = sympy()
    problem = undefined(expr)
    if problem is not None:
        raise UndefinedResult(f"the result is {problem}; tape works with real numbers: "
                              f"check the constants in the expression")
    if style in ("latex", "math"):
        from .printer import notate

        return notate(expr, style)
    if style == "pretty":
        return sp.pretty(expr, use_unicode=True)
    return str(expr)


def notate_tree(tree, notation: str, sizes: dict | None = None) -> str:
    """A tree written in ``notation``: ``python`` is ``read_as`` (no SymPy), the others go
    through the tree's SymPy form (``sizes``: the vector variables' lengths; the others are
    scalars)."""
    from .printer import check_notation, notate, read_as

    check_notation(notation)
    if notation == "python":
        return read_as(tree)
    sizes = {name: None for name in E.free_variables(tree)} | (sizes or {})
    return notate(as_scalar(to_sympy(tree, sizes)), notation)


def in_notation(formula: str, notation: str) -> str:
    """A formula tape wrote in SymPy syntax (``read_as``, a derivative), in ``notation``: read
    back by tape's reader, which reads that syntax exactly, and written again."""
    if notation == "python":
        return formula
    from .parse import read

    return notate_tree(read(formula).tree, notation)


# --------------------------------------------------------------------------- evaluation

def evaluator(exprs: Sequence, symbols: Sequence):
    """``f(values) -> list[float]`` evaluating every expression at one point, in ``DIGITS``
    digits (mpmath), then rounded to float. Complex or undefined results become nan."""
    sp = sympy()
    import mpmath

    exprs = [_drop_deltas(sp.sympify(e)) for e in exprs]
    fn = sp.lambdify(list(symbols), exprs, modules=["mpmath"])

    def evaluate(values: Sequence[float]) -> list[float]:
        with mpmath.workdps(DIGITS):
            try:
                results = fn(*[mpmath.mpf(float(v)) for v in values])
            except (ZeroDivisionError, ValueError, OverflowError, TypeError):
                return [_one(e, symbols, values) for e in exprs]
            return [_to_float(r) for r in results]

    return evaluate


def _one(expr, symbols, values) -> float:
    """Evaluate one expression the slow, robust way (after the fast path raised)."""
    try:
        value = expr.evalf(DIGITS, subs=dict(zip(symbols, (float(v) for v in values))))
        return _to_float(complex(value) if not value.is_real else float(value))
    except (TypeError, ValueError, ZeroDivisionError, OverflowError, AttributeError):
        return math.nan


def _to_float(value) -> float:
    try:
        c = complex(value)
    except (TypeError, ValueError):
        return math.nan
    if c.imag != 0 and abs(c.imag) > 1e-25 * max(1.0, abs(c.real)):
        return math.nan
    return float(c.real)
