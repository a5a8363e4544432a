"""Neural-network ops: relu, softmax, log_softmax (plus sigmoid/softplus from math)."""
from __future__ import annotations

import numpy as np

from .. import series as S
from ..registry import defop
from ..tensor import convert_to_tensor
from .array import reduce_sum, where
from .cast import cast
from .compare import greater
from .math import abs as _abs, exp, expm1, log1p, maximum, sigmoid, softplus, tanh

__all__ = ["elu", "l2_loss", "leaky_relu", "log_softmax", "relu", "sigmoid",
           "sigmoid_cross_entropy_with_logits", "softmax", "softmax_cross_entropy_with_logits",
           "softplus", "tanh"]


def _relu_grad(node, g):
    x = node.inputs[0]
    return [g * cast(greater(x, 0), x.dtype)]


relu = defop("Relu", lambda x: np.maximum(x, 0), _relu_grad, symmetric=True,
             taylor=lambda n, ins, K: (ins[0][0] > 0) * ins[0])


def _softmax_np(x, axis):
    z = np.exp(x - np.max(x, axis=axis, keepdims=True))
    return z / np.sum(z, axis=axis, keepdims=True)


def _softmax_grad(node, g):
    y = node.outputs[0]
    axis = node.attrs["axis"]          # negative: counts from the end, so batch axes don't shift it
    return [y * (g - reduce_sum(g * y, axis=axis, keepdims=True))]


def _log_softmax_np(x, axis):
    m = np.max(x, axis=axis, keepdims=True)
    return x - m - np.log(np.sum(np.exp(x - m), axis=axis, keepdims=True))


def _log_softmax_grad(node, g):
    axis = node.attrs["axis"]
    return [g - exp(node.outputs[0]) * reduce_sum(g, axis=axis, keepdims=True)]


def _log_softmax_jvp(node, t):
    if t is None:
        return None
    return t - reduce_sum(exp(node.outputs[0]) * t, axis=node.attrs["axis"], keepdims=True)


def _log_softmax_series(node, ins, K):
    nd = node.inputs[0].ndim
    return ins[0] - S.logsumexp(ins[0], (node.attrs["axis"] % nd,), nd, True)


# softmax's Jacobian is symmetric: its JVP is its VJP applied to the tangent
_softmax = defop("Softmax", _softmax_np, _softmax_grad, symmetric=True,
                 taylor=lambda n, ins, K: S.exp(_log_softmax_series(n, ins, K)))
_log_softmax = defop("LogSoftmax", _log_softmax_np, _log_softmax_grad, jvp=_log_softmax_jvp,
                     taylor=_log_softmax_series)


def _negative_axis(x, axis, what):
    nd = x.ndim
    if nd == 0:
        raise ValueError(f"{what}: needs a tensor of rank >= 1, got a scalar")
    axis = int(axis)
    if not -nd <= axis < nd:
        raise ValueError(f"{what}: axis {axis} is out of range for a tensor of rank {nd}")
    return axis - nd if axis >= 0 else axis


def softmax(logits, axis=-1, name=None):
    """exp(x) / sum(exp(x)) along ``axis`` (computed stably)."""
    x = convert_to_tensor(logits)
    return _softmax(x, axis=_negative_axis(x, axis, "softmax"))


def log_softmax(logits, axis=-1, name=None):
    """log(softmax(x)) along ``axis`` (computed stably)."""
    x = convert_to_tensor(logits)
    return _log_softmax(x, axis=_negative_axis(x, axis, "log_softmax"))


def leaky_relu(features, alpha=0.2, name=None):
    x = convert_to_tensor(features)
    return where(greater(x, 0), x, x * alpha)


def elu(features, name=None):
    x = convert_to_tensor(features)
    return where(greater(x, 0), x, expm1(where(greater(x, 0), 0, x)))


def l2_loss(t, name=None):
    return reduce_sum(t * t) / 2


def sigmoid_cross_entropy_with_logits(labels=None, logits=None, name=None):
    x = convert_to_tensor(logits)
    z = labels
    return maximum(x, 0) - x * z + log1p(exp(-_abs(x)))


def softmax_cross_entropy_with_logits(labels, logits, axis=-1, name=None):
    return -reduce_sum(labels * log_softmax(logits, axis=axis), axis=axis)
