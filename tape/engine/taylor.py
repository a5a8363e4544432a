"""Taylor mode: n-th derivatives of a function of one variable in one forward pass.

``f`` runs once on tensors while a GradientTape records it; then truncated Taylor series
``[c0, c1, ..., cn]`` (NumPy arrays of shape ``(n+1,) + value.shape``) are pushed through the
recorded nodes with the standard recurrences (Griewank & Walther, ch. 13). The n-th derivative
is ``n! * c_n``. Each op costs O(n^2) flops in O(n) NumPy calls, so order 20 costs about what a
handful of gradients cost, where nested tapes grow exponentially with the order.

Rules live in ``_TAYLOR`` keyed by op name: ``rule(node, series, K) -> series`` where ``series``
holds one array per input, or None for an input that does not depend on x (a constant). An op
without a rule falls back to nested tapes on ``op(sum_k c_k t^k)`` (exact, slower).
"""
from __future__ import annotations

import math

import numpy as np

from .tensor import Tensor, _wrap

_TAYLOR: dict = {}


def deftaylor(op_name, rule=None):
    """Register ``rule(node, series, K) -> output series`` for ``op_name`` (or decorate)."""
    if rule is None:
        return lambda r: deftaylor(op_name, r)
    _TAYLOR[op_name] = rule
    return rule


# -- series arithmetic on arrays of shape (K, ...) -----------------------------------------
def _const(value, K):
    s = np.zeros((K,) + np.shape(value), np.result_type(value, np.float64))
    s[0] = value
    return s


def _align(s, ndim):
    """Series reshaped so that its value axes broadcast against a value of rank ``ndim``."""
    extra = ndim - (s.ndim - 1)
    return s.reshape(s.shape[:1] + (1,) * extra + s.shape[1:]) if extra > 0 else s


def _mul(a, b):
    """Cauchy product of two series (truncated)."""
    K = a.shape[0]
    if a.ndim == 1 and b.ndim == 1:
        return np.convolve(a, b)[:K]
    shape = np.broadcast_shapes(a.shape, b.shape)
    out = np.zeros(shape, np.result_type(a, b))
    for j in range(K):
        out[j:] += a[j] * b[:K - j]
    return out


def _flat(s):
    """(K, P) view of a series, or (K,) for a single point: NumPy's fastest dot applies."""
    return s.reshape(s.shape[0], -1) if s.ndim > 1 and s[0].size > 1 else s.reshape(s.shape[0])


def _dot(a, b):
    return np.dot(a, b) if a.ndim == 1 else np.einsum("ij,ij->j", a, b)


def _weights(K, ndim):
    return np.arange(K, dtype=np.float64).reshape((K,) + (1,) * (ndim - 1))


def _div(a, b):
    """Series quotient a / b: c_k = (a_k - sum_{j>=1} b_j c_{k-j}) / b_0."""
    ndim = max(a.ndim, b.ndim)
    a, b = _align(a, ndim - 1), _align(b, ndim - 1)
    shape = np.broadcast_shapes(a.shape, b.shape)
    a, b = _flat(np.broadcast_to(a, shape)), _flat(np.broadcast_to(b, shape))
    c = np.empty(a.shape, np.result_type(a, b))
    c[0] = a[0] / b[0]
    for k in range(1, a.shape[0]):
        c[k] = (a[k] - _dot(b[k:0:-1], c[:k])) / b[0]
    return c.reshape(shape)


def _ode(a, y0, h):
    """y with y' = a' * w where w_m = h(y, m) needs y_0..y_m (sequential recurrence)."""
    shape = a.shape
    a = _flat(a)
    K = a.shape[0]
    ja = _weights(K, a.ndim) * a
    y = np.empty(a.shape, a.dtype)
    w = np.empty(a.shape, a.dtype)
    y[0] = np.reshape(y0, a.shape[1:])
    w[0] = h(y, 0)
    for k in range(1, K):
        y[k] = _dot(ja[k:0:-1], w[:k]) / k
        w[k] = h(y, k)
    return y.reshape(shape)


