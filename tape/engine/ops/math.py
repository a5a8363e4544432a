"""Elementwise arithmetic: each primitive's NumPy forward beside its gradient rule.

Rules are written with the engine's own ops so nested tapes differentiate them again. A
cotangent ``g`` may carry leading batch axes (Jacobian sweeps); elementwise rules broadcast
over them and binary rules pass them to ``unbroadcast``.
"""
from __future__ import annotations

import math as _pymath
import operator

import numpy as np

from ..broadcast import batch_ndim, unbroadcast, unbroadcast_array
from ..dtypes import as_dtype
from ..registry import defop
from ..tensor import Tensor, _wrap


def _binary(name, fn, da, db, fast_da=None, fast_db=None, fast=None):
    """A broadcasting binary op; ``da``/``db`` give the unreduced cotangents (tape ops), and
    ``fast_da``/``fast_db`` the same on raw arrays for the first-order fast path (or ``fast``,
    the whole fast rule, for ops that special-case NumPy scalars)."""
    def grad(node, g):
        a, b = node.inputs
        nb = g._value.ndim - node.outputs[0]._value.ndim
        need_a, need_b = node.needs_grad
        ga = unbroadcast(da(node, g), a._value.shape, nb) if need_a else None
        gb = unbroadcast(db(node, g), b._value.shape, nb) if need_b else None
        return [ga, gb]

    if fast is None and fast_da is not None:
        fast = _pair_rule(fast_da, fast_db)
    return defop(name, fn, grad, fast=fast, arity=2)


def _pair_rule(fast_da, fast_db):
    """A binary op's fast rule from its two raw cotangent maps (unbroadcast as needed)."""
    def on_arrays(node, g):
        need_a, need_b = node.needs_grad
        if type(g) is not np.ndarray:   # a NumPy scalar: inputs are 0-d too, nothing to unbroadcast
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
    if type(g) is np.ndarray and g.ndim and not any(g.strides) and g.shape == np.shape(b) \
            and g.flat[0] == 1 and b.dtype == np.result_type(g, b):
        return b
    return g * b


def _scaled(fresh, g):
    """``fresh * g`` where ``fresh`` is a temporary this rule just made: multiplied in place when
    the shapes allow, saving one full-size allocation per rule on large arrays."""
    if type(fresh) is np.ndarray and fresh.shape == np.shape(g) and fresh.dtype == np.result_type(fresh, g):
        if not any(g.strides) and g.flat[0] == 1:
            return fresh
        fresh *= g
        return fresh
    return fresh * g


def _mul_no_nan_np(g, d):
    """g * d, but exactly 0 where g is 0 (even where d is inf or nan): see ``mul_no_nan``."""
    out = g * d                     # callers run inside the sweep's silenced NumPy error state
    if np.ndim(out) == 0:
        return out if g != 0 else out.dtype.type(0)
    zero = g == 0
    if zero.any():
        out = np.where(zero, 0, out)
    return out


def _mul_no_nan_grad(node, g):
    a, b = node.inputs
    nb = batch_ndim(node, g)
    ga = unbroadcast(mul_no_nan(g, _c(b)), a._value.shape, nb) if node.needs_grad[0] else None
    gb = unbroadcast(mul_no_nan(g * _c(a), _wrap(np.ones((), b._value.dtype))), b._value.shape, nb) \
        if node.needs_grad[1] else None
    return [ga, gb]


# a * b with 0 wherever a is 0: rules of ops with singular derivatives (sqrt, log, 1/x, asin,
# x**y ...) multiply the incoming cotangent this way, so a branch that where() did not select
# (cotangent exactly 0) contributes 0 instead of 0 * inf = NaN.
mul_no_nan = defop("MulNoNan", _mul_no_nan_np, _mul_no_nan_grad, arity=2)


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


def _real_cotangent(g):
    """The cotangent of a real value: its real part. (A real tensor may receive a complex one where
    NumPy's promotion mixed it with complex values, as ``abs(z) * w``: the imaginary part is no
    derivative of anything, and ops from complex to real values drop it.)"""
    return real(g) if g._value.dtype.kind == "c" else g


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
    return [g, g] if type(g) is not np.ndarray else _add_arrays(node, g)


def _sub_fast(node, g):
    return [g, -g] if type(g) is not np.ndarray else _sub_arrays(node, g)


def _mul_fast(node, g):
    if type(g) is np.ndarray:
        return _mul_arrays(node, g)
    if type(g) is not _F64 and _is_complex_node(node):
        return _mul_arrays(node, g)
    a, b = node.inputs
    return [g * b._value, g * a._value]


