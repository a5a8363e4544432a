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

from . import series as S
from .tensor import Tensor, _wrap

_TAYLOR: dict = {}


from .ops.math import _sigmoid as _sigmoid_np  # noqa: E402


def deftaylor(op_name, rule=None):
    """Register ``rule(node, series, K) -> output series`` for ``op_name`` (or decorate)."""
    if rule is None:
        return lambda r: deftaylor(op_name, r)
    _TAYLOR[op_name] = rule
    return rule


# -- propagation ---------------------------------------------------------------------------
def taylor_coefficients(f, x, order):
    """Taylor coefficients ``[c0..c_order]`` of ``f`` around each point of ``x``.

    ``x`` is a float NumPy array (or scalar) of points; ``f`` maps a tensor of points to a tensor
    of the same shape, elementwise. Returns an array of shape ``(order+1,) + x.shape``.
    """
    from .tape import GradientTape
    if order >= len(S.FACT):            # k! for k > 170 overflows float64
        raise ValueError(f"order {order} is beyond Taylor mode's limit of {len(S.FACT) - 1} "
                         f"({len(S.FACT)}! overflows float64)")
    K = order + 1
    X = _wrap(x)
    with GradientTape(watch_accessed_variables=False) as tp:
        tp.watch(X)
        y = f(X)
    if not isinstance(y, Tensor):
        from .tensor import convert_to_tensor
        y = convert_to_tensor(y)
    if K == 1:
        return S.const(y._value, 1)
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
    return got if got is not None else S.const(y._value, K)


def _nested_tapes(node, ins, K):
    """Fallback: derivatives of op(sum_k c_k t^k) at t = 0 by nested tapes, one per order."""
    from .tape import GradientTape
    if node.op.fn is None or len(node.outputs) != 1:
        raise NotImplementedError(f"Taylor mode has no rule for the op {node.op.name} (custom "
                                  "gradients and multi-output ops cannot be re-run); use nested "
                                  "GradientTapes for its higher derivatives")
    # t is real: the series run along the real axis. A complex output is differentiated as its
    # real and imaginary parts (reverse mode with respect to a complex t would give conj(f'),
    # TensorFlow's convention, and only for holomorphic ops).
    out_dtype = node.outputs[0]._value.dtype
    cplx = out_dtype.kind == "c"
    t = _wrap(np.zeros((), np.zeros((), out_dtype).real.dtype)[()])
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
            if cplx:                                # split while every tape still records
                from .ops.array import stack
                from .ops.math import complex_, imag, real
                parts = stack([real(d), imag(d)])
            tp = tapes.pop()                        # innermost: its sweep is recorded by the rest
            tp.__exit__(None, None, None)
            if cplx:
                parts = tp.jacobian(parts, t, unconnected_gradients="zero")
                d = complex_(parts[0], parts[1])
            else:
                d = tp.jacobian(d, t, unconnected_gradients="zero")
            out.append(d._value / S.FACT[k])
    finally:
        for tp in tapes:
            tp.__exit__(None, None, None)
    return np.stack(out)


# -- rules ---------------------------------------------------------------------------------
def _full(s, x, K):
    return s if s is not None else S.const(x._value, K)


def _nd(node):
    return node.outputs[0]._value.ndim


def _add_rule(sign):
    def rule(node, ins, K):
        a, b = ins
        nd = _nd(node)
        out = np.zeros((K,) + node.outputs[0]._value.shape)
        if a is not None:
            out[1:] += S.align(a, nd)[1:]
        if b is not None:
            out[1:] += sign * S.align(b, nd)[1:]
        return out
    return rule


deftaylor("AddV2", _add_rule(1.0))
deftaylor("Sub", _add_rule(-1.0))
deftaylor("Neg", lambda n, ins, K: -ins[0])
deftaylor("Identity", lambda n, ins, K: ins[0])
deftaylor("Cast", lambda n, ins, K: ins[0])
deftaylor("Real", lambda n, ins, K: np.real(ins[0]))
deftaylor("Conj", lambda n, ins, K: np.conj(ins[0]))
deftaylor("Imag", lambda n, ins, K: np.imag(ins[0]))


@deftaylor("Mul")
def _mul_rule(node, ins, K):
    (a, b), nd = ins, _nd(node)
    if a is None:
        return node.inputs[0]._value * S.align(b, nd)
    if b is None:
        return S.align(a, nd) * node.inputs[1]._value
    return S.mul(S.align(a, nd), S.align(b, nd))


@deftaylor("MulNoNan")
def _mul_no_nan_rule(node, ins, K):
    # a * b, but 0 wherever a is identically 0 (b may be inf or nan there)
    a = S.align(_full(ins[0], node.inputs[0], K), _nd(node))
    b = S.align(_full(ins[1], node.inputs[1], K), _nd(node))
    zero = ~a.any(axis=0)
    with np.errstate(invalid="ignore"):
        return np.where(zero, 0.0, S.mul(a, np.where(zero, 0.0, b)))


