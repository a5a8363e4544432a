"""Every place where ``tape.torch`` touches the engine's internals, in one module.

``tape.torch`` runs the engine's own primitives (their NumPy forward functions) and their
registered gradient rules; it keeps its own define-by-run graph instead of a tape. What it needs
from the engine:

- the primitives themselves (``PRIMITIVES``), to run ``op.fn`` and hand ``op`` to the rules;
- ``op.fast`` (the op's raw first-order rule, read in ``_graph``) and the sweep's
  ``general_rule``, which runs an op's registered tensor rule on raw NumPy cotangents or, recorded,
  on tensors;
- ``Node``, the record a rule reads (``inputs``, ``outputs``, ``attrs``, ``needs_grad``);
- the lists of recording tapes and forward accumulators: a torch op offers itself to them through
  ``record`` (so ``GradientTape``, ``ForwardAccumulator`` and the CLI see torch code), and
  ``create_graph=True`` joins them as one more recorder while it runs the rules (``recording``);
- ``scalar_like`` (the engine's cached constants for Python numbers), ``wrap`` / ``to_array``
  (building tensors without checks / from user data) and NumPy's quiet error state.
"""
from __future__ import annotations

import contextlib

from ..engine import registry as _registry
from ..engine.ops import array as _array
from ..engine.ops import linalg as _linalg
from ..engine.ops import math as _math
from ..engine.ops import nn as _nn
from ..engine.ops import reduce as _reduce
from ..engine.quiet import restore, silence  # noqa: F401  (re-exported)
from ..engine.registry import Node, record  # noqa: F401  (re-exported)
from ..engine.registry import _scalar_like as scalar_like  # noqa: F401
from ..engine.sweep import _general_rule as general_rule  # noqa: F401
from ..engine.tensor import Tensor as EngineTensor  # noqa: F401
from ..engine.tensor import _to_array as to_array  # noqa: F401
from ..engine.tensor import _wrap as wrap  # noqa: F401

#: Tapes recording and forward accumulators active: an op is offered to them when either is
#: non-empty (the same lists the engine's own primitives read).
recording_tapes = _registry.recording_tapes
active_accumulators = _registry.active_accumulators


@contextlib.contextmanager
def recording(recorder):
    """Let ``recorder`` see every op application while the block runs.

    ``recorder`` answers ``_accepts(inputs) -> bool`` and ``_add(node)``, the calls the engine
    makes on each recorder in its lists. It joins the accumulators' list, the one the engine
    offers every op to after the tapes.
    """
    active_accumulators.append(recorder)
    try:
        yield recorder
    finally:
        active_accumulators.remove(recorder)


#: The primitives tape.torch runs, by the engine's op name.
PRIMITIVES = {op.name: op for op in (
    _math.add, _math.subtract, _math.multiply, _math.divide, _math.pow, _math.negative,
    _math.abs, _math.square, _math.sqrt, _math.rsqrt, _math.reciprocal, _math.exp, _math.expm1,
    _math.log, _math.log1p, _math.sin, _math.cos, _math.tan, _math.asin, _math.acos, _math.atan,
    _math.sinh, _math.cosh, _math.tanh, _math.asinh, _math.acosh, _math.atanh, _math.sigmoid,
    _math.softplus, _math.erf, _math.maximum, _math.minimum, _math.atan2, _math.identity,
    _math.sign, _math.floor, _math.ceil, _math.round, _math._cast, _math.floordiv,
    _math.floormod,
    _nn.relu, _nn._softmax, _nn._log_softmax,
    _reduce._reduce_sum, _reduce._reduce_mean, _reduce._reduce_max, _reduce._reduce_min,
    _reduce._reduce_prod, _reduce._reduce_logsumexp, _reduce._argmax, _reduce._argmin,
    _linalg._matmul,
    _array._reshape, _array._transpose, _array._broadcast_to, _array._getitem, _array._concat,
    _array._where,
)}

#: The engine's key normalisation for ``x[key]`` (tensors and lists as NumPy indices).
normalise_key = _array._normalise_key

#: The engine's axis normalisation for reductions (a sorted tuple, or None for all axes).
reduce_axes = _reduce._axes