add = _binary("AddV2", operator.add, lambda n, g: g, lambda n, g: g, fast=_add_fast)
subtract = _binary("Sub", operator.sub, lambda n, g: g, lambda n, g: -g, fast=_sub_fast)
multiply = _binary("Mul", operator.mul, lambda n, g: g * _c(n.inputs[1]), lambda n, g: g * _c(n.inputs[0]),
                   fast=_mul_fast)
divide = _binary("RealDiv", operator.truediv, lambda n, g: mul_no_nan(g, reciprocal(_c(n.inputs[1]))),
                 lambda n, g: mul_no_nan(-g, _c(n.outputs[0] / n.inputs[1])),
                 lambda n, g: _mul_no_nan_np(g, 1 / _cv(n, 1)),
                 lambda n, g: _mul_no_nan_np(-g, _cout(n) / _cv(n, 1)))
truediv = divide


def _pow_fast_da(node, g):
    x, y = _cv(node, 0), _cv(node, 1)
    if y.ndim == 0 and y == 2:
        return _scaled(x + x, g)
    return _mul_no_nan_np(g * y, x ** (y - 1))


def _pow_fast_db(node, g):
    x = _v(node, 0)
    if x.dtype.kind == "c":         # log(x) wherever x != 0, conjugated (TensorFlow's rule)
        nz = x != 0
        return g * np.conj(_out(node) * np.log(np.where(nz, x, 1)) * nz)
    pos = x > 0
    return g * _cout(node) * np.log(np.where(pos, x, 1)) * pos


def _pow_da(node, g):
    x, y = node.inputs
    if x._value.dtype.kind == "c" or y._value.dtype.kind == "c":
        return mul_no_nan(g * _c(y), _c(pow(x, y - 1)))
    return mul_no_nan(g * y, pow(x, y - 1))


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
    if type(g) is np.ndarray or (type(g) is not _F64 and _is_complex_node(node)):
        return _pow_arrays(node, g)
    need_a, need_b = node.needs_grad
    ga = gb = None
    if need_a:
        x, y = node.inputs[0]._value, node.inputs[1]._value
        gy = g * y
        ga = gy * x ** (y - 1)
        if not gy:
            ga = type(ga)(0)          # mul_no_nan: x**0 at 0, or an unselected branch, gives 0
    if need_b:
        gb = _pow_fast_db(node, g)
    return [ga, gb]


pow = _binary("Pow", operator.pow, _pow_da, _pow_db, fast=_pow_fast)
maximum = _binary("Maximum", np.maximum,
                  lambda n, g: where(greater_equal(n.inputs[0], n.inputs[1]), g, 0),
                  lambda n, g: where(greater_equal(n.inputs[0], n.inputs[1]), 0, g))
minimum = _binary("Minimum", np.minimum,
                  lambda n, g: where(less_equal(n.inputs[0], n.inputs[1]), g, 0),
                  lambda n, g: where(less_equal(n.inputs[0], n.inputs[1]), 0, g))
floormod = _binary("FloorMod", np.mod, lambda n, g: g,
                   lambda n, g: -g * floor(n.inputs[0] / n.inputs[1]))
mod = floormod
atan2 = _binary("Atan2", np.arctan2,
                lambda n, g: g * n.inputs[1] / (square(n.inputs[0]) + square(n.inputs[1])),
                lambda n, g: -g * n.inputs[0] / (square(n.inputs[0]) + square(n.inputs[1])))
floordiv = defop("FloorDiv", np.floor_divide, differentiable=False, arity=2)


def _unary(name, fn, rule, fast=None):
    """An elementwise op; ``rule`` (tape ops) and ``fast`` (raw arrays) map g to the input's
    cotangent (a one-input op's fast rule returns it bare, not in a list)."""
    return defop(name, fn, lambda node, g: [rule(node, g)], fast=fast, arity=1)


def _x(node):
    return node.inputs[0]


def _y(node):
    return node.outputs[0]


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
        return g * t if t > 2e-5 else g / np.cosh(x) ** 2
    t = y * y                       # one temporary, updated in place
    np.subtract(1, t, out=t)
    if t.size and t.min() < 2e-5:    # one reduction, no mask, in the usual case of no tail
        tail = t < 2e-5
        t[tail] = 1 / np.cosh(x[tail]) ** 2
    return _scaled(t, g)


