"""Every place where ``tape.torch`` touches the engine, in one module.

``tape.torch`` runs the engine's own primitives (their NumPy forward functions) and their
registered gradient rules; it keeps its own define-by-run graph instead of a tape. What it needs
from the engine:

- the built-in primitives (``PRIMITIVES``, from ``registry.primitives``), to run ``op.fn`` and
  hand ``op`` to the rules;
- ``op.fast`` and ``op.scalar`` (the op's raw first-order rules, on arrays and on float64
  scalars, read in ``_graph``) and the sweep's ``general_rule``, which runs an op's registered
  tensor rule on raw NumPy cotangents or, recorded, on tensors;
- ``Node``, the record a rule reads (``inputs``, ``outputs``, ``attrs``, ``needs_grad``);
- the recorder protocol: a torch op offers itself to the active recorders through ``record``
  or, with two inputs, ``record_pair`` (so ``GradientTape``, ``ForwardAccumulator`` and the CLI
  see torch code), after a check of the two lists of active recorders (the check the engine's
  own primitives make), and ``create_graph=True`` joins them as one more recorder while it runs
  the rules (``recording``);
- ``scalar_like`` (the engine's cached constants for Python numbers; ``f64_constants``, its
  float64 table, read directly by the operators), ``wrap`` / ``to_array``
  (building tensors without checks / from user data), NumPy's quiet error state, and the
  engine's normalisation of indexing keys and reduction axes.
"""
from __future__ import annotations

import contextlib

import numpy as np

from ..engine import registry as _registry
from ..engine.ops.array import _normalise_key as normalise_key  # noqa: F401
from ..engine.ops.array import reduction_axes as reduce_axes  # noqa: F401
from ..engine.quiet import restore, silence  # noqa: F401  (re-exported)
from ..engine.registry import Node, record, record_pair  # noqa: F401  (re-exported)
from ..engine.registry import _scalar_like as scalar_like  # noqa: F401
from ..engine.registry import _F64_BY_VALUE as f64_constants  # noqa: F401
from ..engine.sweep import _general_rule as general_rule  # noqa: F401
from ..engine.tensor import Tensor as EngineTensor  # noqa: F401
from ..engine.tensor import _to_array as to_array  # noqa: F401
from ..engine.tensor import _wrap as wrap  # noqa: F401
from ..engine.numpy_api import FOLLOWED  # noqa: F401  (tape.torch adds its own test)

#: The active recorders: an op is offered to them (``record``) when either list is non-empty.
#: Read, never changed, here: recorders join and leave through ``recording``.
recording_tapes = _registry.recording_tapes
active_accumulators = _registry.active_accumulators


@contextlib.contextmanager
def recording(recorder):
    """Let ``recorder`` (an object with the protocol's ``_offer``) see every op application while
    the block runs, as a graph recorder: after the tapes already recording, before the forward
    accumulators (so they, not it, come last)."""
    _registry.start_recording(recorder)
    try:
        yield recorder
    finally:
        _registry.stop_recording(recorder)


#: The engine op names tape.torch runs.
_USED = (
    "AddV2", "Sub", "Mul", "RealDiv", "Pow", "Neg", "Abs", "Square", "Sqrt", "Rsqrt",
    "Reciprocal", "Exp", "Expm1", "Log", "Log1p", "Sin", "Cos", "Tan", "Asin", "Acos", "Atan",
    "Sinh", "Cosh", "Tanh", "Asinh", "Acosh", "Atanh", "Sigmoid", "Softplus", "Erf", "Maximum",
    "Minimum", "Atan2", "Identity", "Sign", "Floor", "Ceil", "Round", "Cast", "FloorDiv",
    "FloorMod",
    "Relu", "Softmax", "LogSoftmax",
    "Sum", "Mean", "Max", "Min", "Prod", "LogSumExp", "ArgMax", "ArgMin",
    "MatMul",
    "Reshape", "Transpose", "BroadcastTo", "StridedSlice", "ScatterKey", "ConcatV2", "SelectV2",
    "MulNoNan",
)


