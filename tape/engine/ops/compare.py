"""Comparison and logic ops: bool results, no gradient."""
from __future__ import annotations

import numpy as np

from ..registry import defop

__all__ = ["equal", "greater", "greater_equal", "is_finite", "is_inf", "is_nan", "less",
           "less_equal", "logical_and", "logical_not", "logical_or", "logical_xor", "not_equal"]

less = defop("Less", np.less, differentiable=False, arity=2)
less_equal = defop("LessEqual", np.less_equal, differentiable=False, arity=2)
greater = defop("Greater", np.greater, differentiable=False, arity=2)
greater_equal = defop("GreaterEqual", np.greater_equal, differentiable=False, arity=2)
equal = defop("Equal", np.equal, differentiable=False, arity=2)
not_equal = defop("NotEqual", np.not_equal, differentiable=False, arity=2)
logical_and = defop("LogicalAnd", np.logical_and, differentiable=False, arity=2)
logical_or = defop("LogicalOr", np.logical_or, differentiable=False, arity=2)
logical_xor = defop("LogicalXor", np.logical_xor, differentiable=False, arity=2)
logical_not = defop("LogicalNot", np.logical_not, differentiable=False, arity=1)
is_nan = defop("IsNan", np.isnan, differentiable=False, arity=1)
is_inf = defop("IsInf", np.isinf, differentiable=False, arity=1)
is_finite = defop("IsFinite", np.isfinite, differentiable=False, arity=1)
