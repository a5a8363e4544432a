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
