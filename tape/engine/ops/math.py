"""Elementwise arithmetic: each primitive's NumPy forward beside its gradient rule.

Rules are written with the engine's own ops so nested tapes differentiate them again. A
cotangent ``g`` may carry leading batch axes (Jacobian sweeps); elementwise rules broadcast
over them and binary rules pass them to ``unbroadcast``.
"""
from __future__ import annotations

import math as _pymath
import operator

import numpy as np

from .. import series as S
from ..broadcast import batch_ndim, unbroadcast_array
from ..inplace import in_place_rule, returns_new_arrays
from ..registry import defop
from ..structural import StructuralZeros, times_singular
from ..tensor import _wrap
from .array import unbroadcast, where
from .cast import cast, conj, imag, real, real_cotangent
from .compare import equal, greater, greater_equal, less_equal, not_equal
from .rules import full, is_complex, or_zero, out_ndim, plus, select_series

__all__ = ["abs", "acos", "acosh", "add", "add_n", "angle", "asin", "asinh", "atan", "atan2",
           "atanh", "cbrt", "ceil", "clip_by_value", "cos", "cosh", "div_no_nan", "divide", "erf",
           "exp", "expm1", "floor", "floordiv", "floormod", "log", "log1p", "log2", "log10",
           "maximum", "minimum", "mod", "multiply", "negative", "pow", "reciprocal", "round",
           "rsqrt", "scalar_mul", "sigmoid", "sign", "sin", "sinh", "softplus", "sqrt", "square",
           "squared_difference", "subtract", "tan", "tanh", "truediv", "xlogy"]


def _binary(name, fn, da, db, fast_da=None, fast_db=None, fast=None, **rules):
    """A broadcasting binary op; ``da``/``db`` give the unreduced cotangents (tape ops), and
    ``fast_da``/``fast_db`` the same on raw arrays for the first-order fast path (or ``fast``,
    the whole fast rule, for ops that special-case NumPy scalars); ``rules``: its other rules
    (``jvp``, ``taylor``, ``linear``; see ``defop``)."""
    def grad(node, g):
        a, b = node.inputs
        nb = g._value.ndim - node.outputs[0]._value.ndim
        need_a, need_b = node.needs_grad
        ga = unbroadcast(da(node, g), a._value.shape, nb) if need_a else None
        gb = unbroadcast(db(node, g), b._value.shape, nb) if need_b else None
        return [ga, gb]

    if fast is None and fast_da is not None:
        fast = _pair_rule(fast_da, fast_db)
    return defop(name, fn, grad, fast=fast, arity=2, **rules)


def _pair_rule(fast_da, fast_db):
    """A binary op's fast rule from its two raw cotangent maps (unbroadcast as needed)."""
    def on_arrays(node, g):
        need_a, need_b = node.needs_grad
        if type(g) is not np.ndarray and type(g) is not StructuralZeros:   # a NumPy scalar: inputs
            # are 0-d too, nothing to unbroadcast
            return [fast_da(node, g) if need_a else None, fast_db(node, g) if need_b else None]
        a, b = node.inputs
        out_shape = node.outputs[0]._value.shape
        ga = gb = None
        if need_a:
            ga = fast_da(node, g)
            if a._value.shape != out_shape or g.shape != out_shape:
                ga = unbroadcast_array(ga, a._value.shape, g.ndim - len(out_shape))
        if need_b:
            gb = fast_db(node, g)
            if b._value.shape != out_shape or g.shape != out_shape:
                gb = unbroadcast_array(gb, b._value.shape, g.ndim - len(out_shape))
        return [ga, gb]
    return on_arrays


def _times(g, b):
    """g * b for a cotangent g; when g is a broadcast 1 (the cotangent reduce_sum hands down, a
    stride-0 view), the product is b itself and no full-size pass is made."""
    if type(g) is np.ndarray and g.ndim and g.size and not any(g.strides) and g.shape == np.shape(b) \
            and g.flat[0] == 1 and b.dtype == np.result_type(g, b):
        return b
    return g * b


def _scaled(fresh, g):
    """``fresh * g`` where ``fresh`` is a temporary this rule just made: multiplied in place when
    the shapes allow, saving one full-size allocation per rule on large arrays."""
    if type(fresh) is np.ndarray and type(g) is not StructuralZeros and fresh.shape == np.shape(g) \
            and fresh.dtype == np.result_type(fresh, g):
        if not any(g.strides) and g.flat[0] == 1:
            return fresh
        fresh *= g
        return fresh
    return fresh * g


# g * d where d may be infinite (a singular point): 0 only where g is a structural zero
_mul_no_nan_np = times_singular


