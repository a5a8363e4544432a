"""Data types: thin named wrappers around NumPy dtypes, spelled as TensorFlow spells them."""
from __future__ import annotations

import numpy as np


class DType:
    """A tensor element type (``tape.float64``, ``tape.int32``, ...).

    Compares equal to the matching NumPy dtype, to its name and to other ``DType`` objects, and
    can be passed wherever NumPy expects a dtype.
    """

    __slots__ = ("_np", "name")

    def __init__(self, np_dtype):
        self._np = np.dtype(np_dtype)
        self.name = self._np.name

    @property
    def as_numpy_dtype(self):
        return self._np.type

    @property
    def type(self):
        """The NumPy scalar type, as ``ndarray.dtype.type`` (code written for arrays reads it)."""
        return self._np.type

    @property
    def is_floating(self) -> bool:
        return self._np.kind == "f"

    @property
    def is_complex(self) -> bool:
        return self._np.kind == "c"

    @property
    def is_integer(self) -> bool:
        return self._np.kind in "iu"

    @property
    def is_bool(self) -> bool:
        return self._np.kind == "b"

    @property
    def is_differentiable(self) -> bool:
        return self._np.kind in "fc"

    @property
    def dtype(self):          # lets NumPy accept a DType where it wants a dtype
        return self._np

    def __eq__(self, other):
        if isinstance(other, DType):
            return self._np == other._np
        try:
            return self._np == np.dtype(other)
        except TypeError:
            return False

    def __hash__(self):
        return hash(self._np)

    def __repr__(self):
        return f"tape.{self.name}"

    def __str__(self):
        return self.name


_BY_NUMPY: dict = {}


def as_dtype(value) -> DType:
    """Return the ``DType`` for a DType, NumPy dtype, type or name; TypeError otherwise."""
    if isinstance(value, DType):
        return value
    try:
        npd = np.dtype(value)
    except TypeError:
        raise TypeError(f"dtype: cannot interpret {value!r} as a data type; use one of "
                        f"{', '.join(_NAMES)}") from None
    found = _BY_NUMPY.get(npd)
    if found is None:
        found = _BY_NUMPY[npd] = DType(npd)
    return found


_NAMES = ("float16", "float32", "float64", "int8", "int16", "int32", "int64", "uint8", "bool",
          "complex64", "complex128")
float16, float32, float64 = as_dtype("float16"), as_dtype("float32"), as_dtype("float64")
int8, int16, int32, int64 = as_dtype("int8"), as_dtype("int16"), as_dtype("int32"), as_dtype("int64")
uint8 = as_dtype("uint8")
bool_ = as_dtype("bool")
complex64, complex128 = as_dtype("complex64"), as_dtype("complex128")
half, double = float16, float64


def numpy_dtype(dtype):
    """The NumPy dtype for anything ``as_dtype`` accepts; None stays None."""
    return None if dtype is None else as_dtype(dtype)._np
