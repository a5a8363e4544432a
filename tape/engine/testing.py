"""Numerical gradient checks: compare the engine's derivatives with central differences.

``check_grads(f, args, modes=("rev", "fwd", "taylor"), order=2)`` checks derivatives up to
``order`` along random directions, in float64, in each mode: reverse (nested GradientTapes),
forward (ForwardAccumulator, its JVP then differentiated in reverse for higher orders) and
Taylor (``taylor_coefficients`` of f restricted to a random line). Tests and users call it alike.
"""
from __future__ import annotations

import math

import numpy as np

from .forward import ForwardAccumulator
from .ops.array import reduce_sum
from .tape import GradientTape
from .taylor import taylor_coefficients
from .tensor import Tensor, _wrap

MODES = ("rev", "fwd", "taylor")


def _as_arrays(args):
    return [np.array(a._value if isinstance(a, Tensor) else a, dtype=np.float64) for a in args]


def numerical_directional_derivative(f, arrays, directions, eps=1e-6):
    """Central difference of f along ``directions`` (4th-order Richardson-style stencil)."""
    def at(t):
        return f([a + t * d for a, d in zip(arrays, directions)])
    return (-at(2 * eps) + 8 * at(eps) - 8 * at(-eps) + at(-2 * eps)) / (12 * eps)


def check_grads(f, args, order=1, rtol=1e-5, atol=1e-6, eps=1e-5, seed=0, modes=MODES):
    """Assert that the derivatives of ``f`` up to ``order`` match central differences.

    ``f`` takes tensors and returns a tensor of any shape; it is reduced with a random output
    weighting to a scalar. ``modes`` (all three by default): "rev" (reverse mode, nested tapes),
    "fwd" (forward mode; orders above 1 differentiate the JVP in reverse mode) and "taylor"
    (Taylor mode along a random line through ``args``). Raises AssertionError naming the mode, the order and both
    numbers.

    Examples
    --------
    >>> from tape.engine.testing import check_grads
    >>> check_grads(lambda x: tape.sin(x) * x, [np.array([0.3, 1.2])], order=2)
    """
    unknown = [m for m in modes if m not in MODES]
    if unknown:
        raise ValueError(f"check_grads: unknown mode(s) {unknown}; use any of {MODES}")
    for mode in modes:
        if mode == "rev":
            _check_rev(f, args, order, rtol, atol, eps, seed)
        elif mode == "fwd":
            _check_fwd(f, args, order, rtol, atol, eps, seed)
        else:
            _check_taylor(f, args, order, rtol, atol, seed)


def _tensor(a):
    return _wrap(a[()] if a.ndim == 0 else a)


def _weighted(f, arrays, rng):
    """f reduced to a scalar tensor by a fixed random weighting of its output."""
    out = f(*[_tensor(a) for a in arrays])
    weight = rng.standard_normal(np.shape(out._value if isinstance(out, Tensor) else out))
    w = _tensor(weight)
    return lambda *xs: reduce_sum(f(*xs) * w)


def _check_fwd(f, args, order, rtol, atol, eps, seed):
    rng = np.random.default_rng(seed)
    arrays = _as_arrays(args)
    scalar = _weighted(f, arrays, rng)
    directions = [rng.standard_normal(a.shape) for a in arrays]

    def jvp(*xs):
        with ForwardAccumulator(list(xs), [_tensor(d) for d in directions]) as acc:
            y = scalar(*xs)
        t = acc.jvp(y)
        return t if t is not None else _wrap(np.float64(0.0))
    got = float(jvp(*[_tensor(a) for a in arrays])._value)
    want = numerical_directional_derivative(
        lambda arrs: float(scalar(*[_tensor(a) for a in arrs])._value), arrays, directions, eps)
    if not np.isclose(got, want, rtol=rtol, atol=atol):
        raise AssertionError(f"derivative mismatch (forward mode, order 1): tape gives {got!r}, "
                             f"central differences give {want!r}")
    if order > 1:
        _check(jvp, arrays, order - 1, rtol, atol, eps, rng)


def _check_taylor(f, args, order, rtol, atol, seed):
    rng = np.random.default_rng(seed)
    arrays = _as_arrays(args)
    scalar = _weighted(f, arrays, rng)
    directions = [rng.standard_normal(a.shape) for a in arrays]

    def along(t):
        """f on the line args + t * directions (t a scalar tensor)."""
        return scalar(*[_tensor(a) + t * _tensor(d) for a, d in zip(arrays, directions)])

    def at(h):
        return float(along(_wrap(np.float64(h)))._value)
    coeffs = taylor_coefficients(along, np.float64(0.0), order)
    for k in range(1, order + 1):
        got = float(coeffs[k]) * math.factorial(k)
        want = _nth_difference(at, k)
        if not np.isclose(got, want, rtol=max(rtol, 1e-4 * k), atol=max(atol, 1e-4 * k)):
            raise AssertionError(f"derivative mismatch (Taylor mode, order {k}): tape gives "
                                 f"{got!r}, central differences give {want!r}")


def _nth_difference(at, k):
    """The k-th derivative at 0 of a function of one float, by central differences."""
    h = 1e-3 * k
    if k == 1:
        return (-at(2 * h) + 8 * at(h) - 8 * at(-h) + at(-2 * h)) / (12 * h)
    if k == 2:
        return (-at(2 * h) + 16 * at(h) - 30 * at(0.0) + 16 * at(-h) - at(-2 * h)) / (12 * h * h)
    # order k >= 3: the k-th central difference, second-order accurate
    return sum((-1) ** j * math.comb(k, j) * at((k / 2 - j) * h) for j in range(k + 1)) / h ** k


def _check_rev(f, args, order, rtol, atol, eps, seed):
    rng = np.random.default_rng(seed)
    arrays = _as_arrays(args)
    out = f(*[_wrap(a[()] if a.ndim == 0 else a) for a in arrays])
    weight = rng.standard_normal(np.shape(out._value if isinstance(out, Tensor) else out))

    def scalar(*xs):
        y = f(*xs)
        return (y * _wrap(weight[()] if weight.ndim == 0 else weight)) if weight.ndim else y * float(weight)
    _check(scalar, arrays, order, rtol, atol, eps, rng)


def _reduce(t):
    return reduce_sum(t)


def _check(scalar, arrays, order, rtol, atol, eps, rng):
    directions = [rng.standard_normal(a.shape) for a in arrays]

    def analytic(*xs):
        # directional derivative <grad scalar(xs), directions>, itself differentiable
        with GradientTape() as t:
            for x in xs:
                t.watch(x)
            y = _reduce(scalar(*xs))
        grads = t.gradient(y, list(xs))
        total = None
        for g, d in zip(grads, directions):
            if g is None:
                continue
            term = _reduce(g * _wrap(d[()] if d.ndim == 0 else d))
            total = term if total is None else total + term
        return total if total is not None else _wrap(np.float64(0.0))

    def as_float(*xs):
        return float(_reduce(scalar(*xs))._value)

    def wrapped(arrs):
        return as_float(*[_wrap(a[()] if a.ndim == 0 else a) for a in arrs])
    xs = [_wrap(a[()] if a.ndim == 0 else a) for a in arrays]
    got = float(analytic(*xs)._value)
    want = numerical_directional_derivative(wrapped, arrays, directions, eps)
    if not np.isclose(got, want, rtol=rtol, atol=atol):
        raise AssertionError(f"derivative mismatch (order {order} check): tape gives {got!r}, "
                             f"central differences give {want!r}")
    if order > 1:
        _check(analytic, arrays, order - 1, rtol, atol, eps, rng)