def _mul_no_nan_grad(node, g):
    a, b = node.inputs
    nb = batch_ndim(node, g)
    ga = unbroadcast(mul_no_nan(g, _c(b)), a._value.shape, nb) if node.needs_grad[0] else None
    gb = unbroadcast(mul_no_nan(g * _c(a), _wrap(np.ones((), b._value.dtype))), b._value.shape, nb) \
        if node.needs_grad[1] else None
    return [ga, gb]


# a * b with 0 where a is a structural zero (structural.py): rules of ops with singular
# derivatives (sqrt, log, 1/x, asin, x**y ...) multiply the incoming cotangent this way, so a
# branch that where() did not select contributes 0, while a cotangent that is 0 as a value meets
# the infinite slope as 0 * inf = nan (an undefined derivative, said so).
def _mul_no_nan_series(node, ins, K):
    # a * b, but 0 wherever a is identically 0 (b may be inf or nan there)
    a = S.align(full(ins[0], node.inputs[0], K), out_ndim(node))
    b = S.align(full(ins[1], node.inputs[1], K), out_ndim(node))
    zero = ~a.any(axis=0)
    with np.errstate(invalid="ignore"):
        return np.where(zero, 0.0, S.mul(a, np.where(zero, 0.0, b)))


mul_no_nan = defop("MulNoNan", _mul_no_nan_np, _mul_no_nan_grad, arity=2,
                   # each term keeps the mask, so a masked inf/nan stays out of the tangent
                   jvp=lambda n, ta, tb: plus(None if ta is None else mul_no_nan(ta, n.inputs[1]),
                                              None if tb is None else mul_no_nan(n.inputs[0], tb)),
                   taylor=_mul_no_nan_series)


def _v(node, i=0):
    return node.inputs[i]._value


def _out(node):
    return node.outputs[0]._value


# -- complex numbers: TensorFlow's convention ------------------------------------------------
# A complex number is a pair of reals, and a gradient rule applies the transpose of the op's real
# Jacobian: for a real loss L of z = x + iy the gradient is dL/dx + i dL/dy. For a holomorphic f
# that is g * conj(f'(z)), so rules multiply by conjugated factors, as TensorFlow's do. Real
# values skip the conjugation: a float64 scalar is tested by type alone.
_F64 = np.float64


def _cv(node, i=0):
    """Input ``i``'s raw value, conjugated if complex."""
    v = node.inputs[i]._value
    return v if type(v) is _F64 or v.dtype.kind != "c" else np.conj(v)


def _cout(node):
    """The raw output, conjugated if complex."""
    v = node.outputs[0]._value
    return v if type(v) is _F64 or v.dtype.kind != "c" else np.conj(v)


def _c(t):
    """A tensor, conjugated (a recorded Conj) only if complex."""
    return conj(t) if t._value.dtype.kind == "c" else t


def _is_complex_node(node):
    """Whether an input of a (two-input) node is complex."""
    a, b = node.inputs
    return a._value.dtype.kind == "c" or b._value.dtype.kind == "c"


# Python's operators on NumPy values: the same results as the ufuncs, without the ufunc call
# overhead on NumPy scalars (~0.05 us instead of ~0.5 us).
# The fast rules of +, - and * answer a NumPy-scalar cotangent at once (both input cotangents:
# one scalar operation each is cheaper than asking which are wanted); arrays take the long way.
_add_arrays = _pair_rule(lambda n, g: g, lambda n, g: g)
_sub_arrays = _pair_rule(lambda n, g: g, lambda n, g: -g)
_mul_arrays = _pair_rule(lambda n, g: _times(g, _cv(n, 1)), lambda n, g: _times(g, _cv(n, 0)))


def _add_fast(node, g):
    return [g, g] if type(g) is not np.ndarray and type(g) is not StructuralZeros \
        else _add_arrays(node, g)


def _sub_fast(node, g):
    return [g, -g] if type(g) is not np.ndarray and type(g) is not StructuralZeros \
        else _sub_arrays(node, g)


def _mul_fast(node, g):
    if type(g) is np.ndarray or type(g) is StructuralZeros:
        return _mul_arrays(node, g)
    if type(g) is not _F64 and _is_complex_node(node):
        return _mul_arrays(node, g)
    a, b = node.inputs
    need_a, need_b = node.needs_grad
    return [g * b._value if need_a else None, g * a._value if need_b else None]


def _mul_series(node, ins, K):
    (a, b), nd = ins, out_ndim(node)
    if a is None:
        return node.inputs[0]._value * S.align(b, nd)
    if b is None:
        return S.align(a, nd) * node.inputs[1]._value
    return S.mul(S.align(a, nd), S.align(b, nd))


