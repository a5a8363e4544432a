"""``torch.nn.functional``: activations and losses on the engine's primitives."""
from __future__ import annotations

from .._creation import arange
from .._ops import FUNCTIONS

relu = FUNCTIONS["relu"]
sigmoid = FUNCTIONS["sigmoid"]
tanh = FUNCTIONS["tanh"]
softmax = FUNCTIONS["softmax"]
log_softmax = FUNCTIONS["log_softmax"]
softplus = FUNCTIONS["softplus"]


def _reduced(loss, reduction):
    if reduction == "mean":
        return FUNCTIONS["mean"](loss)
    if reduction == "sum":
        return FUNCTIONS["sum"](loss)
    if reduction == "none":
        return loss
    raise ValueError(f"{reduction} is not a valid value for reduction")


def binary_cross_entropy_with_logits(input, target, reduction="mean"):
    """-(y log sigmoid(z) + (1 - y) log(1 - sigmoid(z))), computed stably as softplus(z) - y z."""
    return _reduced(softplus(input) - target * input, reduction)


def binary_cross_entropy(input, target, reduction="mean"):
    log = FUNCTIONS["log"]
    return _reduced(-(target * log(input) + (1 - target) * log(1 - input)), reduction)


def cross_entropy(input, target, reduction="mean"):
    """Class indices ``target`` (int64) against the logits ``input`` of shape (N, C)."""
    picked = log_softmax(input, dim=1)[arange(input.shape[0]), target]
    return _reduced(-picked, reduction)


def l1_loss(input, target, reduction="mean"):
    return _reduced(FUNCTIONS["abs"](input - target), reduction)


def mse_loss(input, target, reduction="mean"):
    d = input - target
    return _reduced(d * d, reduction)
