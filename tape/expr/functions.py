"""The function table: every function the expression language allows, in one place.

Each entry maps a name to

* ``tape``: a callable on tape tensors (the numbers side, used by ``lower.py``);
* ``sympy``: how to build the same function in SymPy (the symbolic side, used by
  ``symbolic.py``): either the name of a SymPy function (``getattr(sympy, name)(*args)``) or a
  callable ``f(sympy_module, *args)``. SymPy is never imported here; the symbolic lowering
  passes the module in, so ``tape grad`` without ``--check`` never loads it.
* ``kind``: how shapes combine, for the shape check in ``lower.py``:
  ``"elementwise"`` (scalar -> scalar, vector -> vector, several arguments broadcast),
  ``"reduce"`` (vector -> scalar) or ``"dot"`` (two vectors of one length -> scalar).
* ``mpmath``: the same function on mpmath numbers with SymPy's real semantics (the
  high-precision side, ``highprec.py``): the name of an mpmath function or a callable
  ``f(mpmath_module, *args)``; None for the vector functions. mpmath is never imported here.
* ``derivative``: for a function of one argument, its derivative at ``u`` written once as a
  template ``f(builder, u)`` over an abstract builder, with ``number(k)``, ``add``, ``sub``,
  ``mul``, ``div``, ``neg``, ``power(base, k)`` (``k`` an int), ``call(name, *args)`` and
  ``sign(u)``, where an int may stand for a number. ``treediff.py``'s builder makes tape's
  own trees (the fast ``d/dx`` line of ``tape check``); ``symbolic.SympyBuilder`` makes
  SymPy expressions (the table step of ``tape diff --steps``). None: no textbook rule, the
  callers go to SymPy.
* ``rule``: the name of the textbook rule a step applying ``derivative`` is shown with
  (``"trigonometric"``...); None where the steps have no rule of their own.

Values arrive batched (see ``lower.py``): shape ``(N, k)`` with the points along the first axis
and the components along the last (``k = 1`` for scalars), so vector functions reduce over
``axis=-1`` with ``keepdims=True``. On the SymPy side a vector is a Python list
of SymPy expressions.

Adding a function is one entry in ``FUNCTIONS``; the parser, the lowerings, the rule-by-rule
derivatives, the help text and the tests all read this table.
"""
from __future__ import annotations

import math
from functools import partial
from typing import Any, Callable

import tape

from .record import Frozen


class Function(Frozen):
    """One allowed function of the expression language (see the module docstring)."""

    _fields = ("name", "arity", "tape", "sympy", "kind", "summary", "max_arity", "mpmath",
               "derivative", "rule")

    def __init__(self, name: str, arity: int, tape: Callable[..., Any],
                 sympy: str | Callable[..., Any], kind: str = "elementwise",
                 summary: str = "", max_arity: int | None = None,
                 mpmath: str | Callable[..., Any] | None = None,
                 derivative: Callable[..., Any] | None = None, rule: str | None = None) -> None:
        # ``arity`` arguments, or up to ``max_arity`` (``log(x)`` and ``log(x, b)``)
        for field, value in (("name", name), ("arity", arity), ("tape", tape),
                             ("sympy", sympy), ("kind", kind), ("summary", summary),
                             ("max_arity", arity if max_arity is None else max_arity),
                             ("mpmath", mpmath), ("derivative", derivative), ("rule", rule)):
            object.__setattr__(self, field, value)


def _entry(name, arity, tape_op, sympy, kind="elementwise", summary="", max_arity=None,
           mp=None, d=None, rule=None):
    return name, Function(name, arity, tape_op, sympy, kind, summary, max_arity, mp, d, rule)


def _log(x, base=None):
    return tape.log(x) if base is None else tape.log(x) / tape.log(base)


def _max(a, b):
    return tape.maximum(a, b)


def _min(a, b):
    return tape.minimum(a, b)


_STEPS: dict = {}


def _sympy_step(name: str):
    """SymPy's ``floor``/``ceiling`` with derivative 0 (where it exists, as on the tape side);
    SymPy itself leaves ``Derivative(floor(x), x)`` unevaluated. A subclass keeps the name, so
    it prints and evaluates as SymPy's own."""
    def build(sp, x):
        if name not in _STEPS:
            _STEPS[name] = type(name, (getattr(sp, name),),
                                {"fdiff": lambda self, argindex=1: sp.S.Zero})
        return _STEPS[name](x)

    return build


def _sympy_sigmoid(sp, x):
    return 1 / (1 + sp.exp(-x))


def _sympy_softplus(sp, x):
    return sp.log(1 + sp.exp(x))