def _div_series(node, ins, K):
    (a, b), nd = ins, out_ndim(node)
    if b is None:
        return S.align(a, nd) / node.inputs[1]._value
    return S.div(S.align(full(a, node.inputs[0], K), nd), S.align(b, nd))


# scalar= rules (the scalar lane): rule(g, a, b, out, need_a, need_b) on float64 scalars, the same
# operations in the same order as the fast rule (tests/engine/test_scalar_lane.py holds them to it)
add = _binary("AddV2", operator.add, lambda n, g: g, lambda n, g: g, fast=_add_fast, linear=True,
              scalar=lambda g, a, b, out, need_a, need_b: (g, g), numpy=(np.add,))
subtract = _binary("Sub", operator.sub, lambda n, g: g, lambda n, g: -g, fast=_sub_fast, linear=True,
                   scalar=lambda g, a, b, out, need_a, need_b: (g, -g), numpy=(np.subtract,))
multiply = _binary("Mul", operator.mul, lambda n, g: g * _c(n.inputs[1]), lambda n, g: g * _c(n.inputs[0]),
                   fast=_mul_fast, scalar=lambda g, a, b, out, need_a, need_b: (
                       g * b if need_a else None, g * a if need_b else None),
                   jvp=lambda n, ta, tb: plus(None if ta is None else ta * n.inputs[1],
                                              None if tb is None else n.inputs[0] * tb),
                   taylor=_mul_series, numpy=(np.multiply,))
divide = _binary("RealDiv", operator.truediv, lambda n, g: mul_no_nan(g, reciprocal(_c(n.inputs[1]))),
                 lambda n, g: mul_no_nan(-g, _c(n.outputs[0] / n.inputs[1])),
                 lambda n, g: _mul_no_nan_np(g, 1 / _cv(n, 1)),
                 lambda n, g: _mul_no_nan_np(-g, _cout(n) / _cv(n, 1)),
                 scalar=lambda g, a, b, out, need_a, need_b: (
                     g * (1 / b) if need_a else None, -g * (out / b) if need_b else None),
                 jvp=lambda n, ta, tb: plus(None if ta is None else ta / n.inputs[1],
                                            None if tb is None else -tb * n.outputs[0] / n.inputs[1]),
                 taylor=_div_series, numpy=(np.true_divide,))
truediv = divide


def _pow_fast_da(node, g):
    x, y = _cv(node, 0), _cv(node, 1)
    if y.ndim == 0 and y == 2:
        return _scaled(x + x, g)
    slope = x ** (y - 1)
    if np.any(y == 0):              # x**0 is the constant 1: slope 0, even at x = 0
        slope = np.where(y == 0, 0, slope)
    return _mul_no_nan_np(g * y, slope)


def _pow_fast_db(node, g):
    x = _v(node, 0)
    if x.dtype.kind == "c":         # log(x) wherever x != 0, conjugated (TensorFlow's rule)
        nz = x != 0
        return g * np.conj(_out(node) * np.log(np.where(nz, x, 1)) * nz)
    pos = x > 0
    return g * _cout(node) * np.log(np.where(pos, x, 1)) * pos


def _pow_da(node, g):
    x, y = node.inputs
    slope = pow(x, y - 1)
    if np.any(y._value == 0):       # x**0 is the constant 1: slope 0, even at x = 0
        slope = where(equal(y, 0), 0, slope)
    if x._value.dtype.kind == "c" or y._value.dtype.kind == "c":
        return mul_no_nan(g * _c(y), _c(slope))
    return mul_no_nan(g * y, slope)


def _pow_db(node, g):
    # log(x) only where x > 0, as TensorFlow does: x**y at x = 0 has no false NaN in d/dy.
    # (A complex x: wherever x != 0.)
    x = node.inputs[0]
    if x._value.dtype.kind == "c":
        nz = not_equal(x, 0)
        return g * _c(node.outputs[0] * where(nz, log(where(nz, x, 1)), 0))
    safe_log = where(greater(x, 0), log(where(greater(x, 0), x, 1)), 0)
    return g * _c(node.outputs[0]) * safe_log        # (a complex output: a complex exponent)


_pow_arrays = _pair_rule(_pow_fast_da, _pow_fast_db)


