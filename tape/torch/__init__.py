"""PyTorch's autograd API on tape's engine: ``import tape.torch as torch``.

>>> import tape.torch as torch
>>> x = torch.tensor(0.5, requires_grad=True)
>>> y = 2 * x ** 3 + 4 * x ** 2 + 5 * x + 6
>>> y
tensor(9.7500, grad_fn=<AddBackward0>)
>>> y.backward()
>>> x.grad
tensor(10.5000)

Every op runs one of the engine's primitives and its backward runs that primitive's registered
gradient rule: there is no second set of rules. See docs/torch.md for what differs from PyTorch.
"""
from . import _ops, autograd, nn
from ._creation import (arange, as_tensor, empty, empty_like, eye, from_numpy, full, full_like,
                        linspace, manual_seed, ones, ones_like, rand, rand_like, randint, randn,
                        randn_like, randperm, seed, tensor, zeros, zeros_like)
from ._dtypes import (Size, bool, cdouble, cfloat, complex64, complex128, double, dtype, float,  # noqa: A004
                      float16, float32, float64, half, int, int8, int16, int32, int64, long, short,
                      uint8)
from ._grad_mode import (enable_grad, inference_mode, is_grad_enabled, is_inference,
                         is_inference_mode_enabled, no_grad, set_grad_enabled)
from ._tensor import Tensor

__version__ = "2.0.0+tape"

globals().update(_ops.FUNCTIONS)


def is_tensor(obj) -> bool:
    return isinstance(obj, Tensor)


def numel(input) -> int:
    return input.numel()


def get_default_dtype():
    return float64


def set_default_dtype(d):
    if d != float64:
        raise NotImplementedError("tape.torch: the default dtype is float64 (Python floats are "
                                  "float64 everywhere in tape)")


def set_printoptions(precision=None, threshold=None, edgeitems=None, linewidth=None, **kwargs):
    from . import _format
    for name, value in (("PRECISION", precision), ("THRESHOLD", threshold),
                        ("EDGEITEMS", edgeitems), ("LINEWIDTH", linewidth)):
        if value is not None:
            setattr(_format, name, value)


class _NotATorchMethod:
    """An ndarray method that engine tensors have and PyTorch's tensors do not (or have with
    another meaning, as ``repeat``): absent here, as in PyTorch."""

    def __init__(self, name):
        self.name = name

    def __get__(self, obj, owner=None):
        raise AttributeError(f"'Tensor' object has no attribute '{self.name}'")


def _hide_ndarray_methods():
    from ..engine.numpy_api import NUMPY_ATTRIBUTES
    from ..engine.tensor import Tensor as EngineTensor

    for name in NUMPY_ATTRIBUTES:
        if getattr(Tensor, name, None) is getattr(EngineTensor, name, None):
            setattr(Tensor, name, _NotATorchMethod(name))


_hide_ndarray_methods()