def _integrate(d, y0):
    """y with y' = d (d a series of the same length; its last coefficient is not needed)."""
    y = np.empty_like(d)
    y[0] = y0
    y[1:] = d[:-1] / _weights(len(d), d.ndim)[1:]
    return y


def _derivative(a):
    """Series of a' (the last coefficient, beyond truncation, is set to 0)."""
    d = np.zeros_like(a)
    d[:-1] = a[1:] * _weights(len(a), a.ndim)[1:]
    return d


def _affine(a):
    """True when only c0 and c1 are nonzero (f applied straight to the variable): closed forms."""
    return a.shape[0] <= 2 or not a[2:].any()


def _exp(a):
    if _affine(a):
        k = _weights(a.shape[0], a.ndim)
        return np.exp(a[0]) * a[1] ** k / _FACT[:a.shape[0]].reshape(k.shape)
    return _ode(a, np.exp(a[0]), lambda y, m: y[m])


def _log(a, y0=None, a0=None):
    """log(a); log1p passes its own y0 and a0 = 1 + a_0."""
    a0 = a[0] if a0 is None else a0
    y0 = np.log(a[0]) if y0 is None else y0
    if _affine(a):
        k = _weights(a.shape[0], a.ndim)
        with np.errstate(divide="ignore", invalid="ignore"):
            y = -((-a[1] / a0) ** k) / np.where(k == 0, 1, k)
        y[0] = y0
        return y
    d = _derivative(a)
    return _integrate(_div(d, _replace0(a, a0)), y0)


def _replace0(a, a0):
    b = a.copy()
    b[0] = a0
    return b


def _sincos(a):
    if _affine(a):
        k = _weights(a.shape[0], a.ndim)
        scale = a[1] ** k / _FACT[:a.shape[0]].reshape(k.shape)
        # the k-th derivatives cycle exactly (sin(a + k pi/2) in floating point would not)
        cycle = np.empty((4,) + a.shape[1:], a.dtype)
        cycle[0] = np.sin(a[0])
        cycle[1] = np.cos(a[0])
        cycle[2] = -cycle[0]
        cycle[3] = -cycle[1]
        k4 = _MOD4[:a.shape[0]]
        return cycle[k4] * scale, cycle[k4 + 1 - 4 * (k4 == 3)] * scale
    return _coupled(a, np.sin(a[0]), np.cos(a[0]), -1.0)


def _coupled(a, s0, c0, sign):
    """s' = a' c, c' = sign * a' s: sin/cos (sign -1) and sinh/cosh (sign +1)."""
    shape = a.shape
    a = _flat(a)
    K = a.shape[0]
    ja = _weights(K, a.ndim) * a
    s = np.empty(a.shape, a.dtype)
    c = np.empty(a.shape, a.dtype)
    s[0] = np.reshape(s0, a.shape[1:])
    c[0] = np.reshape(c0, a.shape[1:])
    for k in range(1, K):
        s[k] = _dot(ja[k:0:-1], c[:k]) / k
        c[k] = sign * _dot(ja[k:0:-1], s[:k]) / k
    return s.reshape(shape), c.reshape(shape)


def _pow_scalar(a, r):
    """a ** r for a constant exponent r."""
    r_value = np.asarray(r)
    if r_value.size == 1 and float(r_value) == int(r_value) and 0 <= int(r_value) <= 64:
        n = int(r_value)               # exact at a_0 = 0 too (x**3 at 0), unlike the recurrence
        out, base = _const(np.ones_like(a[0]), a.shape[0]), a
        while n:
            if n & 1:
                out = _mul(out, base)
            n >>= 1
            if n:
                base = _mul(base, base)
        return out
    if _affine(a) and r_value.size == 1:
        k = _weights(a.shape[0], a.ndim)
        r = float(r_value)
        binom = np.cumprod(np.concatenate([[1.0], (r - np.arange(a.shape[0] - 1)) /
                                           np.arange(1, a.shape[0])])).reshape(k.shape)
        with np.errstate(divide="ignore", invalid="ignore"):
            return binom * a[0] ** (r - k) * a[1] ** k
    # a y' = r a' y  =>  y_k = sum_{j=1..k} ((r+1) j - k) a_j y_{k-j} / (k a_0)
    shape = np.broadcast_shapes(a.shape, (1,) + np.shape(r))
    af = _flat(np.broadcast_to(a, shape))
    rf = np.broadcast_to(r, shape[1:]).reshape(af.shape[1:])
    K = af.shape[0]
    y = np.empty(af.shape, np.result_type(af, rf))
    y[0] = af[0] ** rf
    j = _weights(K, af.ndim)
    for k in range(1, K):
        coef = (rf + 1) * j[1:k + 1] - k
        y[k] = _dot(coef * af[1:k + 1], y[k - 1::-1]) / (k * af[0])
    return y.reshape(shape)