def _pow_fast(node, g):
    if type(g) is np.ndarray or type(g) is StructuralZeros \
            or (type(g) is not _F64 and _is_complex_node(node)):
        return _pow_arrays(node, g)
    need_a, need_b = node.needs_grad
    ga = gb = None
    if need_a:
        x, y = node.inputs[0]._value, node.inputs[1]._value
        gy = g * y
        # x**0 is the constant 1 (slope 0 even at x = 0); a cotangent 0 times an infinite
        # slope is 0 * inf = nan unless it is a structural zero (structural.py)
        ga = gy if not y else _mul_no_nan_np(gy, x ** (y - 1))
    if need_b:
        gb = _pow_fast_db(node, g)
    return [ga, gb]


def _holomorphic(rule, node, t):
    """The JVP ``f' t`` from a reverse rule ``g -> g conj(f')`` (just ``rule(t)`` on reals)."""
    if t is None:
        return None
    if is_complex(t) or any(is_complex(x) for x in node.inputs):
        return _c(rule(node, _c(t)))
    return rule(node, t)


def _pow_series(node, ins, K):
    (a, b), nd = ins, out_ndim(node)
    x, r = node.inputs
    if b is None:
        return S.pow_scalar(S.align(a, nd), r._value)
    with np.errstate(divide="ignore"):
        log_a = np.log(x._value) if a is None else None
    exponent = S.align(b, nd) * log_a if a is None else \
        S.mul(S.align(b, nd), S.align(S.log(a), nd))              # a^b = exp(b log a)
    return S.exp(exponent)


def _select_jvp(node, cond, ta, tb):
    """The tangent of a selection between the last two inputs by ``cond``."""
    a, b = node.inputs[-2:]
    if ta is None and tb is None:
        return None
    return where(cond, or_zero(ta, a), or_zero(tb, b))


def _floormod_series(node, ins, K):
    (a, b), nd = ins, out_ndim(node)
    x, y = node.inputs
    q = np.floor(x._value / y._value)
    return S.align(full(a, x, K), nd) - q * S.align(full(b, y, K), nd)


def _atan2_jvp(node, ta, tb):
    a, b = node.inputs
    num = plus(None if ta is None else ta * b, None if tb is None else -tb * a)
    return None if num is None else num / (a * a + b * b)


def _atan2_series(node, ins, K):
    nd = out_ndim(node)
    a, b = (S.align(full(s, x, K), nd) for s, x in zip(ins, node.inputs))
    num = S.mul(b, S.derivative(a)) - S.mul(a, S.derivative(b))       # (b a' - a b') / (a^2 + b^2)
    return S.integrate(S.div(num, S.mul(a, a) + S.mul(b, b)), node.outputs[0]._value)


def _pow_scalar(g, x, y, out, need_a, need_b):
    if need_b:          # d/dy takes log(x) where x > 0: the fast rule's way
        return None
    if not need_a:
        return None, None
    gy = g * y
    # x**0 is the constant 1: slope 0, even at x = 0 (where x**-1 is inf)
    return (gy if not y else gy * x ** (y - 1)), None


pow = _binary("Pow", operator.pow, _pow_da, _pow_db, fast=_pow_fast, scalar=_pow_scalar,
              jvp=lambda n, ta, tb: plus(_holomorphic(_pow_da, n, ta), _holomorphic(_pow_db, n, tb)),
              taylor=_pow_series, numpy=(np.power, np.float_power))
maximum = _binary("Maximum", np.maximum,
                  lambda n, g: where(greater_equal(n.inputs[0], n.inputs[1]), g, 0),
                  lambda n, g: where(greater_equal(n.inputs[0], n.inputs[1]), 0, g),
                  jvp=lambda n, ta, tb: _select_jvp(n, greater_equal(*n.inputs), ta, tb),
                  taylor=select_series(lambda n: n.inputs[0]._value >= n.inputs[1]._value),
                  numpy=(np.fmax,))
minimum = _binary("Minimum", np.minimum,
                  lambda n, g: where(less_equal(n.inputs[0], n.inputs[1]), g, 0),
                  lambda n, g: where(less_equal(n.inputs[0], n.inputs[1]), 0, g),
                  jvp=lambda n, ta, tb: _select_jvp(n, less_equal(*n.inputs), ta, tb),
                  taylor=select_series(lambda n: n.inputs[0]._value <= n.inputs[1]._value),
                  numpy=(np.fmin,))
floormod = _binary("FloorMod", np.mod, lambda n, g: g,
                   lambda n, g: -g * floor(n.inputs[0] / n.inputs[1]),
                   jvp=lambda n, ta, tb: plus(ta, None if tb is None else -tb * floor(n.inputs[0] / n.inputs[1])),
                   taylor=_floormod_series)
