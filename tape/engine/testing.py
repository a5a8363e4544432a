"""Numerical gradient checks: compare the tape's derivatives with central differences.

``check_grads(f, args, order=2)`` checks first and (recursively, through nested tapes) higher
order derivatives along random directions, in float64. Tests and users call it alike.
"""
from __future__ import annotations

import numpy as np

from .tape import GradientTape
from .tensor import Tensor, _wrap


def _as_arrays(args):
    return [np.array(a._value if isinstance(a, Tensor) else a, dtype=np.float64) for a in args]


def _scalar_along(f, arrays, direction_out):
    """sum(f(*args) * direction_out) as a float, the scalar whose gradient we check."""
    y = f(*[_wrap(a[()] if a.ndim == 0 else a) for a in arrays])
    return float(np.sum(np.asarray(y._value if isinstance(y, Tensor) else y) * direction_out))


def numerical_directional_derivative(f, arrays, directions, eps=1e-6):
    """Central difference of f along ``directions`` (4th-order Richardson-style stencil)."""
    def at(t):
        return f([a + t * d for a, d in zip(arrays, directions)])
    return (-at(2 * eps) + 8 * at(eps) - 8 * at(-eps) + at(-2 * eps)) / (12 * eps)


def check_grads(f, args, order=1, rtol=1e-5, atol=1e-6, eps=1e-5, seed=0):
    """Assert that reverse-mode derivatives of ``f`` up to ``order`` match central differences.

    ``f`` takes tensors and returns a tensor of any shape; it is reduced with a random output
    weighting to a scalar. Raises AssertionError naming the order and both numbers.

    Examples
    --------
    >>> from tape.engine.testing import check_grads
    >>> check_grads(lambda x: tape.sin(x) * x, [np.array([0.3, 1.2])], order=2)
    """
    rng = np.random.default_rng(seed)
    arrays = _as_arrays(args)
    out = f(*[_wrap(a[()] if a.ndim == 0 else a) for a in arrays])
    weight = rng.standard_normal(np.shape(out._value if isinstance(out, Tensor) else out))

    def scalar(*xs):
        y = f(*xs)
        return (y * _wrap(weight[()] if weight.ndim == 0 else weight)) if weight.ndim else y * float(weight)
    _check(scalar, arrays, order, rtol, atol, eps, rng)


def _reduce(t):
    from .ops.reduce import reduce_sum
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