_MOD4 = np.arange(400) % 4
_FACT = np.array([math.factorial(k) for k in range(171)], dtype=np.float64)


# -- propagation ---------------------------------------------------------------------------
def taylor_coefficients(f, x, order):
    """Taylor coefficients ``[c0..c_order]`` of ``f`` around each point of ``x``.

    ``x`` is a float NumPy array (or scalar) of points; ``f`` maps a tensor of points to a tensor
    of the same shape, elementwise. Returns an array of shape ``(order+1,) + x.shape``.
    """
    from .tape import GradientTape
    K = order + 1
    X = _wrap(x)
    with GradientTape(watch_accessed_variables=False) as tp:
        tp.watch(X)
        y = f(X)
    if not isinstance(y, Tensor):
        from .tensor import convert_to_tensor
        y = convert_to_tensor(y)
    if K == 1:
        return _const(y._value, 1)
    seed = np.zeros((K,) + np.shape(x), np.result_type(x, np.float64))
    seed[0] = x
    if K > 1:
        seed[1] = 1
    series = {id(X): seed}
    for node in tp._nodes:
        ins = [series.get(id(i)) for i in node.inputs]
        if all(s is None for s in ins):
            continue
        out = node.outputs[0]
        if out._value.dtype.kind not in "fc":
            continue
        rule = _TAYLOR.get(node.op.name) if node.op.custom_grad is None else None
        s = rule(node, ins, K) if rule is not None else _nested_tapes(node, ins, K)
        s = np.asarray(s)
        if s.shape[1:] != out._value.shape:
            s = np.broadcast_to(s, (K,) + out._value.shape)
        s = np.array(s, dtype=out._value.dtype)          # own, writable, the op's dtype
        s[0] = out._value                                # c0 is the op's own value, exactly
        series[id(out)] = s
    got = series.get(id(y))
    return got if got is not None else _const(y._value, K)


def _nested_tapes(node, ins, K):
    """Fallback: derivatives of op(sum_k c_k t^k) at t = 0 by nested tapes, one per order."""
    from .tape import GradientTape
    if node.op.fn is None or len(node.outputs) != 1:
        raise NotImplementedError(f"Taylor mode has no rule for the op {node.op.name} (custom "
                                  "gradients and multi-output ops cannot be re-run); use nested "
                                  "GradientTapes for its higher derivatives")
    t = _wrap(np.zeros((), node.outputs[0]._value.dtype)[()])
    tapes = [GradientTape() for _ in range(K - 1)]
    for tp in tapes:
        tp.__enter__()
        tp.watch(t)
    try:
        args = []
        for s, x in zip(ins, node.inputs):
            if s is None:
                args.append(x)
                continue
            poly = _wrap(s[K - 1])
            for k in range(K - 2, -1, -1):          # Horner: c_0 + t (c_1 + t (c_2 + ...))
                poly = poly * t + _wrap(s[k])
            args.append(poly)
        d = node.op(*args, **node.attrs)
        out = [d._value]
        for k in range(1, K):
            tp = tapes.pop()                        # innermost: its sweep is recorded by the rest
            tp.__exit__(None, None, None)
            d = tp.jacobian(d, t, unconnected_gradients="zero")
            out.append(d._value / _FACT[k])
    finally:
        for tp in tapes:
            tp.__exit__(None, None, None)
    return np.stack(out)


# -- rules ---------------------------------------------------------------------------------
def _full(s, x, K):
    return s if s is not None else _const(x._value, K)