mod = floormod
atan2 = _binary("Atan2", np.arctan2,
                lambda n, g: g * n.inputs[1] / (square(n.inputs[0]) + square(n.inputs[1])),
                lambda n, g: -g * n.inputs[0] / (square(n.inputs[0]) + square(n.inputs[1])),
                jvp=_atan2_jvp, taylor=_atan2_series)
floordiv = defop("FloorDiv", np.floor_divide, differentiable=False, arity=2)


def _unary(name, fn, rule, fast=None, **rules):
    """An elementwise op; ``rule`` (tape ops) and ``fast`` (raw arrays) map g to the input's
    cotangent (a one-input op's fast rule returns it bare, not in a list). Its Jacobian is
    diagonal, so forward mode takes its JVP from ``rule`` unless ``rules`` give one."""
    return defop(name, fn, lambda node, g: [rule(node, g)], fast=fast, arity=1, symmetric=True,
                 **rules)


def _x(node):
    return node.inputs[0]


def _cx(node):
    """The input, conjugated if complex (a holomorphic op's rule takes f'(conj x) = conj f'(x))."""
    return _c(node.inputs[0])


def _cy(node):
    return _c(node.outputs[0])


def _tanh_fast(node, g):
    # 1 - y^2 loses log10(1/(1 - y^2)) digits: below 1e-11 relative error while 1 - y^2 > 2e-5;
    # beyond that (|x| > ~6, rare) sech^2 x is used instead
    x, y = _v(node), _out(node)
    if y.dtype.kind == "c":
        return g * (1 - np.conj(y) ** 2)
    if y.ndim == 0:
        t = 1 - y * y
        return g * t if t > 2e-5 else g * _sech_squared_np(x)
    t = y * y                       # one temporary, updated in place
    np.subtract(1, t, out=t)
    if t.size and t.min() < 2e-5:    # one reduction, no mask, in the usual case of no tail
        tail = t < 2e-5
        t[tail] = _sech_squared_np(x[tail])
    return _scaled(t, g)


negative = _unary("Neg", operator.neg, lambda n, g: -g, lambda n, g: -g, linear=True,
                  numpy=(np.negative,))


def _abs_grad(node, g):
    x = node.inputs[0]
    if x._value.dtype.kind == "c":       # z / |z| (0 at z = 0), as TensorFlow's ComplexAbs
        g = cast(real_cotangent(g), x.dtype)
        return div_no_nan(g * x, cast(node.outputs[0], x.dtype))
    return g * sign(x)


def _abs_jvp(node, t):
    if t is None:
        return None
    x = node.inputs[0]
    if not is_complex(x):
        return _abs_grad(node, t)
    # d|z| = Re(conj(z) dz) / |z|, and 0 at z = 0
    return div_no_nan(real(conj(x) * t), node.outputs[0])


def _abs_series(node, ins, K):
    a = ins[0]
    if a.dtype.kind == "c":             # |a| = sqrt(a conj(a)): a real series, smooth off 0
        return S.pow_scalar(np.real(S.mul(a, np.conj(a))), 0.5)
    return np.sign(a[0]) * a


def _by_derivative(g):
    """The Taylor rule of y with y' = a' g(a), g built from series ops (atan, asin, erf, ...)."""
    def rule(node, ins, K):
        a = ins[0]
        return S.integrate(S.mul(S.derivative(a), g(a, K)), node.outputs[0]._value)
    return rule


def _one_plus(sign_sq, a, K, c=1.0):
    """The series of c + sign_sq * a^2."""
    s = sign_sq * S.mul(a, a)
    s[0] += c
    return s


abs = _unary("Abs", np.abs, _abs_grad, jvp=_abs_jvp, taylor=_abs_series, numpy=(np.fabs,))
square = _unary("Square", np.square, lambda n, g: g * (2 * _cx(n)), lambda n, g: g * (2 * _cv(n)),
                taylor=lambda n, ins, K: S.mul(ins[0], ins[0]))
sqrt = _unary("Sqrt", np.sqrt, lambda n, g: mul_no_nan(g, 0.5 / _cy(n)),
              lambda n, g: _mul_no_nan_np(g, 0.5 / _cout(n)),
              taylor=lambda n, ins, K: S.pow_scalar(ins[0], 0.5))
def _cbrt_series(node, ins, K):
    # cbrt(x) = s * (s x)^(1/3) with s the sign of x (1 at 0), so the series of a positive base
    side = np.where(np.real(node.inputs[0]._value) < 0, -1.0, 1.0)
    return side * S.pow_scalar(side * ins[0], 1.0 / 3.0)