negative = _unary("Neg", operator.neg, lambda n, g: -g, lambda n, g: -g)


def _abs_grad(node, g):
    x = node.inputs[0]
    if x._value.dtype.kind == "c":       # z / |z| (0 at z = 0), as TensorFlow's ComplexAbs
        g = cast(_real_cotangent(g), x.dtype)
        return div_no_nan(g * x, cast(node.outputs[0], x.dtype))
    return g * sign(x)


abs = _unary("Abs", np.abs, _abs_grad)
square = _unary("Square", np.square, lambda n, g: g * (2 * _cx(n)), lambda n, g: g * (2 * _cv(n)))
sqrt = _unary("Sqrt", np.sqrt, lambda n, g: mul_no_nan(g, 0.5 / _cy(n)),
               lambda n, g: _mul_no_nan_np(g, 0.5 / _cout(n)))
rsqrt = _unary("Rsqrt", lambda x: 1 / np.sqrt(x), lambda n, g: mul_no_nan(g, -0.5 * _cy(n) / _cx(n)))
reciprocal = _unary("Reciprocal", np.reciprocal, lambda n, g: mul_no_nan(-g, square(_cy(n))))
exp = _unary("Exp", np.exp, lambda n, g: g * _cy(n), lambda n, g: _times(g, _cout(n)))
expm1 = _unary("Expm1", np.expm1, lambda n, g: g * (_cy(n) + 1))
log = _unary("Log", np.log, lambda n, g: mul_no_nan(g, reciprocal(_cx(n))),
              lambda n, g: _mul_no_nan_np(g, 1 / _cv(n)))
log1p = _unary("Log1p", np.log1p, lambda n, g: mul_no_nan(g, reciprocal(1 + _cx(n))))
sin = _unary("Sin", np.sin, lambda n, g: g * cos(_cx(n)), lambda n, g: _scaled(np.cos(_cv(n)), g))
cos = _unary("Cos", np.cos, lambda n, g: -g * sin(_cx(n)), lambda n, g: _scaled(np.sin(_cv(n)), -g))
tan = _unary("Tan", np.tan, lambda n, g: g * (1 + square(_cy(n))))
asin = _unary("Asin", np.arcsin, lambda n, g: mul_no_nan(g, rsqrt(1 - square(_cx(n)))))
acos = _unary("Acos", np.arccos, lambda n, g: mul_no_nan(-g, rsqrt(1 - square(_cx(n)))))
atan = _unary("Atan", np.arctan, lambda n, g: g / (1 + square(_cx(n))))
sinh = _unary("Sinh", np.sinh, lambda n, g: g * cosh(_cx(n)))
cosh = _unary("Cosh", np.cosh, lambda n, g: g * sinh(_cx(n)))
# d tanh = sech^2 x, not 1 - tanh^2 x: in the tails tanh rounds to +-1 and 1 - y^2 cancels to 0
def _sech_squared(x):
    """sech^2 x = 4e/(1+e)^2 with e = exp(-2|x|): never overflows, and every derivative stays
    finite (|x| is taken as where(x >= 0, x, -x), so no kink of abs enters higher orders)."""
    e = exp(-2 * where(greater_equal(x, 0), x, -x))
    return 4 * e / square(1 + e)


def _tanh_grad(node, g):
    if node.inputs[0]._value.dtype.kind == "c":     # no sign test on complex numbers: 1 - y^2
        return g * (1 - square(conj(node.outputs[0])))
    return g * _sech_squared(node.inputs[0])


tanh = _unary("Tanh", np.tanh, _tanh_grad, _tanh_fast)
asinh = _unary("Asinh", np.arcsinh, lambda n, g: g * rsqrt(square(_cx(n)) + 1))
def _acosh_grad(node, g):
    x = node.inputs[0]
    if x._value.dtype.kind == "c":      # 1/sqrt(z^2 - 1) is on the wrong branch where Re z < 0
        cx = conj(x)
        return mul_no_nan(g, rsqrt(cx - 1) * rsqrt(cx + 1))
    return mul_no_nan(g, rsqrt(square(x) - 1))


acosh = _unary("Acosh", np.arccosh, _acosh_grad)
atanh = _unary("Atanh", np.arctanh, lambda n, g: mul_no_nan(g, reciprocal(1 - square(_cx(n)))))


