"""Taylor mode: n-th derivatives of a function of one variable in one forward pass.

``f`` runs once on tensors while a GradientTape records it; then truncated Taylor series
``[c0, c1, ..., cn]`` (NumPy arrays of shape ``(n+1,) + value.shape``) are pushed through the
recorded nodes with the standard recurrences (Griewank & Walther, ch. 13). The n-th derivative
is ``n! * c_n``. Each op costs O(n^2) flops in O(n) NumPy calls, so order 20 costs about what a
handful of gradients cost, where nested tapes grow exponentially with the order.

Each op carries its own rule (``Primitive.taylor``, defined beside the op): ``rule(node, series,
K) -> series`` where ``series`` holds one array per input, or None for an input that does not
depend on x (a constant). A ``linear`` op needs none: it is applied to each coefficient. Every
built-in op has one; through an op without one (a user's ``primitive`` defined without
``taylor=``, a ``custom_gradient`` function) Taylor mode raises ``LookupError`` naming the op.
"""
from __future__ import annotations

import math

import numpy as np

from . import series as S
from .tape import GradientTape
from .tensor import Tensor, _wrap, convert_to_tensor


# -- propagation ---------------------------------------------------------------------------
def taylor_coefficients(f, x, order):
    """Taylor coefficients ``[c0..c_order]`` of ``f`` around each point of ``x``.

    ``x`` is a float NumPy array (or scalar) of points; ``f`` maps a tensor of points to a tensor
    of the same shape, elementwise. Returns an array of shape ``(order+1,) + x.shape``.
    """
    if order >= len(S.FACT):            # k! for k > 170 overflows float64
        raise ValueError(f"order {order} is beyond Taylor mode's limit of {len(S.FACT) - 1} "
                         f"({len(S.FACT)}! overflows float64)")
    K = order + 1
    X = _wrap(x)
    with GradientTape(watch_accessed_variables=False) as tp:
        tp.watch(X)
        y = f(X)
    if not isinstance(y, Tensor):
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
        s = series_of(node, ins, K)
        if s.shape[1:] != out._value.shape:
            s = np.broadcast_to(s, (K,) + out._value.shape)
        s = np.array(s, dtype=out._value.dtype)          # own, writable, the op's dtype
        s[0] = out._value                                # c0 is the op's own value, exactly
        series[id(out)] = s
    got = series.get(id(y))
    return got if got is not None else S.const(y._value, K)


def series_of(node, ins, K):
    """The output series of one recorded op application from its input series."""
    op = node.op
    if op.custom_grad is None:
        if op.taylor is not None:
            return np.asarray(op.taylor(node, ins, K))
        if op.linear:
            return np.asarray(_linear_series(node, ins, K))
    raise LookupError(f"Taylor mode (tape.derivative) has no rule for the op {op.name!r}: give "
                      "it one with tape.primitive(..., taylor=rule), or take its higher "
                      "derivatives with nested GradientTapes")


def _linear_series(node, ins, K):
    """A linear op on a series: the op applied to each coefficient (c0 is its own value), or to
    the whole series at once when it acts elementwise."""
    fn, attrs = node.op.fn, node.attrs
    if len(ins) == 1 and node.op.symmetric:
        return fn(ins[0], **attrs)
    args = [s if s is not None else np.zeros_like(x._value) for s, x in zip(ins, node.inputs)]
    out = [node.outputs[0]._value]
    for k in range(1, K):
        out.append(fn(*[a[k] if s is not None else a for a, s in zip(args, ins)], **attrs))
    return np.stack(out)