# d cbrt(x) = 1 / (3 cbrt(x)^2): infinite at 0, as the true slope is (a sign() * |x|^(1/3)
# composition would give 0 there)
cbrt = _unary("Cbrt", np.cbrt, lambda n, g: mul_no_nan(g, 1.0 / (3.0 * square(_cy(n)))),
              lambda n, g: _mul_no_nan_np(g, 1.0 / (3.0 * _cout(n) ** 2)), taylor=_cbrt_series)
rsqrt = _unary("Rsqrt", lambda x: 1 / np.sqrt(x), lambda n, g: mul_no_nan(g, -0.5 * _cy(n) / _cx(n)),
               taylor=lambda n, ins, K: S.pow_scalar(ins[0], -0.5))
reciprocal = _unary("Reciprocal", np.reciprocal, lambda n, g: mul_no_nan(-g, square(_cy(n))),
                    taylor=lambda n, ins, K: S.pow_scalar(ins[0], -1.0))
exp = _unary("Exp", np.exp, lambda n, g: g * _cy(n), lambda n, g: _times(g, _cout(n)),
             taylor=lambda n, ins, K: S.exp(ins[0]))
expm1 = _unary("Expm1", np.expm1, lambda n, g: g * (_cy(n) + 1),
               taylor=lambda n, ins, K: S.exp(ins[0]))      # c0 is fixed up to expm1(a0)
log = _unary("Log", np.log, lambda n, g: mul_no_nan(g, reciprocal(_cx(n))),
             lambda n, g: _mul_no_nan_np(g, 1 / _cv(n)),
             taylor=lambda n, ins, K: S.log(ins[0]))
log1p = _unary("Log1p", np.log1p, lambda n, g: mul_no_nan(g, reciprocal(1 + _cx(n))),
               taylor=lambda n, ins, K: S.log(ins[0], np.log1p(ins[0][0]), 1 + ins[0][0]))
sin = _unary("Sin", np.sin, lambda n, g: g * cos(_cx(n)), lambda n, g: _scaled(np.cos(_cv(n)), g),
             taylor=lambda n, ins, K: S.sincos(ins[0])[0])
cos = _unary("Cos", np.cos, lambda n, g: -g * sin(_cx(n)), lambda n, g: _scaled(np.sin(_cv(n)), -g),
             taylor=lambda n, ins, K: S.sincos(ins[0])[1])
# y' = a' w(y): w_m is the m-th coefficient of 1 + y^2
tan = _unary("Tan", np.tan, lambda n, g: g * (1 + square(_cy(n))),
             taylor=lambda n, ins, K: S.ode(ins[0], np.tan(ins[0][0]),
                                            lambda y, m: (m == 0) + S.dot(y[m::-1], y[:m + 1])))
asin = _unary("Asin", np.arcsin, lambda n, g: mul_no_nan(g, rsqrt(1 - square(_cx(n)))),
              taylor=_by_derivative(lambda a, K: S.pow_scalar(_one_plus(-1, a, K), -0.5)))
acos = _unary("Acos", np.arccos, lambda n, g: mul_no_nan(-g, rsqrt(1 - square(_cx(n)))),
              taylor=_by_derivative(lambda a, K: -S.pow_scalar(_one_plus(-1, a, K), -0.5)))
atan = _unary("Atan", np.arctan, lambda n, g: g / (1 + square(_cx(n))),
              taylor=_by_derivative(lambda a, K: S.pow_scalar(_one_plus(1, a, K), -1.0)))
sinh = _unary("Sinh", np.sinh, lambda n, g: g * cosh(_cx(n)),
              taylor=lambda n, ins, K: S.coupled(ins[0], np.sinh(ins[0][0]), np.cosh(ins[0][0]), 1.0)[0])
cosh = _unary("Cosh", np.cosh, lambda n, g: g * sinh(_cx(n)),
              taylor=lambda n, ins, K: S.coupled(ins[0], np.sinh(ins[0][0]), np.cosh(ins[0][0]), 1.0)[1])


# d tanh = sech^2 x, not 1 - tanh^2 x: in the tails tanh rounds to +-1 and 1 - y^2 cancels to 0
def sech_squared(x):
    """sech^2 x = 4e/(1+e)^2 with e = exp(-2|x|): never overflows, and every derivative stays
    finite (|x| is taken as where(x >= 0, x, -x), so no kink of abs enters higher orders).
    Tape ops on a real tensor; the rules on raw arrays call it on a wrapped array."""
    e = exp(-2 * where(greater_equal(x, 0), x, -x))
    return 4 * e / square(1 + e)


