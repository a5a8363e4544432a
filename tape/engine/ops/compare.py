"""Comparison and logic ops: bool results, no gradient."""
from __future__ import annotations

import numpy as np

from ..registry import defop

less = defop("Less", np.less, differentiable=False)
less_equal = defop("LessEqual", np.less_equal, differentiable=False)
greater = defop("Greater", np.greater, differentiable=False)
greater_equal = defop("GreaterEqual", np.greater_equal, differentiable=False)
equal = defop("Equal", np.equal, differentiable=False)
not_equal = defop("NotEqual", np.not_equal, differentiable=False)
logical_and = defop("LogicalAnd", np.logical_and, differentiable=False)
logical_or = defop("LogicalOr", np.logical_or, differentiable=False)
logical_xor = defop("LogicalXor", np.logical_xor, differentiable=False)
logical_not = defop("LogicalNot", np.logical_not, differentiable=False)
is_nan = defop("IsNan", np.isnan, differentiable=False)
is_inf = defop("IsInf", np.isinf, differentiable=False)
is_finite = defop("IsFinite", np.isfinite, differentiable=False)