def _sigmoid(x):
    if np.iscomplexobj(x):          # no tails to guard (and no order) on complex numbers
        return 1 / (1 + np.exp(-x))
    # exp of a non-positive number only: no overflow, and full relative accuracy in both tails
    e = np.exp(-np.abs(x))
    out = np.where(x >= 0, 1 / (1 + e), e / (1 + e))
    return out[()] if out.ndim == 0 else out


# sigmoid' = sigmoid(x) * sigmoid(-x), not y * (1 - y), which cancels where y rounds to 1
sigmoid = _unary("Sigmoid", _sigmoid, lambda n, g: g * _cy(n) * sigmoid(-_cx(n)),
                 lambda n, g: g * _cout(n) * _sigmoid(-_cv(n)))
softplus = _unary("Softplus", lambda x: np.logaddexp(0, x), lambda n, g: g * sigmoid(_x(n)))

_erf_scalar = np.frompyfunc(_pymath.erf, 1, 1)


def _erf(x):
    x = np.asarray(x)
    out = np.asarray(_erf_scalar(x), dtype=x.dtype if x.dtype.kind == "f" else np.float64)
    return out[()] if out.ndim == 0 else out


_TWO_OVER_SQRT_PI = 2.0 / _pymath.sqrt(_pymath.pi)
erf = _unary("Erf", _erf, lambda n, g: g * _TWO_OVER_SQRT_PI * exp(-square(_x(n))))

sign = defop("Sign", np.sign, differentiable=False)
floor = defop("Floor", np.floor, differentiable=False)
ceil = defop("Ceil", np.ceil, differentiable=False)
round = defop("Round", np.round, differentiable=False)     # half to even, as TensorFlow
identity = _unary("Identity", lambda x: x, lambda n, g: g, lambda n, g: g)


def _cast_grad(node, g):
    src = node.inputs[0]
    if not src.dtype.is_differentiable or not g.dtype.is_differentiable:
        return [None]
    return [cast(g, src.dtype)]


_cast = defop("Cast", lambda x, dtype: x.astype(dtype), _cast_grad)


def cast(x, dtype, name=None) -> Tensor:
    """``x`` converted to ``dtype`` (differentiable between floating types)."""
    npd = as_dtype(dtype)._np
    if isinstance(x, Tensor) and x._value.dtype == npd:
        return x
    if not isinstance(x, Tensor):
        from ..tensor import convert_to_tensor
        x = convert_to_tensor(x)
    if x._value.dtype.kind == "c" and npd.kind != "c":
        return _cast(real(x), dtype=npd)
    return _cast(x, dtype=npd)


def _real_grad(node, g):
    # TensorFlow: complex(g, 0); the cotangent of a complex number is complex
    x = node.inputs[0]
    return [cast(_real_cotangent(g), x.dtype) if x._value.dtype.kind == "c" else g]


def _imag_grad(node, g):
    # TensorFlow: complex(0, g); a real input's imaginary part is the constant 0
    x = node.inputs[0]
    if x._value.dtype.kind != "c":
        return [None]
    return [cast(_real_cotangent(g), x.dtype) * _wrap(np.asarray(1j, x._value.dtype)[()])]


def _angle_np(x):
    out = np.angle(x)
    return out if np.iscomplexobj(x) else out.astype(np.result_type(x, np.float32))


def _angle_grad(node, g):
    # TensorFlow: -g / (Im(x) + i Re(x)), i.e. d atan2(y, x) = (-y dx + x dy) / |z|^2
    x = node.inputs[0]
    if x._value.dtype.kind != "c":
        return [None]                 # piecewise constant (0 or pi) on the reals
    swapped = complex_(imag(x), real(x))
    return [-cast(_real_cotangent(g), x.dtype) * reciprocal(swapped)]


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


real = defop("Real", np.real, _real_grad)
imag = defop("Imag", np.imag, _imag_grad)
conj = defop("Conj", np.conj, lambda n, g: [conj(g)])
angle = defop("Angle", _angle_np, _angle_grad)
# real + 1j * imag from two real tensors (TensorFlow's tf.complex; used by Angle's rule)
complex_ = defop("Complex", _complex_np, _complex_grad, arity=2)


def log2(x):
    return log(x) / _pymath.log(2.0)


def log10(x):
    return log(x) / _pymath.log(10.0)


def cbrt(x):
    """Real cube root (defined for negative x too)."""
    return sign(x) * pow(abs(x), 1.0 / 3.0)


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


from .compare import equal, greater, greater_equal, less_equal, not_equal  # noqa: E402  (cycle: compare uses nothing here)
from .array import where  # noqa: E402