def _sech_squared_np(x):
    """``sech_squared`` of a raw NumPy value (1/cosh^2 for complex values: no tails to guard)."""
    if np.iscomplexobj(x):
        return 1 / np.cosh(x) ** 2
    return sech_squared(_wrap(x))._value


def _tanh_grad(node, g):
    if node.inputs[0]._value.dtype.kind == "c":     # no sign test on complex numbers: 1 - y^2
        return g * (1 - square(conj(node.outputs[0])))
    return g * sech_squared(node.inputs[0])


# y' = a' (1 - y^2): w_0 is taken as sech^2(a_0), exact where y_0 rounds to +-1
tanh = _unary("Tanh", np.tanh, _tanh_grad, _tanh_fast,
              taylor=lambda n, ins, K: S.ode(
                  ins[0], np.tanh(ins[0][0]),
                  lambda y, m, w0=_sech_squared_np(ins[0][0]): np.reshape(w0, y.shape[1:]) if m == 0
                  else -S.dot(y[m::-1], y[:m + 1])))
asinh = _unary("Asinh", np.arcsinh, lambda n, g: g * rsqrt(square(_cx(n)) + 1),
               taylor=_by_derivative(lambda a, K: S.pow_scalar(_one_plus(1, a, K), -0.5)))


def _acosh_grad(node, g):
    x = node.inputs[0]
    if x._value.dtype.kind == "c":      # 1/sqrt(z^2 - 1) is on the wrong branch where Re z < 0
        cx = conj(x)
        return mul_no_nan(g, rsqrt(cx - 1) * rsqrt(cx + 1))
    return mul_no_nan(g, rsqrt(square(x) - 1))


def _acosh_derivative(a, K):
    if a.dtype.kind != "c":
        return S.pow_scalar(_one_plus(1, a, K, -1.0), -0.5)
    # complex: 1/(sqrt(a - 1) sqrt(a + 1)), the branch of arccosh (not 1/sqrt(a^2 - 1))
    below, above = np.array(a), np.array(a)
    below[0] -= 1
    above[0] += 1
    return S.mul(S.pow_scalar(below, -0.5), S.pow_scalar(above, -0.5))


acosh = _unary("Acosh", np.arccosh, _acosh_grad, taylor=_by_derivative(_acosh_derivative))
acosh.test_domain = (1.2, 3.0)      # where the registry sweep (tests) draws its inputs
atanh = _unary("Atanh", np.arctanh, lambda n, g: mul_no_nan(g, reciprocal(1 - square(_cx(n)))),
               taylor=_by_derivative(lambda a, K: S.pow_scalar(_one_plus(-1, a, K), -1.0)))


def _sigmoid(x):
    if np.iscomplexobj(x):          # no tails to guard (and no order) on complex numbers
        return 1 / (1 + np.exp(-x))
    # exp of a non-positive number only: no overflow, and full relative accuracy in both tails
    e = np.exp(-np.abs(x))
    out = np.where(x >= 0, 1 / (1 + e), e / (1 + e))
    return out[()] if out.ndim == 0 else out


# sigmoid' = sigmoid(x) * sigmoid(-x), not y * (1 - y), which cancels where y rounds to 1
# y' = a' (y - y^2): w_0 is taken as sigmoid(a_0) sigmoid(-a_0), exact where y_0 rounds to 1
sigmoid = _unary("Sigmoid", _sigmoid, lambda n, g: g * _cy(n) * sigmoid(-_cx(n)),
                 lambda n, g: g * _cout(n) * _sigmoid(-_cv(n)),
                 taylor=lambda n, ins, K: S.ode(
                     ins[0], n.outputs[0]._value,
                     lambda y, m, w0=n.outputs[0]._value * _sigmoid(-ins[0][0]):
                         np.reshape(w0, y.shape[1:]) if m == 0 else y[m] - S.dot(y[m::-1], y[:m + 1])))
softplus = _unary("Softplus", lambda x: np.logaddexp(0, x), lambda n, g: g * sigmoid(_x(n)),
                  taylor=_by_derivative(lambda a, K: S.ode(
                      a, 0.5 + 0.5 * np.tanh(0.5 * a[0]), lambda y, m: y[m] - S.dot(y[m::-1], y[:m + 1]))))

_erf_scalar = np.frompyfunc(_pymath.erf, 1, 1)


def _erf(x):
    x = np.asarray(x)
    out = np.asarray(_erf_scalar(x), dtype=x.dtype if x.dtype.kind == "f" else np.float64)
    return out[()] if out.ndim == 0 else out