@deftaylor("RealDiv")
def _div_rule(node, ins, K):
    (a, b), nd = ins, _nd(node)
    if b is None:
        return S.align(a, nd) / node.inputs[1]._value
    return S.div(S.align(_full(a, node.inputs[0], K), nd), S.align(b, nd))


@deftaylor("Pow")
def _pow_rule(node, ins, K):
    (a, b), nd = ins, _nd(node)
    x, r = node.inputs
    if b is None:
        return S.pow_scalar(S.align(a, nd), r._value)
    with np.errstate(divide="ignore"):
        log_a = np.log(x._value) if a is None else None
    exponent = S.align(b, nd) * log_a if a is None else \
        S.mul(S.align(b, nd), S.align(S.log(a), nd))              # a^b = exp(b log a)
    return S.exp(exponent)


deftaylor("Exp", lambda n, ins, K: S.exp(ins[0]))
deftaylor("Expm1", lambda n, ins, K: S.exp(ins[0]))                 # c0 is fixed up to expm1(a0)
deftaylor("Log", lambda n, ins, K: S.log(ins[0]))
deftaylor("Log1p", lambda n, ins, K: S.log(ins[0], np.log1p(ins[0][0]), 1 + ins[0][0]))
deftaylor("Sqrt", lambda n, ins, K: S.pow_scalar(ins[0], 0.5))
deftaylor("Rsqrt", lambda n, ins, K: S.pow_scalar(ins[0], -0.5))
deftaylor("Reciprocal", lambda n, ins, K: S.pow_scalar(ins[0], -1.0))
deftaylor("Square", lambda n, ins, K: S.mul(ins[0], ins[0]))
deftaylor("Sin", lambda n, ins, K: S.sincos(ins[0])[0])
deftaylor("Cos", lambda n, ins, K: S.sincos(ins[0])[1])
deftaylor("Sinh", lambda n, ins, K: S.coupled(ins[0], np.sinh(ins[0][0]), np.cosh(ins[0][0]), 1.0)[0])
deftaylor("Cosh", lambda n, ins, K: S.coupled(ins[0], np.sinh(ins[0][0]), np.cosh(ins[0][0]), 1.0)[1])
# y' = a' w(y): w_m is the m-th coefficient of 1 + y^2, 1 - y^2, y - y^2
deftaylor("Tan", lambda n, ins, K: S.ode(ins[0], np.tan(ins[0][0]),
                                        lambda y, m: (m == 0) + S.dot(y[m::-1], y[:m + 1])))
# w_0 = 1 - y_0^2 (tanh) and y_0 - y_0^2 (sigmoid) cancel where y_0 rounds to +-1 / 1: they are
# taken as sech^2(a_0) and sigmoid(a_0) sigmoid(-a_0) instead (the higher w_m have no such term)
def _sech2(a0):
    if np.iscomplexobj(a0):             # no tails along the real line to guard
        return 1 / np.cosh(a0) ** 2
    e = np.exp(-2 * np.abs(a0))
    return 4 * e / (1 + e) ** 2


deftaylor("Tanh", lambda n, ins, K: S.ode(
    ins[0], np.tanh(ins[0][0]),
    lambda y, m, w0=_sech2(ins[0][0]): np.reshape(w0, y.shape[1:]) if m == 0
    else -S.dot(y[m::-1], y[:m + 1])))
deftaylor("Sigmoid", lambda n, ins, K: S.ode(
    ins[0], n.outputs[0]._value,
    lambda y, m, w0=n.outputs[0]._value * _sigmoid_np(-ins[0][0]):
        np.reshape(w0, y.shape[1:]) if m == 0 else y[m] - S.dot(y[m::-1], y[:m + 1])))


def _by_derivative(g):
    """y with y' = a' g(a), g built from series ops: atan, asin, erf, softplus, ..."""
    def rule(node, ins, K):
        a = ins[0]
        return S.integrate(S.mul(S.derivative(a), g(a, K)), node.outputs[0]._value)
    return rule


def _one_plus(sign_sq, a, K, c=1.0):
    s = sign_sq * S.mul(a, a)
    s[0] += c
    return s


deftaylor("Atan", _by_derivative(lambda a, K: S.pow_scalar(_one_plus(1, a, K), -1.0)))
deftaylor("Atanh", _by_derivative(lambda a, K: S.pow_scalar(_one_plus(-1, a, K), -1.0)))
deftaylor("Asin", _by_derivative(lambda a, K: S.pow_scalar(_one_plus(-1, a, K), -0.5)))
deftaylor("Acos", _by_derivative(lambda a, K: -S.pow_scalar(_one_plus(-1, a, K), -0.5)))
deftaylor("Asinh", _by_derivative(lambda a, K: S.pow_scalar(_one_plus(1, a, K), -0.5)))
def _acosh_derivative(a, K):
    if a.dtype.kind != "c":
        return S.pow_scalar(_one_plus(1, a, K, -1.0), -0.5)
    # complex: 1/(sqrt(a - 1) sqrt(a + 1)), the branch of arccosh (not 1/sqrt(a^2 - 1))
    below, above = np.array(a), np.array(a)
    below[0] -= 1
    above[0] += 1
    return S.mul(S.pow_scalar(below, -0.5), S.pow_scalar(above, -0.5))