def _sympy_norm(sp, v):
    return sp.sqrt(sp.Add(*[c ** 2 for c in v]))


def _mp_log(mp, x, base=None):
    return mp.log(x) if base is None else mp.log(x) / mp.log(base)


def _mp_cbrt(mp, x):
    return mp.sign(x) * mp.cbrt(abs(x))     # the real cube root, as SymPy's real_root


# the textbook rules a step of ``tape diff --steps`` names
TRIG, ARC, HYP, AREA = ("trigonometric", "inverse trigonometric", "hyperbolic",
                        "inverse hyperbolic")


def _recip_root(b, inside):
    """1/sqrt(inside), the shape of the inverse functions' derivatives."""
    return b.div(1, b.call("sqrt", inside))


FUNCTIONS: dict[str, Function] = dict([
    _entry("sin", 1, lambda x: tape.sin(x), "sin", summary="sine", mp="sin",
           d=lambda b, u: b.call("cos", u), rule=TRIG),
    _entry("cos", 1, lambda x: tape.cos(x), "cos", summary="cosine", mp="cos",
           d=lambda b, u: b.neg(b.call("sin", u)), rule=TRIG),
    _entry("tan", 1, lambda x: tape.tan(x), "tan", summary="tangent", mp="tan",
           d=lambda b, u: b.power(b.call("sec", u), 2), rule=TRIG),
    _entry("sec", 1, lambda x: 1.0 / tape.cos(x), "sec", summary="secant 1/cos", mp="sec",
           d=lambda b, u: b.mul(b.call("sec", u), b.call("tan", u)), rule=TRIG),
    _entry("csc", 1, lambda x: 1.0 / tape.sin(x), "csc", summary="cosecant 1/sin", mp="csc",
           d=lambda b, u: b.neg(b.mul(b.call("csc", u), b.call("cot", u))), rule=TRIG),
    _entry("cot", 1, lambda x: tape.cos(x) / tape.sin(x), "cot", summary="cotangent cos/sin",
           mp="cot", d=lambda b, u: b.neg(b.power(b.call("csc", u), 2)), rule=TRIG),
    _entry("asin", 1, lambda x: tape.asin(x), "asin", summary="inverse sine", mp="asin",
           d=lambda b, u: _recip_root(b, b.sub(1, b.power(u, 2))), rule=ARC),
    _entry("acos", 1, lambda x: tape.acos(x), "acos", summary="inverse cosine", mp="acos",
           d=lambda b, u: b.neg(_recip_root(b, b.sub(1, b.power(u, 2)))), rule=ARC),
    _entry("atan", 1, lambda x: tape.atan(x), "atan", summary="inverse tangent", mp="atan",
           d=lambda b, u: b.div(1, b.add(b.power(u, 2), 1)), rule=ARC),
    _entry("atan2", 2, lambda y, x: tape.atan2(y, x), "atan2",
           summary="atan2(y, x): angle of the point (x, y)", mp="atan2"),
    _entry("asec", 1, lambda x: tape.acos(1.0 / x), "asec", summary="inverse secant",
           mp=lambda mp, x: mp.acos(1 / x), rule=ARC,
           d=lambda b, u: b.div(1, b.mul(b.power(u, 2), b.call(
               "sqrt", b.sub(1, b.div(1, b.power(u, 2))))))),
    _entry("acsc", 1, lambda x: tape.asin(1.0 / x), "acsc", summary="inverse cosecant",
           mp=lambda mp, x: mp.asin(1 / x), rule=ARC,
           d=lambda b, u: b.neg(b.div(1, b.mul(b.power(u, 2), b.call(
               "sqrt", b.sub(1, b.div(1, b.power(u, 2)))))))),
    _entry("acot", 1, lambda x: tape.atan(1.0 / x), "acot",
           summary="inverse cotangent atan(1/x)", mp=lambda mp, x: mp.atan(1 / x), rule=ARC,
           d=lambda b, u: b.neg(b.div(1, b.add(b.power(u, 2), 1)))),
    _entry("sinh", 1, lambda x: tape.sinh(x), "sinh", summary="hyperbolic sine", mp="sinh",
           d=lambda b, u: b.call("cosh", u), rule=HYP),
    _entry("cosh", 1, lambda x: tape.cosh(x), "cosh", summary="hyperbolic cosine", mp="cosh",
           d=lambda b, u: b.call("sinh", u), rule=HYP),
    _entry("tanh", 1, lambda x: tape.tanh(x), "tanh", summary="hyperbolic tangent", mp="tanh",
           d=lambda b, u: b.power(b.call("sech", u), 2), rule=HYP),
    _entry("asinh", 1, lambda x: tape.asinh(x), "asinh", summary="inverse hyperbolic sine",
           mp="asinh", d=lambda b, u: _recip_root(b, b.add(b.power(u, 2), 1)), rule=AREA),
    _entry("acosh", 1, lambda x: tape.acosh(x), "acosh", summary="inverse hyperbolic cosine",
           mp="acosh", rule=AREA,    # real exactly where acosh is (u > 1), unlike sqrt(u^2 - 1)
           d=lambda b, u: b.div(1, b.mul(b.call("sqrt", b.sub(u, 1)),
                                         b.call("sqrt", b.add(u, 1))))),
    _entry("atanh", 1, lambda x: tape.atanh(x), "atanh", summary="inverse hyperbolic tangent",
           mp="atanh", d=lambda b, u: b.div(1, b.sub(1, b.power(u, 2))), rule=AREA),
    _entry("sech", 1, lambda x: 1.0 / tape.cosh(x), "sech", summary="hyperbolic secant",
           mp="sech", d=lambda b, u: b.neg(b.mul(b.call("sech", u), b.call("tanh", u))),
           rule=HYP),
    _entry("csch", 1, lambda x: 1.0 / tape.sinh(x), "csch", summary="hyperbolic cosecant",
           mp="csch", d=lambda b, u: b.neg(b.mul(b.call("csch", u), b.call("coth", u))),
           rule=HYP),
    _entry("coth", 1, lambda x: tape.cosh(x) / tape.sinh(x), "coth",
           summary="hyperbolic cotangent", mp="coth",
           d=lambda b, u: b.neg(b.power(b.call("csch", u), 2)), rule=HYP),
    _entry("asech", 1, lambda x: tape.acosh(1.0 / x), "asech",
           summary="inverse hyperbolic secant", mp=lambda mp, x: mp.acosh(1 / x), rule=AREA,
           d=lambda b, u: b.neg(b.div(1, b.mul(u, b.call("sqrt", b.sub(1, b.power(u, 2))))))),
    _entry("acsch", 1, lambda x: tape.asinh(1.0 / x), "acsch",
           summary="inverse hyperbolic cosecant", mp=lambda mp, x: mp.asinh(1 / x), rule=AREA,
           d=lambda b, u: b.neg(b.div(1, b.mul(b.power(u, 2), b.call(
               "sqrt", b.add(1, b.div(1, b.power(u, 2)))))))),
    _entry("acoth", 1, lambda x: tape.atanh(1.0 / x), "acoth",
           summary="inverse hyperbolic cotangent", mp=lambda mp, x: mp.atanh(1 / x), rule=AREA,
           d=lambda b, u: b.div(1, b.sub(1, b.power(u, 2)))),
    _entry("exp", 1, lambda x: tape.exp(x), "exp", summary="e to the x", mp="exp",
           d=lambda b, u: b.call("exp", u), rule="exponential"),
    _entry("log", 1, _log, "log", max_arity=2, mp=_mp_log,
           summary="natural logarithm; log(x, b): logarithm of x to the base b",
           d=lambda b, u: b.div(1, u), rule="logarithm"),      # the one-argument form
    _entry("ln", 1, lambda x: tape.log(x), "log", summary="natural logarithm", mp="log",
           d=lambda b, u: b.div(1, u), rule="logarithm"),
    _entry("log2", 1, lambda x: tape.log(x) / math.log(2.0),
           lambda sp, x: sp.log(x, 2), summary="logarithm base 2",
           mp=lambda mp, x: mp.log(x) / mp.log(2),
           d=lambda b, u: b.div(1, b.mul(u, b.call("log", b.number(2)))), rule="logarithm"),
    _entry("log10", 1, lambda x: tape.log(x) / math.log(10.0),
           lambda sp, x: sp.log(x, 10), summary="logarithm base 10",
           mp=lambda mp, x: mp.log(x) / mp.log(10),
           d=lambda b, u: b.div(1, b.mul(u, b.call("log", b.number(10)))), rule="logarithm"),
    _entry("sqrt", 1, lambda x: tape.sqrt(x), "sqrt", summary="square root", mp="sqrt",
           d=lambda b, u: b.div(1, b.mul(2, b.call("sqrt", u))), rule="root"),
    _entry("cbrt", 1, lambda x: tape.cbrt(x), lambda sp, x: sp.real_root(x, 3),
           summary="real cube root", mp=_mp_cbrt,
           d=lambda b, u: b.div(1, b.mul(3, b.power(b.call("cbrt", u), 2))), rule="root"),
    _entry("root", 2, lambda x, n: x ** (1.0 / n), lambda sp, x, n: x ** (1 / sp.S(n)),
           summary="root(x, n): the n-th root x^(1/n)",
           mp=lambda mp, x, n: x ** (1 / mp.mpf(n))),
    # sign, floor and ceil: derivative 0 away from the jumps, as the engine has it; no step
    # rule (a student's textbook has none)
    _entry("sign", 1, lambda x: tape.sign(x), "sign", summary="sign: -1, 0 or 1", mp="sign",
           d=lambda b, u: b.number(0)),
    _entry("floor", 1, lambda x: tape.floor(x), _sympy_step("floor"),
           summary="largest integer <= x (derivative 0 between the jumps)", mp="floor",
           d=lambda b, u: b.number(0)),
    _entry("ceil", 1, lambda x: tape.ceil(x), _sympy_step("ceiling"),
           summary="smallest integer >= x (derivative 0 between the jumps)", mp="ceil",
           d=lambda b, u: b.number(0)),
    _entry("max", 2, _max, "Max", summary="the larger of two values",
           mp=lambda mp, a, b: mp.mpf(max(a, b))),
    _entry("min", 2, _min, "Min", summary="the smaller of two values",
           mp=lambda mp, a, b: mp.mpf(min(a, b))),
    _entry("abs", 1, lambda x: tape.abs(x), "Abs", summary="absolute value", mp="fabs",
           d=lambda b, u: b.sign(u), rule="absolute value"),
    # sigmoid, softplus and relu: the steps first write them in elementary terms
    _entry("sigmoid", 1, lambda x: tape.sigmoid(x), _sympy_sigmoid,
           summary="logistic 1/(1+exp(-x))", mp=lambda mp, x: 1 / (1 + mp.exp(-x))),
    _entry("softplus", 1, lambda x: tape.softplus(x), _sympy_softplus,
           summary="log(1+exp(x))", mp=lambda mp, x: mp.log(1 + mp.exp(x))),
    _entry("relu", 1, lambda x: tape.nn.relu(x), lambda sp, x: sp.Max(0, x),
           summary="max(0, x)", mp=lambda mp, x: mp.mpf(max(0, x))),
    _entry("erf", 1, lambda x: tape.erf(x), "erf", summary="error function", mp="erf"),
    _entry("sum", 1, lambda v: tape.reduce_sum(v, axis=-1, keepdims=True), lambda sp, v: sp.Add(*v),
           kind="reduce", summary="sum of a vector's components"),
    _entry("mean", 1, lambda v: tape.reduce_mean(v, axis=-1, keepdims=True),
           lambda sp, v: sp.Add(*v) / len(v), kind="reduce", summary="mean of the components"),
    _entry("prod", 1, lambda v: tape.reduce_prod(v, axis=-1, keepdims=True), lambda sp, v: sp.Mul(*v),
           kind="reduce", summary="product of the components"),
    _entry("norm", 1, lambda v: tape.linalg.norm(v, axis=-1, keepdims=True), _sympy_norm,
           kind="reduce", summary="Euclidean norm"),
    _entry("dot", 2, lambda a, b: tape.reduce_sum(a * b, axis=-1, keepdims=True),
           lambda sp, a, b: sp.Add(*[p * q for p, q in zip(a, b)]),
           kind="dot", summary="dot product of two vectors"),
])