def _nd(node):
    return node.outputs[0]._value.ndim


def _add_rule(sign):
    def rule(node, ins, K):
        a, b = ins
        nd = _nd(node)
        out = np.zeros((K,) + node.outputs[0]._value.shape)
        if a is not None:
            out[1:] += _align(a, nd)[1:]
        if b is not None:
            out[1:] += sign * _align(b, nd)[1:]
        return out
    return rule


deftaylor("AddV2", _add_rule(1.0))
deftaylor("Sub", _add_rule(-1.0))
deftaylor("Neg", lambda n, ins, K: -ins[0])
deftaylor("Identity", lambda n, ins, K: ins[0])
deftaylor("Cast", lambda n, ins, K: ins[0])
deftaylor("Real", lambda n, ins, K: np.real(ins[0]))
deftaylor("Conj", lambda n, ins, K: np.conj(ins[0]))


@deftaylor("Mul")
def _mul_rule(node, ins, K):
    (a, b), nd = ins, _nd(node)
    if a is None:
        return node.inputs[0]._value * _align(b, nd)
    if b is None:
        return _align(a, nd) * node.inputs[1]._value
    return _mul(_align(a, nd), _align(b, nd))


@deftaylor("MulNoNan")
def _mul_no_nan_rule(node, ins, K):
    # a * b, but 0 wherever a is identically 0 (b may be inf or nan there)
    a = _align(_full(ins[0], node.inputs[0], K), _nd(node))
    b = _align(_full(ins[1], node.inputs[1], K), _nd(node))
    zero = ~a.any(axis=0)
    with np.errstate(invalid="ignore"):
        return np.where(zero, 0.0, _mul(a, np.where(zero, 0.0, b)))


@deftaylor("RealDiv")
def _div_rule(node, ins, K):
    (a, b), nd = ins, _nd(node)
    if b is None:
        return _align(a, nd) / node.inputs[1]._value
    return _div(_align(_full(a, node.inputs[0], K), nd), _align(b, nd))


@deftaylor("Pow")
def _pow_rule(node, ins, K):
    (a, b), nd = ins, _nd(node)
    x, r = node.inputs
    if b is None:
        return _pow_scalar(_align(a, nd), r._value)
    with np.errstate(divide="ignore"):
        log_a = np.log(x._value) if a is None else None
    exponent = _align(b, nd) * log_a if a is None else \
        _mul(_align(b, nd), _align(_log(a), nd))              # a^b = exp(b log a)
    return _exp(exponent)


deftaylor("Exp", lambda n, ins, K: _exp(ins[0]))
deftaylor("Expm1", lambda n, ins, K: _exp(ins[0]))                 # c0 is fixed up to expm1(a0)
deftaylor("Log", lambda n, ins, K: _log(ins[0]))
deftaylor("Log1p", lambda n, ins, K: _log(ins[0], np.log1p(ins[0][0]), 1 + ins[0][0]))
deftaylor("Sqrt", lambda n, ins, K: _pow_scalar(ins[0], 0.5))
deftaylor("Rsqrt", lambda n, ins, K: _pow_scalar(ins[0], -0.5))
deftaylor("Reciprocal", lambda n, ins, K: _pow_scalar(ins[0], -1.0))
deftaylor("Square", lambda n, ins, K: _mul(ins[0], ins[0]))
deftaylor("Sin", lambda n, ins, K: _sincos(ins[0])[0])
deftaylor("Cos", lambda n, ins, K: _sincos(ins[0])[1])
deftaylor("Sinh", lambda n, ins, K: _coupled(ins[0], np.sinh(ins[0][0]), np.cosh(ins[0][0]), 1.0)[0])
deftaylor("Cosh", lambda n, ins, K: _coupled(ins[0], np.sinh(ins[0][0]), np.cosh(ins[0][0]), 1.0)[1])
# y' = a' w(y): w_m is the m-th coefficient of 1 + y^2, 1 - y^2, y - y^2
deftaylor("Tan", lambda n, ins, K: _ode(ins[0], np.tan(ins[0][0]),
                                        lambda y, m: (m == 0) + _dot(y[m::-1], y[:m + 1])))
