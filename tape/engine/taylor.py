"""Taylor mode: n-th derivatives of a function of one variable in one forward pass.

``f`` runs once on tensors while a GradientTape records it; then truncated Taylor series
``[c0, c1, ..., cn]`` (NumPy arrays of shape ``(n+1,) + value.shape``) are pushed through the
recorded nodes with the standard recurrences (Griewank & Walther, ch. 13). The n-th derivative
is ``n! * c_n``. Each op costs O(n^2) flops in O(n) NumPy calls, so order 20 costs about what a
handful of gradients cost, where nested tapes grow exponentially with the order.

Each op carries its own rule (``Primitive.taylor``, defined beside the op): ``rule(node, series,
K) -> series`` where ``series`` holds one array per input, or None for an input that does not
depend on x (a constant). A ``linear`` op needs none: it is applied to each coefficient. Every
built-in op has one; through an op without one (a user's ``primitive`` defined without
``taylor=``, a ``custom_gradient`` function) Taylor mode raises ``LookupError`` naming the op.

Recurrences can cancel (a quotient at high order loses every digit), so Taylor mode can also
estimate its own error: ``perturbed_coefficients`` replays the recorded pass with every
coefficient perturbed as rounding would, and the spread says how many digits are left
(``correct_digits``, ``inaccurate``); ``cauchy.coefficients_with_errors`` then recomputes the doubtful
ones from Cauchy's integral where f is holomorphic (``cauchy.py``; docs/higher.md).
"""
from __future__ import annotations


import numpy as np

from . import series as S
from .tape import GradientTape
from .tensor import Tensor, _wrap, convert_to_tensor


# -- propagation ---------------------------------------------------------------------------
def taylor_coefficients(f, x, order, *, return_error=False):
    """Taylor coefficients ``[c0..c_order]`` of ``f`` around each point of ``x``.

    ``x`` is a float NumPy array (or scalar) of points; ``f`` maps a tensor of points to a tensor
    of the same shape, elementwise. Returns an array of shape ``(order+1,) + x.shape``; with
    ``return_error=True``, ``(coefficients, errors)``: ``errors`` (same shape, float64) is an
    estimate of each coefficient's absolute rounding error (see ``perturbed_coefficients``).
    """
    coeffs, deltas = perturbed_coefficients(f, x, order, lanes=2 if return_error else 0)
    if not return_error:
        return coeffs
    return coeffs, error_from_deltas(coeffs, deltas)


#: Relative size of the perturbation of every op's output coefficients in the replays that
#: estimate rounding errors: far above rounding (2^-52), so the replays measure the sensitivity
#: and not their own noise, and far below 1, so a sensitivity large enough to matter (2^36
#: and more gives at most 5 digits) is still measured in the linear regime.
DELTA = 2.0 ** -36
#: Rounding error ~ (measured sensitivity to relative perturbations of size DELTA) * eps/DELTA,
#: times this margin: each op's coefficients carry about one rounding each, recurrences sum k
#: terms, and two random-sign replays can both land below the typical error. Calibrated on the
#: mpmath differential test (tests/differential/test_taylor_vs_mpmath.py): no estimate there
#: falls below the true error.
SAFETY = 8.0
EPS = float(np.finfo(np.float64).eps)

_POOL_SIZE = 1 << 17
_pool = None


class _Jitter:
    """Factors 1 +- DELTA with random signs, each call the next stretch of one fixed pool (a
    replay's own start): deterministic, so the same call gives the same estimate."""

    def __init__(self, lane):
        global _pool
        if _pool is None:
            signs = np.random.default_rng(0x7A7E).integers(0, 2, _POOL_SIZE) * 2.0 - 1.0
            _pool = 1.0 + DELTA * signs
        self.at = lane * 40503

    def __call__(self, shape):
        n = 1
        for m in shape:
            n *= m
        self.at += n + 7919
        if n <= _POOL_SIZE:
            start = self.at % (_POOL_SIZE - n + 1)
            return _pool[start:start + n].reshape(shape)
        return np.take(_pool, (self.at + np.arange(n)) % _POOL_SIZE).reshape(shape)


def perturbed_coefficients(f, x, order, lanes=0):
    """``(coefficients, deltas)``: the coefficients as ``taylor_coefficients`` returns them, and
    for each of ``lanes`` replays of the recorded ops, in which every op's output coefficients
    are multiplied by 1 +- DELTA (random signs), the replay's coefficients minus the exact
    pass's. A replay does not run ``f`` again: the same recording is propagated anew.

    Rounding errors act like relative perturbations of about eps on every coefficient an op
    computes, so ``|delta| * eps / DELTA`` estimates the error they cause, cancellation in any
    later recurrence (a quotient of nearly equal series, sin(x)/x at high order) included."""
    if order >= len(S.FACT):            # k! for k > 170 overflows float64
        raise ValueError(f"order {order} is beyond Taylor mode's limit of {len(S.FACT) - 1} "
                         f"({len(S.FACT)}! overflows float64)")
    K = order + 1
    X = _wrap(x)
    with GradientTape(watch_accessed_variables=False) as tp:
        tp.watch(X)
        y = f(X)
    if not isinstance(y, Tensor):
        y = convert_to_tensor(y)
    seed = np.zeros((K,) + np.shape(x), np.result_type(x, np.float64))
    seed[0] = x
    if K > 1:
        seed[1] = 1
    nodes = tp._nodes
    coeffs = _propagate(nodes, X, seed, K, y, None)
    deltas = [_propagate(nodes, X, seed, K, y, lane) - coeffs for lane in range(1, lanes + 1)]
    return coeffs, deltas