deftaylor("Acosh", _by_derivative(_acosh_derivative))
deftaylor("Erf", _by_derivative(lambda a, K: 2 / math.sqrt(math.pi) * S.exp(-S.mul(a, a))))
deftaylor("Softplus", _by_derivative(
    lambda a, K: S.ode(a, 0.5 + 0.5 * np.tanh(0.5 * a[0]), lambda y, m: y[m] - S.dot(y[m::-1], y[:m + 1]))))
def _abs_rule(node, ins, K):
    a = ins[0]
    if a.dtype.kind == "c":             # |a| = sqrt(a conj(a)): a real series, smooth off 0
        return S.pow_scalar(np.real(S.mul(a, np.conj(a))), 0.5)
    return np.sign(a[0]) * a


deftaylor("Abs", _abs_rule)
deftaylor("Relu", lambda n, ins, K: (ins[0][0] > 0) * ins[0])


def _select_rule(cond_of):
    def rule(node, ins, K):
        a, b = ins[-2:]
        x, y = node.inputs[-2:]
        nd = _nd(node)
        return np.where(cond_of(node), S.align(_full(a, x, K), nd), S.align(_full(b, y, K), nd))
    return rule


deftaylor("Maximum", _select_rule(lambda n: n.inputs[0]._value >= n.inputs[1]._value))
deftaylor("Minimum", _select_rule(lambda n: n.inputs[0]._value <= n.inputs[1]._value))
deftaylor("SelectV2", _select_rule(lambda n: n.inputs[0]._value))


@deftaylor("FloorMod")
def _floormod_rule(node, ins, K):
    (a, b), nd = ins, _nd(node)
    x, y = node.inputs
    q = np.floor(x._value / y._value)
    return S.align(_full(a, x, K), nd) - q * S.align(_full(b, y, K), nd)


@deftaylor("Atan2")
def _atan2_rule(node, ins, K):
    nd = _nd(node)
    a, b = (S.align(_full(s, x, K), nd) for s, x in zip(ins, node.inputs))
    num = S.mul(b, S.derivative(a)) - S.mul(a, S.derivative(b))       # (b a' - a b') / (a^2 + b^2)
    return S.integrate(S.div(num, S.mul(a, a) + S.mul(b, b)), node.outputs[0]._value)


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
    out = S.log(np.sum(S.exp(shifted), axis=axes, keepdims=True))
    out[0] += m
    return out if keepdims else np.squeeze(out, axis=axes)


deftaylor("LogSumExp", lambda n, ins, K: _logsumexp_series(ins[0], n.attrs["axis"], n.inputs[0].ndim,
                                                           n.attrs["keepdims"]))
deftaylor("LogSoftmax", lambda n, ins, K: ins[0] - _logsumexp_series(
    ins[0], (n.attrs["axis"] % n.inputs[0].ndim,), n.inputs[0].ndim, True))
deftaylor("Softmax", lambda n, ins, K: S.exp(ins[0] - _logsumexp_series(
    ins[0], (n.attrs["axis"] % n.inputs[0].ndim,), n.inputs[0].ndim, True)))
deftaylor("EuclideanNorm", lambda n, ins, K: S.pow_scalar(np.sum(
    S.mul(ins[0], ins[0]), axis=_axes1(n.attrs["axis"], n.inputs[0].ndim),
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
        return np.matmul(x._value, S.align(b, nd))
    if b is None:
        return np.matmul(S.align(a, nd), y._value)
    a, b = S.align(a, nd), S.align(b, nd)
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
        out = S.mul(out, factors[:, m])
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
    a = S.align(_full(ins[0], node.inputs[0], K), nd)
    b = S.align(_full(ins[1], node.inputs[1], K), nd)
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
        det = S.const(1.0, K)
        for k in range(n):
            p = k + int(np.argmax(np.abs(m[0, k:, k])))
            if p != k:
                m[:, [k, p]] = m[:, [p, k]]
                det = -det
            det = S.mul(det, m[:, k, k])
            if k + 1 < n:
                factor = S.div(m[:, k + 1:, k], m[:, k:k + 1, k])        # (K, rows)
                m[:, k + 1:, k + 1:] -= S.mul(factor[:, :, None], m[:, k:k + 1, k + 1:])
        out[:, b] = det
    return out.reshape((K,) + node.outputs[0]._value.shape)
