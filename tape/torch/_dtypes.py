"""PyTorch's dtype objects (``torch.float32`` ...) over NumPy dtypes, and ``torch.Size``."""
from __future__ import annotations

import numpy as np


class dtype:  # noqa: N801  (PyTorch's name)
    """An element type, printed as PyTorch prints it (``torch.float32``).

    ``.dtype`` is the NumPy dtype, so NumPy and the engine accept it wherever they want a dtype.
    """

    __slots__ = ("_np", "_name")

    def __init__(self, np_dtype, name):
        self._np = np.dtype(np_dtype)
        self._name = name

    @property
    def dtype(self):
        return self._np

    @property
    def is_floating_point(self) -> bool:
        return self._np.kind == "f"

    @property
    def is_complex(self) -> bool:
        return self._np.kind == "c"

    @property
    def itemsize(self) -> int:
        return self._np.itemsize

    def __repr__(self):
        return f"torch.{self._name}"

    __str__ = __repr__

    def __eq__(self, other):
        if isinstance(other, dtype):
            return self._np == other._np
        return NotImplemented

    def __hash__(self):
        return hash(self._np)


float16 = half = dtype(np.float16, "float16")
float32 = float = dtype(np.float32, "float32")       # noqa: A001
float64 = double = dtype(np.float64, "float64")
complex64 = cfloat = dtype(np.complex64, "complex64")
complex128 = cdouble = dtype(np.complex128, "complex128")
uint8 = dtype(np.uint8, "uint8")
int8 = dtype(np.int8, "int8")
int16 = short = dtype(np.int16, "int16")
int32 = int = dtype(np.int32, "int32")               # noqa: A001
int64 = long = dtype(np.int64, "int64")
bool = dtype(np.bool_, "bool")                       # noqa: A001

_BY_NUMPY = {d._np: d for d in (float16, float32, float64, complex64, complex128, uint8, int8,
                                int16, int32, int64, bool)}

#: Python floats become float64 in tape (SPEC section 2), so float64 is the default here.
DEFAULT = float64


def of(np_dtype) -> dtype:
    """The torch dtype of a NumPy dtype."""
    found = _BY_NUMPY.get(np_dtype)
    if found is None:
        found = _BY_NUMPY[np.dtype(np_dtype)] = dtype(np_dtype, np.dtype(np_dtype).name)
    return found


def to_numpy(d):
    """A NumPy dtype for a torch dtype, NumPy dtype, Python type or name; None stays None."""
    if d is None:
        return None
    if isinstance(d, dtype):
        return d._np
    return np.dtype(d)


class Size(tuple):
    """A tensor's shape: a tuple printed as ``torch.Size([2, 3])``."""

    __slots__ = ()

    def numel(self):
        n = 1
        for s in self:
            n *= s
        return n

    def __repr__(self):
        return f"torch.Size({list(self)})"

    def __getitem__(self, key):
        got = tuple.__getitem__(self, key)
        return Size(got) if isinstance(key, slice) else got