_TWO_OVER_SQRT_PI = 2.0 / _pymath.sqrt(_pymath.pi)
erf = _unary("Erf", _erf, lambda n, g: g * _TWO_OVER_SQRT_PI * exp(-square(_x(n))),
             taylor=_by_derivative(lambda a, K: _TWO_OVER_SQRT_PI * S.exp(-S.mul(a, a))))

sign = defop("Sign", np.sign, differentiable=False)
floor = defop("Floor", np.floor, differentiable=False)
ceil = defop("Ceil", np.ceil, differentiable=False)
round = defop("Round", np.round, differentiable=False, numpy=(np.rint,))     # half to even, as TensorFlow


def _angle_np(x):
    out = np.angle(x)
    return out if np.iscomplexobj(x) else out.astype(np.result_type(x, np.float32))


def _angle_grad(node, g):
    # TensorFlow: -g / (Im(x) + i Re(x)), i.e. d atan2(y, x) = (-y dx + x dy) / |z|^2
    x = node.inputs[0]
    if x._value.dtype.kind != "c":
        return [None]                 # piecewise constant (0 or pi) on the reals
    swapped = complex_(imag(x), real(x))
    return [-cast(real_cotangent(g), x.dtype) * reciprocal(swapped)]


def _complex_grad(node, g):
    # TensorFlow: the real and imaginary parts of the cotangent, unbroadcast
    a, b = node.inputs
    nb = g._value.ndim - node.outputs[0]._value.ndim
    return [unbroadcast(real(g), a._value.shape, nb), unbroadcast(imag(g), b._value.shape, nb)]


def _complex_np(re, im):
    dtype = np.complex64 if np.result_type(re, im) == np.float32 else np.complex128
    out = np.empty(np.broadcast_shapes(np.shape(re), np.shape(im)), dtype)
    out.real, out.imag = re, im
    return out[()]


def _angle_jvp(node, t):
    x = node.inputs[0]
    if t is None or not is_complex(x):
        return None
    # d arg z = Im(conj(z) dz) / |z|^2
    return imag(conj(x) * t) / real(conj(x) * x)


def _angle_series(node, ins, K):
    # arg z = Im(log z) off the branch cut; constant (0 or pi) for a real input
    (z,) = ins
    if z.dtype.kind != "c":
        return S.const(_out(node), K)
    return S.log(z).imag


def _complex_series(node, ins, K):
    # real-linear in each part: the parts' series side by side
    re, im = (full(s, x, K) for s, x in zip(ins, node.inputs))
    nd = out_ndim(node)
    return _complex_np(S.align(re, nd), S.align(im, nd))


angle = defop("Angle", _angle_np, _angle_grad, jvp=_angle_jvp, taylor=_angle_series)
# real + 1j * imag from two real tensors (TensorFlow's tf.complex; used by Angle's rule)
complex_ = defop("Complex", _complex_np, _complex_grad, arity=2,
                 jvp=lambda n, ta, tb: None if ta is None and tb is None else
                 complex_(or_zero(ta, n.inputs[0]), or_zero(tb, n.inputs[1])),
                 taylor=_complex_series)


def log2(x):
    return log(x) / _pymath.log(2.0)


def log10(x):
    return log(x) / _pymath.log(10.0)




def add_n(inputs):
    """Sum of a list of tensors."""
    inputs = list(inputs)
    if not inputs:
        raise ValueError("add_n: inputs must be a non-empty list of tensors")
    total = inputs[0]
    for t in inputs[1:]:
        total = add(total, t)
    return total


def squared_difference(x, y):
    return square(subtract(x, y))


def div_no_nan(x, y):
    """x / y, and 0 where y is 0."""
    zero = equal(y, 0)
    return where(zero, 0, divide(x, where(zero, 1, y)))


def xlogy(x, y):
    """x * log(y), and 0 where x is 0."""
    zero = equal(x, 0)
    return where(zero, 0, x * log(where(zero, 1, y)))


def scalar_mul(scalar, x):
    return multiply(scalar, x)


def clip_by_value(t, clip_value_min, clip_value_max, name=None):
    """``t`` limited to ``[clip_value_min, clip_value_max]`` (gradient 1 inside, 0 outside)."""
    return minimum(maximum(t, clip_value_min), clip_value_max)


# The fast rules above return new arrays, the cotangent itself or the node's own values, so the
# sweep can tell which results are its own (inplace.py); -g may then be written over g.
returns_new_arrays(add, subtract, multiply, divide, pow, negative, square, sqrt, cbrt, exp, log,
                   sin, cos, tanh, sigmoid)
in_place_rule(negative, lambda n, g: np.negative(g, out=g))