def _propagate(nodes, X, seed, K, y, lane):
    """The series of ``y`` from the recorded ``nodes``; ``lane`` (an int) perturbs every op's
    output coefficients (see ``perturbed_coefficients``), None leaves them exact."""
    if K == 1 and lane is None:
        return S.const(y._value, 1)
    if lane is None:
        return _pass(nodes, X, seed, K, y, None)
    jitter = _Jitter(lane)
    S.local.jitter = jitter           # the recurrences perturb their own coefficients too
    try:
        return _pass(nodes, X, seed, K, y, jitter)
    finally:
        S.local.jitter = None


def _pass(nodes, X, seed, K, y, jitter):
    series = {id(X): seed}
    for node in nodes:
        ins = [series.get(id(i)) for i in node.inputs]
        if all(s is None for s in ins):
            continue
        out = node.outputs[0]
        if out._value.dtype.kind not in "fc":
            continue
        s = series_of(node, ins, K) if K > 1 else np.asarray(out._value)[None]
        if s.shape[1:] != out._value.shape:
            s = np.broadcast_to(s, (K,) + out._value.shape)
        s = s.astype(out._value.dtype)                   # own, writable, the op's dtype
        s[0] = out._value                                # c0 is the op's own value, exactly
        if jitter is not None:
            s *= jitter(s.shape)
        series[id(out)] = s
    got = series.get(id(y))
    return got if got is not None else S.const(y._value, K)


def error_from_deltas(coeffs, deltas):
    """Estimated absolute rounding error of each coefficient (float64, ``coeffs``' shape) from
    the replays' differences: the largest, scaled from DELTA to eps, with the margin SAFETY,
    plus the last rounding of the coefficient itself. A replay that did not stay finite where
    the exact pass did means a sensitivity beyond measure: the error is inf."""
    size = np.abs(coeffs).astype(np.float64)
    err = EPS * size
    for d in deltas:            # (the factor is below 1: no overflow, no warning to silence)
        d = np.abs(d).astype(np.float64)
        err = np.maximum(err, np.where(np.isfinite(d), d * (SAFETY * EPS / DELTA), np.inf))
    return np.where(np.isfinite(size), err, np.nan)


def correct_digits(value, error):
    """Estimated number of correct significant decimal digits of ``value`` given its estimated
    absolute ``error``: -log10(error / |value|), between 0 and 16 (16 where the error is 0;
    0 where the error is as large as the value, a value of 0 with any error included; NaN where
    either is not a number)."""
    value = np.abs(np.asarray(value, dtype=np.float64))
    error = np.asarray(error, dtype=np.float64)
    with np.errstate(divide="ignore", invalid="ignore"):
        digits = -np.log10(error / value)
    digits = np.where(error == 0, 16.0, np.clip(digits, 0.0, 16.0))
    return np.where(np.isnan(value) | np.isnan(error), np.nan, digits)


#: A derivative whose estimated relative error is above this is not to be trusted to the digits
#: a float64 prints: ``inaccurate`` says so, and the command line warns.
TRUSTED_RELATIVE_ERROR = 1e-8


def inaccurate(value, error, rtol=TRUSTED_RELATIVE_ERROR):
    """True where the estimated error of ``value`` is above ``rtol`` relative to it (and where
    either is not a number): the values to warn about, or to compute another way."""
    value = np.abs(np.asarray(value, dtype=np.float64))
    error = np.asarray(error, dtype=np.float64)
    return ~(error <= rtol * value)


def series_of(node, ins, K):
    """The output series of one recorded op application from its input series."""
    op = node.op
    if op.custom_grad is None:
        if op.taylor is not None:
            return np.asarray(op.taylor(node, ins, K))
        if op.linear:
            return np.asarray(_linear_series(node, ins, K))
    raise LookupError(f"Taylor mode (tape.derivative) has no rule for the op {op.name!r}: give "
                      "it one with tape.primitive(..., taylor=rule), or take its higher "
                      "derivatives with nested GradientTapes")


def _linear_series(node, ins, K):
    """A linear op on a series: the op applied to each coefficient (c0 is its own value), or to
    the whole series at once when it acts elementwise."""
    fn, attrs = node.op.fn, node.attrs
    if len(ins) == 1 and node.op.symmetric:
        return fn(ins[0], **attrs)
    args = [s if s is not None else np.zeros_like(x._value) for s, x in zip(ins, node.inputs)]
    out = [node.outputs[0]._value]
    for k in range(1, K):
        out.append(fn(*[a[k] if s is not None else a for a, s in zip(args, ins)], **attrs))
    return np.stack(out)
