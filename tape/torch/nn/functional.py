"""``torch.nn.functional``: activations and losses on the engine's primitives."""
from __future__ import annotations

from .._ops import FUNCTIONS

relu = FUNCTIONS["relu"]
sigmoid = FUNCTIONS["sigmoid"]
tanh = FUNCTIONS["tanh"]
softmax = FUNCTIONS["softmax"]
log_softmax = FUNCTIONS["log_softmax"]


def mse_loss(input, target, reduction="mean"):
    d = input - target
    sq = d * d
    if reduction == "mean":
        return FUNCTIONS["mean"](sq)
    if reduction == "sum":
        return FUNCTIONS["sum"](sq)
    if reduction == "none":
        return sq
    raise ValueError(f"{reduction} is not a valid value for reduction")
