"""PyTorch's names for backward nodes (``AddBackward0`` ...), by engine op and call."""
from __future__ import annotations

import numpy as np


def backward_name(op, inputs, attrs) -> str:
    """PyTorch's name for the backward node of an engine op application."""
    name = op.name
    if name == "Pow":
        return "PowBackward0" if np.ndim(inputs[1]._value) == 0 else "PowBackward1"
    if name in ("Sum", "Mean"):
        return f"{name}Backward{0 if attrs.get('axis') is None and not attrs.get('keepdims') else 1}"
    if name == "MatMul":
        return _matmul_name(inputs[0], inputs[1])
    if name == "StridedSlice":
        return _index_name(attrs["key"])
    return _NAMES.get(name) or f"{name}Backward0"


_NAMES = {"AddV2": "AddBackward0", "Sub": "SubBackward0", "Mul": "MulBackward0",
          "RealDiv": "DivBackward0", "Neg": "NegBackward0", "Square": "PowBackward0",
          "Maximum": "MaximumBackward0", "Minimum": "MinimumBackward0",
          "Reshape": "ViewBackward0", "Transpose": "PermuteBackward0",
          "BroadcastTo": "ExpandBackward0", "Cast": "ToCopyBackward0", "Identity": "CloneBackward0",
          "ConcatV2": "CatBackward0", "SelectV2": "WhereBackward0", "Max": "MaxBackward1",
          "Min": "MinBackward1", "Prod": "ProdBackward0", "LogSumExp": "LogsumexpBackward0",
          "Softmax": "SoftmaxBackward0", "LogSoftmax": "LogSoftmaxBackward0",
          "Relu": "ReluBackward0", "Sigmoid": "SigmoidBackward0", "Softplus": "SoftplusBackward0",
          "MulNoNan": "MulBackward0", "Atan2": "Atan2Backward0", "Expm1": "Expm1Backward0",
          "Log1p": "Log1pBackward0", "FloorMod": "RemainderBackward0", "Erf": "ErfBackward0",
          "ScatterKey": "IndexPutBackward0", "Conj": "ConjBackward0", "Real": "RealBackward0"}


def _matmul_name(a, b):
    nda, ndb = np.ndim(a._value), np.ndim(b._value)
    if nda == 1 and ndb == 1:
        return "DotBackward0"
    if nda == 2 and ndb == 1:
        return "MvBackward0"
    if nda == 2 and ndb == 2:
        return "MmBackward0"
    if nda == 3 and ndb == 3:
        return "BmmBackward0"
    return "MatmulBackward0"


def _index_name(key):
    if all(isinstance(k, (int, np.integer)) for k in key):
        return "SelectBackward0"
    if any(isinstance(k, np.ndarray) for k in key):
        return "IndexBackward0"
    return "SliceBackward0"