deftaylor("Tanh", lambda n, ins, K: _ode(ins[0], np.tanh(ins[0][0]),
                                         lambda y, m: (m == 0) - _dot(y[m::-1], y[:m + 1])))
deftaylor("Sigmoid", lambda n, ins, K: _ode(ins[0], n.outputs[0]._value,
                                            lambda y, m: y[m] - _dot(y[m::-1], y[:m + 1])))


def _by_derivative(g):
    """y with y' = a' g(a), g built from series ops: atan, asin, erf, softplus, ..."""
    def rule(node, ins, K):
        a = ins[0]
        return _integrate(_mul(_derivative(a), g(a, K)), node.outputs[0]._value)
    return rule


def _one_plus(sign_sq, a, K, c=1.0):
    s = sign_sq * _mul(a, a)
    s[0] += c
    return s


deftaylor("Atan", _by_derivative(lambda a, K: _pow_scalar(_one_plus(1, a, K), -1.0)))
deftaylor("Atanh", _by_derivative(lambda a, K: _pow_scalar(_one_plus(-1, a, K), -1.0)))
deftaylor("Asin", _by_derivative(lambda a, K: _pow_scalar(_one_plus(-1, a, K), -0.5)))
deftaylor("Acos", _by_derivative(lambda a, K: -_pow_scalar(_one_plus(-1, a, K), -0.5)))
deftaylor("Asinh", _by_derivative(lambda a, K: _pow_scalar(_one_plus(1, a, K), -0.5)))
deftaylor("Acosh", _by_derivative(lambda a, K: _pow_scalar(_one_plus(1, a, K, -1.0), -0.5)))
deftaylor("Erf", _by_derivative(lambda a, K: 2 / math.sqrt(math.pi) * _exp(-_mul(a, a))))
deftaylor("Softplus", _by_derivative(
    lambda a, K: _ode(a, 0.5 + 0.5 * np.tanh(0.5 * a[0]), lambda y, m: y[m] - _dot(y[m::-1], y[:m + 1]))))
deftaylor("Abs", lambda n, ins, K: np.sign(ins[0][0]) * ins[0])
deftaylor("Relu", lambda n, ins, K: (ins[0][0] > 0) * ins[0])


def _select_rule(cond_of):
    def rule(node, ins, K):
        a, b = ins[-2:]
        x, y = node.inputs[-2:]
        nd = _nd(node)
        return np.where(cond_of(node), _align(_full(a, x, K), nd), _align(_full(b, y, K), nd))
    return rule


deftaylor("Maximum", _select_rule(lambda n: n.inputs[0]._value >= n.inputs[1]._value))
deftaylor("Minimum", _select_rule(lambda n: n.inputs[0]._value <= n.inputs[1]._value))
deftaylor("SelectV2", _select_rule(lambda n: n.inputs[0]._value))


@deftaylor("FloorMod")
def _floormod_rule(node, ins, K):
    (a, b), nd = ins, _nd(node)
    x, y = node.inputs
    q = np.floor(x._value / y._value)
    return _align(_full(a, x, K), nd) - q * _align(_full(b, y, K), nd)


@deftaylor("Atan2")
def _atan2_rule(node, ins, K):
    nd = _nd(node)
    a, b = (_align(_full(s, x, K), nd) for s, x in zip(ins, node.inputs))
    num = _mul(b, _derivative(a)) - _mul(a, _derivative(b))       # (b a' - a b') / (a^2 + b^2)
    return _integrate(_div(num, _mul(a, a) + _mul(b, b)), node.outputs[0]._value)


# -- reductions and shape ops: act on the value axes, axis 0 is the series ----------------
def _axes1(axis, ndim):
    return tuple(range(1, ndim + 1)) if axis is None else tuple(a + 1 for a in axis)


deftaylor("Sum", lambda n, ins, K: np.sum(ins[0], axis=_axes1(n.attrs["axis"], n.inputs[0].ndim),
                                          keepdims=n.attrs["keepdims"]))
deftaylor("Mean", lambda n, ins, K: np.mean(ins[0], axis=_axes1(n.attrs["axis"], n.inputs[0].ndim),
                                            keepdims=n.attrs["keepdims"]))


