"""Truncated Taylor series arithmetic on NumPy arrays of shape ``(K, ...)`` (axis 0: c_0..c_{K-1}).

The recurrences are the standard ones (Griewank & Walther, "Evaluating Derivatives", ch. 13):
each costs O(K^2) flops in O(K) NumPy calls. When a series is affine (``c_0 + c_1 t``: a function
applied straight to the variable) exp, log, sin/cos and powers use closed forms instead.
"""
from __future__ import annotations

import _thread
import math

import numpy as np


class _Local(_thread._local):
    #: set (per thread) during the replays that estimate rounding errors
    #: (``taylor.perturbed_coefficients``): ``jitter(shape)`` gives factors 1 +- DELTA
    jitter = None


local = _Local()


def jittered(c, k, jitter):
    """Perturb the coefficient a recurrence just computed, in a replay. With the terms of its
    sum perturbed too (rounding a sum is summing slightly perturbed terms), the replay sees
    the rounding inside the recurrence, which feeds every later coefficient of it: an unstable
    recurrence amplifies it where the function itself is well conditioned (a^(1/2) of exp),
    and perturbing only an op's inputs and outputs would not show that."""
    c[k] = c[k] * jitter(np.shape(c[k]))


def const(value, K):
    s = np.zeros((K,) + np.shape(value), np.result_type(value, np.float64))
    s[0] = value
    return s


def align(s, ndim):
    """Series reshaped so that its value axes broadcast against a value of rank ``ndim``."""
    extra = ndim - (s.ndim - 1)
    return s.reshape(s.shape[:1] + (1,) * extra + s.shape[1:]) if extra > 0 else s


def mul(a, b):
    """Cauchy product of two series (truncated)."""
    K = a.shape[0]
    if a.ndim == 1 and b.ndim == 1:
        return np.convolve(a, b)[:K]
    shape = np.broadcast_shapes(a.shape, b.shape)
    out = np.zeros(shape, np.result_type(a, b))
    for j in range(K):
        out[j:] += a[j] * b[:K - j]
    return out


def flat(s):
    """(K, P) view of a series, or (K,) for a single point: NumPy's fastest dot applies."""
    return s.reshape(s.shape[0], -1) if s.ndim > 1 and s[0].size > 1 else s.reshape(s.shape[0])


def dot(a, b):
    return np.dot(a, b) if a.ndim == 1 else np.einsum("ij,ij->j", a, b)


def weights(K, ndim):
    return np.arange(K, dtype=np.float64).reshape((K,) + (1,) * (ndim - 1))


def div(a, b):
    """Series quotient a / b: c_k = (a_k - sum_{j>=1} b_j c_{k-j}) / b_0."""
    ndim = max(a.ndim, b.ndim)
    a, b = align(a, ndim - 1), align(b, ndim - 1)
    shape = np.broadcast_shapes(a.shape, b.shape)
    a, b = flat(np.broadcast_to(a, shape)), flat(np.broadcast_to(b, shape))
    c = np.empty(a.shape, np.result_type(a, b))
    c[0] = a[0] / b[0]
    jitter = local.jitter
    for k in range(1, a.shape[0]):
        if jitter is None:
            c[k] = (a[k] - dot(b[k:0:-1], c[:k])) / b[0]
        else:
            c[k] = (a[k] - dot(jitter(b[k:0:-1].shape) * b[k:0:-1], c[:k])) / b[0]
            jittered(c, k, jitter)
    return c.reshape(shape)


def ode(a, y0, h):
    """y with y' = a' * w where w_m = h(y, m) needs y_0..y_m (sequential recurrence)."""
    shape = a.shape
    a = flat(a)
    K = a.shape[0]
    ja = weights(K, a.ndim) * a
    y = np.empty(a.shape, a.dtype)
    w = np.empty(a.shape, a.dtype)
    y[0] = np.reshape(y0, a.shape[1:])
    w[0] = h(y, 0)
    jitter = local.jitter
    for k in range(1, K):
        if jitter is None:
            y[k] = dot(ja[k:0:-1], w[:k]) / k
        else:
            y[k] = dot(jitter(w[:k].shape) * ja[k:0:-1], w[:k]) / k
            jittered(y, k, jitter)
        w[k] = h(y, k)
    return y.reshape(shape)


def integrate(d, y0):
    """y with y' = d (d a series of the same length; its last coefficient is not needed)."""
    y = np.empty_like(d)
    y[0] = y0
    y[1:] = d[:-1] / weights(len(d), d.ndim)[1:]
    return y


def derivative(a):
    """Series of a' (the last coefficient, beyond truncation, is set to 0)."""
    d = np.zeros_like(a)
    d[:-1] = a[1:] * weights(len(a), a.ndim)[1:]
    return d


def is_affine(a):
    """True when only c0 and c1 are nonzero (f applied straight to the variable): closed forms."""
    return a.shape[0] <= 2 or not a[2:].any()


def exp(a):
    if is_affine(a):
        k = weights(a.shape[0], a.ndim)
        return np.exp(a[0]) * a[1] ** k / FACT[:a.shape[0]].reshape(k.shape)
    return ode(a, np.exp(a[0]), lambda y, m: y[m])


def log(a, y0=None, a0=None):
    """log(a); log1p passes its own y0 and a0 = 1 + a_0."""
    a0 = a[0] if a0 is None else a0
    y0 = np.log(a[0]) if y0 is None else y0
    if is_affine(a):
        k = weights(a.shape[0], a.ndim)
        with np.errstate(divide="ignore", invalid="ignore"):
            y = -((-a[1] / a0) ** k) / np.where(k == 0, 1, k)
        y[0] = y0
        return y
    d = derivative(a)
    return integrate(div(d, replace0(a, a0)), y0)


