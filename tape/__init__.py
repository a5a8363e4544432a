"""tape: reverse-mode automatic differentiation on NumPy with TensorFlow's GradientTape API.

>>> import tape as tf
>>> x = tf.constant(3.0)
>>> with tf.GradientTape() as g:
...     g.watch(x)
...     y = x * x
>>> g.gradient(y, x)
tape.Tensor(6.0, shape=(), dtype=float64)
"""
import sys as _sys

# `python -m tape` (the command, not the library): Ctrl-C during the imports below ends the
# process quietly, as tape_launch.py does for the console script (which says why).
if _sys.argv[:1] == ["-m"] and _sys.orig_argv[-len(_sys.argv)] in ("tape", "-mtape"):
    import _signal

    if _signal.getsignal(_signal.SIGINT) is _signal.default_int_handler:
        _signal.signal(_signal.SIGINT, _signal.SIG_DFL)
    del _signal
from .engine import numpy_dispatch as _numpy_dispatch  # noqa: F401  (installs NumPy hooks)
from .engine.dtypes import (DType, as_dtype, bool_ as bool, complex64, complex128, double,  # noqa: A004
                            float16, float32, float64, half, int8, int16, int32, int64, uint8)
# each op family's public names are its module's __all__; linalg only lends three to the top
from .engine.ops.array import *  # noqa: F401,F403
from .engine.ops.cast import *  # noqa: F401,F403
from .engine.ops.compare import *  # noqa: F401,F403
from .engine.ops.control import cond, custom_gradient, function, recompute_grad, stop_gradient, while_loop
from .engine.ops.creation import *  # noqa: F401,F403
from .engine.ops.linalg import einsum, matmul, tensordot
from .engine.ops.math import *  # noqa: F401,F403
from .engine.ops.reduce import *  # noqa: F401,F403
from .engine.registry import NoGradient, NotDifferentiable, RegisterGradient, primitive
from .engine.tape import GradientTape, UnconnectedGradients, nested_tapes
from .engine.tensor import Tensor, TensorShape, Variable, constant, convert_to_tensor
from .engine.tensor import NotDifferentiableError, UntrackedConversionWarning

__version__ = "0.1.0"

# Loaded on first use, so `import tape` (and every CLI start) pays only for the core.
_LAZY = {
    "Module": ("tape.engine.module", "Module"),
    "ForwardAccumulator": ("tape.engine.forward", "ForwardAccumulator"),
    **{name: ("tape.engine.functional", name)
       for name in ("derivative", "elementwise_grad", "grad", "hessian", "hvp", "jacobian",
                    "pointwise_partials", "value_and_grad")},
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