@deftaylor("Max")
def _extreme_rule(node, ins, K):
    x, y = node.inputs[0]._value, node.outputs[0]._value
    axes = node.attrs["axis"]
    kept = np.reshape(y, [1 if axes is None or i in axes else d for i, d in enumerate(x.shape)])
    mask = (x == kept).astype(x.dtype)
    mask = mask / np.sum(mask, axis=axes, keepdims=True)          # ties share, as the gradient
    return np.sum(ins[0] * mask, axis=_axes1(axes, x.ndim), keepdims=node.attrs["keepdims"])


deftaylor("Min", _extreme_rule)


def _logsumexp_series(a, axis, ndim, keepdims):
    axes = _axes1(axis, ndim)
    m = np.max(a[0], axis=None if axis is None else axis, keepdims=True)
    shifted = a.copy()
    shifted[0] -= m                                  # exp(a - m): no overflow
    out = _log(np.sum(_exp(shifted), axis=axes, keepdims=True))
    out[0] += m
    return out if keepdims else np.squeeze(out, axis=axes)


deftaylor("LogSumExp", lambda n, ins, K: _logsumexp_series(ins[0], n.attrs["axis"], n.inputs[0].ndim,
                                                           n.attrs["keepdims"]))
deftaylor("LogSoftmax", lambda n, ins, K: ins[0] - _logsumexp_series(
    ins[0], (n.attrs["axis"] % n.inputs[0].ndim,), n.inputs[0].ndim, True))
deftaylor("Softmax", lambda n, ins, K: _exp(ins[0] - _logsumexp_series(
    ins[0], (n.attrs["axis"] % n.inputs[0].ndim,), n.inputs[0].ndim, True)))
deftaylor("EuclideanNorm", lambda n, ins, K: _pow_scalar(np.sum(
    _mul(ins[0], ins[0]), axis=_axes1(n.attrs["axis"], n.inputs[0].ndim),
    keepdims=n.attrs["keepdims"]), 0.5))
deftaylor("Reshape", lambda n, ins, K: np.reshape(ins[0], (K,) + n.outputs[0]._value.shape))
deftaylor("BroadcastTo", lambda n, ins, K: np.broadcast_to(ins[0], (K,) + n.outputs[0]._value.shape))
deftaylor("Transpose", lambda n, ins, K: np.transpose(ins[0], (0,) + tuple(a + 1 for a in n.attrs["axes"])))
deftaylor("StridedSlice", lambda n, ins, K: ins[0][(slice(None),) + n.attrs["key"]])
deftaylor("Tile", lambda n, ins, K: np.tile(ins[0], (1,) + tuple(n.attrs["multiples"])))
deftaylor("Pad", lambda n, ins, K: np.pad(ins[0], ((0, 0),) + tuple(n.attrs["paddings"])))
deftaylor("ConcatV2", lambda n, ins, K: np.concatenate(
    [_full(s, x, K) for s, x in zip(ins, n.inputs)], axis=n.attrs["axis"] + 1))


@deftaylor("ScatterKey")
def _scatter_rule(node, ins, K):
    from .ops.array import _scatter_np
    return _scatter_np(ins[0], (K,) + tuple(node.attrs["shape"]), (slice(None),) + node.attrs["key"])


@deftaylor("Cumsum")
def _cumsum_rule(node, ins, K):
    from .ops.reduce import _cumsum_np
    return _cumsum_np(ins[0], node.attrs["axis"] + 1, node.attrs["reverse"])


@deftaylor("MatMul")
def _matmul_rule(node, ins, K):
    (a, b), nd = ins, _nd(node)
    x, y = node.inputs
    if a is None:
        return np.matmul(x._value, _align(b, nd))
    if b is None:
        return np.matmul(_align(a, nd), y._value)
    a, b = _align(a, nd), _align(b, nd)
    out = np.matmul(a[:1], b)                          # shapes; row k: sum_j a_j @ b_{k-j}
    for k in range(K):
        out[k] = sum(np.matmul(a[j], b[k - j]) for j in range(k + 1))
    return out


