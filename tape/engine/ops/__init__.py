"""The op library, one module per family, and the Python operators of ``Tensor``."""
from __future__ import annotations

from ..registry import BinaryPrimitive
from ..tensor import Tensor, Variable
from . import array, cast, compare, control, creation, fft, linalg, math, nn, reduce


def _install_operators():
    m, c, a = math, compare, array

    def binary(fn):
        if isinstance(fn, BinaryPrimitive):
            return fn.operator          # a plain (a, b) function: no wrapper frame per operator
        return lambda self, other: fn(self, other)

    def reflected(fn):
        if isinstance(fn, BinaryPrimitive):
            return fn.reflected
        return lambda self, other: fn(other, self)

    table = {
        "add": m.add, "sub": m.subtract, "mul": m.multiply, "truediv": m.divide,
        "floordiv": m.floordiv, "mod": m.floormod, "pow": m.pow, "matmul": linalg.matmul,
        "and": c.logical_and, "or": c.logical_or, "xor": c.logical_xor,
    }
    for name, fn in table.items():
        setattr(Tensor, f"__{name}__", binary(fn))
        setattr(Tensor, f"__r{name}__", reflected(fn))
    for name, fn in {"lt": c.less, "le": c.less_equal, "gt": c.greater, "ge": c.greater_equal,
                     "eq": c.equal, "ne": c.not_equal}.items():
        setattr(Tensor, f"__{name}__", binary(fn))
    Tensor.__neg__ = lambda self: m.negative(self)
    Tensor.__pos__ = lambda self: self
    Tensor.__abs__ = lambda self: m.abs(self)
    Tensor.__invert__ = lambda self: c.logical_not(self)
    Tensor.__getitem__ = lambda self, key: a.getitem(self, key)
    # a variable's value as a Tensor, differentiable with respect to the variable
    Variable.read_value = Variable.value = lambda self: a.identity(self)


_install_operators()
