"""``tape.nn``: activations and losses."""
from .engine.ops.nn import (elu, l2_loss, leaky_relu, log_softmax, relu, sigmoid,  # noqa: F401
                            sigmoid_cross_entropy_with_logits, softmax,
                            softmax_cross_entropy_with_logits, softplus, tanh)