@deftaylor("Einsum")
def _einsum_rule(node, ins, K):
    live = [k for k, s in enumerate(ins) if s is not None]
    if len(live) > 2:
        return _nested_tapes(node, ins, K)
    spec, subs = node.attrs["output"], list(node.attrs["inputs"])
    if len(live) == 1:                                  # linear in the one live operand
        letter = next(c for c in "zyxwvutsrqponmlkjihgfedcbaZYXWVUTSRQPONMLKJIHGFEDCBA"
                      if c not in node.attrs["spec"])
        subs[live[0]] = letter + subs[live[0]]
        args = [ins[k] if k == live[0] else x._value for k, x in enumerate(node.inputs)]
        return np.einsum(",".join(subs) + "->" + letter + spec, *args)
    i, j = live                                         # bilinear: a Cauchy product
    args = [x._value for x in node.inputs]
    out = np.zeros((K,) + node.outputs[0]._value.shape)
    equation = ",".join(subs) + "->" + spec
    for k in range(K):
        for m in range(k + 1):
            args[i], args[j] = ins[i][m], ins[j][k - m]
            out[k] += np.einsum(equation, *args)
    return out


@deftaylor("Prod")
def _prod_rule(node, ins, K):
    a, x = ins[0], node.inputs[0]._value
    axes = tuple(range(x.ndim)) if node.attrs["axis"] is None else node.attrs["axis"]
    moved = np.moveaxis(a, [k + 1 for k in axes], list(range(1, len(axes) + 1)))
    factors = moved.reshape((K, -1) + moved.shape[len(axes) + 1:])
    out = factors[:, 0]
    for m in range(1, factors.shape[1]):
        out = _mul(out, factors[:, m])
    if node.attrs["keepdims"]:
        out = out.reshape((K,) + node.outputs[0]._value.shape)
    return out


def _inverse_series(a):
    """Y = A^-1 for a series of matrices: Y_0 = inv(A_0), Y_k = -Y_0 sum_{j>=1} A_j Y_{k-j}."""
    y = np.empty(np.broadcast_shapes(a.shape), np.result_type(a, np.float64))
    y[0] = np.linalg.inv(a[0])
    for k in range(1, len(a)):
        y[k] = -y[0] @ sum(a[j] @ y[k - j] for j in range(1, k + 1))
    return y


deftaylor("MatrixInverse", lambda n, ins, K: _inverse_series(ins[0]))


@deftaylor("MatrixSolve")
def _solve_rule(node, ins, K):
    nd = _nd(node)
    a = _align(_full(ins[0], node.inputs[0], K), nd)
    b = _align(_full(ins[1], node.inputs[1], K), nd)
    x = np.empty((K,) + node.outputs[0]._value.shape)
    for k in range(K):                    # A_0 X_k = B_k - sum_{j>=1} A_j X_{k-j}
        rhs = b[k] - sum((a[j] @ x[k - j] for j in range(1, k + 1)), np.zeros_like(x[0]))
        x[k] = np.linalg.solve(a[0], rhs)
    return x


@deftaylor("MatrixDeterminant")
def _det_rule(node, ins, K):
    # Gaussian elimination in series arithmetic with partial pivoting on c0: the product of the
    # pivots. (exp of the integral of trace(A^-1 A') is ill-conditioned when det is near 0.)
    a = ins[0]
    n = a.shape[-1]
    flat = a.reshape((K, -1, n, n))
    out = np.empty((K, flat.shape[1]))
    for b in range(flat.shape[1]):
        m = flat[:, b].copy()
        det = _const(1.0, K)
        for k in range(n):
            p = k + int(np.argmax(np.abs(m[0, k:, k])))
            if p != k:
                m[:, [k, p]] = m[:, [p, k]]
                det = -det
            det = _mul(det, m[:, k, k])
            if k + 1 < n:
                factor = _div(m[:, k + 1:, k], m[:, k:k + 1, k])        # (K, rows)
                m[:, k + 1:, k + 1:] -= _mul(factor[:, :, None], m[:, k:k + 1, k + 1:])
        out[:, b] = det
    return out.reshape((K,) + node.outputs[0]._value.shape)
