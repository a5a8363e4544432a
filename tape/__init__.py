"""tape: reverse-mode automatic differentiation on NumPy with TensorFlow's GradientTape API.

>>> import tape as tf
>>> x = tf.constant(3.0)
>>> with tf.GradientTape() as g:
...     g.watch(x)
...     y = x * x
>>> g.gradient(y, x)
tape.Tensor(6.0, shape=(), dtype=float64)
"""
from .engine import numpy_dispatch as _numpy_dispatch  # noqa: F401  (installs NumPy hooks)
from .engine.dtypes import (DType, as_dtype, bool_ as bool, complex64, complex128, double,  # noqa: A004
                            float16, float32, float64, half, int8, int16, int32, int64, uint8)
from .engine.ops.array import (broadcast_to, concat, expand_dims, gather, gather_nd, identity,
                               pad, rank, reshape, reverse, shape, size, split, squeeze, stack,
                               tile, transpose, unstack, where, clip_by_value)
from .engine.ops.compare import (equal, greater, greater_equal, is_finite, is_inf, is_nan, less,
                                 less_equal, logical_and, logical_not, logical_or, logical_xor,
                                 not_equal)
from .engine.ops.control import cond, custom_gradient, function, recompute_grad, stop_gradient, while_loop
from .engine.ops.creation import eye, fill, linspace, ones, ones_like, one_hot, range, zeros, zeros_like
from .engine.ops.linalg import einsum, matmul, tensordot
from .engine.ops.math import (abs, acos, acosh, add, add_n, asin, asinh, atan, atan2, atanh, cast,
                              cbrt, ceil, cos, cosh, divide, erf, exp, expm1, floor, floordiv,
                              floormod, log, log1p, maximum, minimum, mod, multiply, negative, pow,
                              reciprocal, round, rsqrt, sigmoid, sign, sin, sinh, softplus, sqrt,
                              square, subtract, tan, tanh, truediv)
from .engine.ops.reduce import (argmax, argmin, cumsum, reduce_all, reduce_any, reduce_logsumexp,
                                reduce_max, reduce_mean, reduce_min, reduce_prod, reduce_sum)
from .engine.registry import NoGradient, NotDifferentiable, RegisterGradient, primitive
from .engine.tape import GradientTape, UnconnectedGradients
from .engine.tensor import Tensor, TensorShape, Variable, constant, convert_to_tensor

__version__ = "0.1.0"

# Loaded on first use, so `import tape` (and every CLI start) pays only for the core.
_LAZY = {
    "Module": ("tape.engine.module", "Module"),
    "ForwardAccumulator": ("tape.engine.forward", "ForwardAccumulator"),
    **{name: ("tape.engine.functional", name)
       for name in ("derivative", "grad", "hessian", "hvp", "jacobian", "value_and_grad")},
    **{name: ("tape.engine.higher", name) for name in ("partials", "partials_up_to")},
    # the namespace modules too (`tape.nn`, `import tape.nn`): five imports at every CLI start
    **{name: (f"tape.{name}", None) for name in ("autodiff", "image", "keras", "layers",
                                                 "linalg", "math", "nest", "nn", "random")},
}


def __getattr__(name):
    try:
        module_name, attr = _LAZY[name]
    except KeyError:
        raise AttributeError(f"module 'tape' has no attribute {name!r}") from None
    import importlib
    value = importlib.import_module(module_name)
    if attr is not None:
        value = getattr(value, attr)
    globals()[name] = value
    return value


def __dir__():
    return sorted(set(globals()) | set(_LAZY))