#: Named constants: name -> (value, SymPy attribute name).
CONSTANTS: dict[str, tuple[float, str]] = {
    "pi": (math.pi, "pi"),
    "e": (math.e, "E"),
}


def _on(module, spec) -> Callable[..., Any]:
    """A column's function on ``module``'s numbers: the module's function named ``spec``, or
    the callable ``spec`` with the module passed first."""
    return getattr(module, spec) if isinstance(spec, str) else partial(spec, module)


def sympy_function(sympy_module, name: str) -> Callable[..., Any]:
    """The table's function ``name`` on the SymPy side (vectors are lists of SymPy
    expressions); the caller imports SymPy and passes it in."""
    return _on(sympy_module, FUNCTIONS[name].sympy)


def call_sympy(sympy_module, name: str, args: list):
    """``sympy_function(sympy_module, name)`` applied to ``args``."""
    return sympy_function(sympy_module, name)(*args)


def mpmath_function(mpmath_module, name: str) -> Callable[..., Any]:
    """The table's function ``name`` on mpmath numbers (``highprec.py`` imports mpmath and
    passes it in)."""
    return _on(mpmath_module, FUNCTIONS[name].mpmath)


def allowed_summary() -> str:
    """One line listing every function the language accepts (for error messages and help)."""
    return "allowed functions: " + " ".join(FUNCTIONS)