def _built_in(names):
    ops = {op.name: op for op in _registry.primitives(built_in_only=True)}
    missing = [n for n in names if n not in ops]
    if missing:     # the engine renamed or dropped an op tape.torch is built on
        raise ImportError(f"tape.torch: the engine has no primitive named {', '.join(missing)}")
    return {n: ops[n] for n in names}


#: The primitives tape.torch runs, by the engine's op name.
PRIMITIVES = _built_in(_USED)


# -- rules where PyTorch and TensorFlow differ -----------------------------------------------
# The engine's Pow and Atan2 rules are TensorFlow's. PyTorch's differ at a few points (d/dy of
# x**y where x < 0, or x = 0 and y < 0; atan2 at (0, 0)); tape.torch runs these two ops of its
# own there, with PyTorch's rules written with engine ops (so they differentiate again).
from ..engine.ops.array import unbroadcast as _unbroadcast  # noqa: E402
from ..engine.ops.array import where as _where  # noqa: E402
from ..engine.ops.math import log as _log  # noqa: E402
from ..engine.ops.math import pow as _pow  # noqa: E402
from ..engine.registry import primitive as _primitive  # noqa: E402


def _torch_pow_grad(node, g):
    x, y = node.inputs
    out = node.outputs[0]
    xv, yv = x._value, y._value
    with np.errstate(all="ignore"):
        ga = g * y * _pow(x, y - 1)
        zero = wrap(np.zeros((), xv.dtype))
        ga = _where(wrap(np.broadcast_to(yv == 0, np.shape(out._value))), zero, ga)
        # PyTorch: out * log(x), except 0 where x = 0 and y >= 0 (nan where x < 0)
        skip = np.broadcast_to((xv == 0) & (yv >= 0), np.shape(out._value))
        gb = g * _where(wrap(skip), zero, out * _log(x))
    shape_x, shape_y = np.shape(xv), np.shape(yv)
    return [_unbroadcast(ga, shape_x) if node.needs_grad[0] else None,
            _unbroadcast(gb, shape_y) if node.needs_grad[1] else None]


def _torch_atan2_grad(node, g):
    y, x = node.inputs
    zero = (y._value == 0) & (x._value == 0)
    dtype = np.result_type(y._value, x._value)
    # 1 / (x^2 + y^2), and 0 where both are 0, as PyTorch's rule masks it
    recip = _where(wrap(zero), wrap(np.zeros((), dtype)),
                   1 / (y * y + x * x + wrap(np.asarray(zero, dtype))))
    return [_unbroadcast(g * x * recip, np.shape(y._value)) if node.needs_grad[0] else None,
            _unbroadcast(-g * y * recip, np.shape(x._value)) if node.needs_grad[1] else None]


def _split_at_ties(pick):
    """PyTorch's rule for maximum / minimum: the gradient goes to the input ``pick`` chooses,
    and splits in half where the two are equal (the engine's, TensorFlow's, gives it all to the
    first input)."""
    def rule(node, g):
        a, b = node.inputs
        av, bv = a._value, b._value
        shape = np.shape(node.outputs[0]._value)
        dtype = node.outputs[0]._value.dtype
        tie = np.broadcast_to(av == bv, shape)
        first = np.broadcast_to(pick(av, bv), shape)
        wa = wrap(np.asarray(np.where(tie, 0.5, np.where(first, 1.0, 0.0)), dtype))
        wb = wrap(np.asarray(np.where(tie, 0.5, np.where(first, 0.0, 1.0)), dtype))
        return [_unbroadcast(g * wa, np.shape(av)) if node.needs_grad[0] else None,
                _unbroadcast(g * wb, np.shape(bv)) if node.needs_grad[1] else None]
    return rule


TORCH_MAXIMUM = _primitive(np.maximum, name="TorchMaximum", grad=_split_at_ties(np.greater))
TORCH_MINIMUM = _primitive(np.minimum, name="TorchMinimum", grad=_split_at_ties(np.less))
TORCH_POW = _primitive(np.power, name="TorchPow", grad=_torch_pow_grad)
TORCH_ATAN2 = _primitive(np.arctan2, name="TorchAtan2", grad=_torch_atan2_grad)
