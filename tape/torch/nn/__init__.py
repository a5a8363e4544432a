"""``torch.nn``, the small part a tutorial's autograd code meets: ``Parameter``, ``Module``,
``Linear``, ``Sequential``, activations, ``MSELoss`` and ``functional``."""
from __future__ import annotations

import math

from .. import _creation
from .._ops import FUNCTIONS
from .._tensor import Tensor
from . import functional


class Parameter(Tensor):
    """A leaf tensor that requires grad and that a ``Module`` lists in ``parameters()``."""

    __slots__ = ()

    def __init__(self, data=None, requires_grad=True):
        value = _creation.zeros(0)._value if data is None else \
            (data._value if isinstance(data, Tensor) else Tensor(data)._value)
        super().__init__(value)
        if requires_grad:
            self.requires_grad_(True)

    def __repr__(self):
        return "Parameter containing:\n" + super().__repr__()


class Module:
    """Holds parameters and sub-modules set as attributes; calling it runs ``forward``."""

    def __init__(self):
        object.__setattr__(self, "_modules", {})
        object.__setattr__(self, "_parameters", {})
        object.__setattr__(self, "training", True)

    def __setattr__(self, name, value):
        if isinstance(value, Parameter):
            self.__dict__.setdefault("_parameters", {})[name] = value
        elif isinstance(value, Module):
            self.__dict__.setdefault("_modules", {})[name] = value
        object.__setattr__(self, name, value)

    def forward(self, *args, **kwargs):
        raise NotImplementedError(f"Module [{type(self).__name__}] is missing the required "
                                  "\"forward\" function")

    def __call__(self, *args, **kwargs):
        return self.forward(*args, **kwargs)

    def named_parameters(self, prefix=""):
        for name, p in self.__dict__.get("_parameters", {}).items():
            yield prefix + name, p
        for name, m in self.__dict__.get("_modules", {}).items():
            yield from m.named_parameters(prefix + name + ".")

    def parameters(self):
        for _, p in self.named_parameters():
            yield p

    def zero_grad(self, set_to_none=True):
        for p in self.parameters():
            if set_to_none:
                p.grad = None
            elif p.grad is not None:
                p.grad.zero_()

    def train(self, mode=True):
        self.training = mode
        return self

    def eval(self):
        return self.train(False)


class Linear(Module):
    """``y = x @ weight.T + bias``, initialised uniformly in ±1/sqrt(in_features) as PyTorch does."""

    def __init__(self, in_features, out_features, bias=True, dtype=None):
        super().__init__()
        bound = 1.0 / math.sqrt(in_features)
        self.weight = Parameter(_creation.rand(out_features, in_features, dtype=dtype) * (2 * bound) - bound)
        self.bias = Parameter(_creation.rand(out_features, dtype=dtype) * (2 * bound) - bound) \
            if bias else None
        self.in_features, self.out_features = in_features, out_features

    def forward(self, x):
        y = FUNCTIONS["matmul"](x, self.weight.t())
        return y if self.bias is None else y + self.bias


class Sequential(Module):
    def __init__(self, *modules):
        super().__init__()
        for i, m in enumerate(modules):
            setattr(self, str(i), m)

    def forward(self, x):
        for m in self.__dict__["_modules"].values():
            x = m(x)
        return x


class ReLU(Module):
    def forward(self, x):
        return functional.relu(x)


class Tanh(Module):
    def forward(self, x):
        return functional.tanh(x)


class Sigmoid(Module):
    def forward(self, x):
        return functional.sigmoid(x)


class MSELoss(Module):
    def __init__(self, reduction="mean"):
        super().__init__()
        self.reduction = reduction

    def forward(self, input, target):
        return functional.mse_loss(input, target, reduction=self.reduction)