def replace0(a, a0):
    b = a.copy()
    b[0] = a0
    return b


def sincos(a):
    if is_affine(a):
        k = weights(a.shape[0], a.ndim)
        scale = a[1] ** k / FACT[:a.shape[0]].reshape(k.shape)
        # the k-th derivatives cycle exactly (sin(a + k pi/2) in floating point would not)
        cycle = np.empty((4,) + a.shape[1:], a.dtype)
        cycle[0] = np.sin(a[0])
        cycle[1] = np.cos(a[0])
        cycle[2] = -cycle[0]
        cycle[3] = -cycle[1]
        k4 = MOD4[:a.shape[0]]
        return cycle[k4] * scale, cycle[k4 + 1 - 4 * (k4 == 3)] * scale
    return coupled(a, np.sin(a[0]), np.cos(a[0]), -1.0)


def coupled(a, s0, c0, sign):
    """s' = a' c, c' = sign * a' s: sin/cos (sign -1) and sinh/cosh (sign +1)."""
    shape = a.shape
    a = flat(a)
    K = a.shape[0]
    ja = weights(K, a.ndim) * a
    s = np.empty(a.shape, a.dtype)
    c = np.empty(a.shape, a.dtype)
    s[0] = np.reshape(s0, a.shape[1:])
    c[0] = np.reshape(c0, a.shape[1:])
    jitter = local.jitter
    for k in range(1, K):
        if jitter is None:
            s[k] = dot(ja[k:0:-1], c[:k]) / k
            c[k] = sign * dot(ja[k:0:-1], s[:k]) / k
        else:
            s[k] = dot(jitter(c[:k].shape) * ja[k:0:-1], c[:k]) / k
            c[k] = sign * dot(jitter(s[:k].shape) * ja[k:0:-1], s[:k]) / k
            jittered(s, k, jitter)
            jittered(c, k, jitter)
    return s.reshape(shape), c.reshape(shape)


def pow_scalar(a, r):
    """a ** r for a constant exponent r."""
    r_value = np.asarray(r)
    # one exponent that adds no axes to a's value (a (1, 1) exponent on a scalar does: it
    # takes the broadcasting path below); .item(), as float() of a 1-element array that is
    # not 0-d is an error in NumPy 2
    scalar = (r_value.size == 1
              and np.broadcast_shapes(a.shape[1:], r_value.shape) == a.shape[1:])
    if scalar:
        r_value = np.asarray(r_value.item())
        if r_value.dtype.kind == "c" and r_value.imag == 0:
            r_value = r_value.real          # z ** 2 on complex z: the exponent 2+0j is 2
    real_r = r_value.dtype.kind != "c"
    if scalar and real_r and float(r_value) == int(r_value) and 0 <= int(r_value) <= 64:
        n = int(r_value)               # exact at a_0 = 0 too (x**3 at 0), unlike the recurrence
        out, base = const(np.ones_like(a[0]), a.shape[0]), a
        while n:
            if n & 1:
                out = mul(out, base)
            n >>= 1
            if n:
                base = mul(base, base)
        return out
    if is_affine(a) and scalar:
        k = weights(a.shape[0], a.ndim)
        r = float(r_value) if real_r else complex(r_value)
        binom = np.cumprod(np.concatenate([[1.0], (r - np.arange(a.shape[0] - 1)) /
                                           np.arange(1, a.shape[0])])).reshape(k.shape)
        with np.errstate(divide="ignore", invalid="ignore"):
            return binom * a[0] ** (r - k) * a[1] ** k
    # a y' = r a' y  =>  y_k = sum_{j=1..k} ((r+1) j - k) a_j y_{k-j} / (k a_0)
    shape = np.broadcast_shapes(a.shape, (1,) + np.shape(r))
    af = flat(np.broadcast_to(a, shape))
    rf = np.broadcast_to(r, shape[1:]).reshape(af.shape[1:])
    K = af.shape[0]
    y = np.empty(af.shape, np.result_type(af, rf))
    y[0] = af[0] ** rf
    j = weights(K, af.ndim)
    jitter = local.jitter
    for k in range(1, K):
        coef = (rf + 1) * j[1:k + 1] - k
        terms = coef * af[1:k + 1]
        if jitter is not None:
            terms = terms * jitter(terms.shape)
        y[k] = dot(terms, y[k - 1::-1]) / (k * af[0])
        if jitter is not None:
            jittered(y, k, jitter)
    return y.reshape(shape)


MOD4 = np.arange(400) % 4
FACT = np.array([math.factorial(k) for k in range(171)], dtype=np.float64)


def value_axes(axis, ndim):
    """A reduction's axes over a value of rank ``ndim``, shifted past the series axis (all
    value axes for None)."""
    return tuple(range(1, ndim + 1)) if axis is None else tuple(a + 1 for a in axis)


def logsumexp(a, axis, ndim, keepdims):
    """log(sum(exp(a))) over ``axis`` of the values (rank ``ndim``), shifted so exp never overflows."""
    axes = value_axes(axis, ndim)
    m = np.max(a[0], axis=None if axis is None else axis, keepdims=True)
    shifted = a.copy()
    shifted[0] -= m
    out = log(np.sum(exp(shifted), axis=axes, keepdims=True))
    out[0] += m
    return out if keepdims else np.squeeze(out, axis=axes)
