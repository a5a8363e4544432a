"""Casts and the parts of complex numbers: ``cast``, ``real``, ``imag``, ``conj``.

The lowest layer of the ops: every other family's rules use these, and they use nothing but
each other (and Tensor's operators, installed by the ops package).
"""
from __future__ import annotations

import numpy as np

from ..dtypes import as_dtype
from ..registry import defop
from ..tensor import Tensor, _wrap, convert_to_tensor

__all__ = ["cast", "conj", "imag", "real"]


def real_cotangent(g):
    """The cotangent of a real value: its real part. (A real tensor may receive a complex one where
    NumPy's promotion mixed it with complex values, as ``abs(z) * w``: the imaginary part is no
    derivative of anything, and ops from complex to real values drop it.)"""
    return real(g) if g._value.dtype.kind == "c" else g


def _cast_grad(node, g):
    src = node.inputs[0]
    if not src.dtype.is_differentiable or not g.dtype.is_differentiable:
        return [None]
    return [cast(g, src.dtype)]


_cast = defop("Cast", lambda x, dtype: x.astype(dtype), _cast_grad, linear=True, symmetric=True)


def cast(x, dtype, name=None) -> Tensor:
    """``x`` converted to ``dtype`` (differentiable between floating types)."""
    npd = as_dtype(dtype)._np
    if isinstance(x, Tensor) and x._value.dtype == npd:
        return x
    if not isinstance(x, Tensor):
        x = convert_to_tensor(x)
    if x._value.dtype.kind == "c" and npd.kind != "c":
        return _cast(real(x), dtype=npd)
    return _cast(x, dtype=npd)


def _real_grad(node, g):
    # TensorFlow: complex(g, 0); the cotangent of a complex number is complex
    x = node.inputs[0]
    return [cast(real_cotangent(g), x.dtype) if x._value.dtype.kind == "c" else g]


def _imag_grad(node, g):
    # TensorFlow: complex(0, g); a real input's imaginary part is the constant 0
    x = node.inputs[0]
    if x._value.dtype.kind != "c":
        return [None]
    return [cast(real_cotangent(g), x.dtype) * _wrap(np.asarray(1j, x._value.dtype)[()])]


# (as linear maps of the real and imaginary parts, real, imag and conj are elementwise)
real = defop("Real", np.real, _real_grad, linear=True, symmetric=True)
imag = defop("Imag", np.imag, _imag_grad, linear=True, symmetric=True)
conj = defop("Conj", np.conj, lambda n, g: [conj(g)], linear=True, symmetric=True)
