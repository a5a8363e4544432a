"""``tape.math``: elementwise arithmetic and reductions (the same ops as at top level)."""
from .engine.ops.math import (abs, acos, acosh, add, add_n, angle, asin, asinh, atan, atan2, atanh, cast,  # noqa: F401
                              cbrt, ceil, conj, cos, cosh, div_no_nan, divide, erf, exp, expm1,
                              floor, floordiv, floormod, imag, log, log1p, log2, log10, maximum,
                              minimum, mod, multiply, negative, pow, real, reciprocal, round, rsqrt,
                              scalar_mul, sigmoid, sign, sin, sinh, softplus, sqrt, square,
                              squared_difference, subtract, tan, tanh, truediv, xlogy)
from .engine.ops.compare import (equal, greater, greater_equal, is_finite, is_inf, is_nan, less,  # noqa: F401
                                 less_equal, logical_and, logical_not, logical_or, logical_xor,
                                 not_equal)
from .engine.ops.reduce import (argmax, argmin, cumsum, reduce_all, reduce_any, reduce_logsumexp,  # noqa: F401
                                reduce_max, reduce_mean, reduce_min, reduce_prod, reduce_sum)
from .engine.ops.nn import softmax, log_softmax  # noqa: F401
