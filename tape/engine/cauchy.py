"""High derivatives of analytic functions from Cauchy's integral, where Taylor mode loses them.

Taylor mode's recurrences for quotients, roots and logarithms can cancel catastrophically at
high order (sin(x)/x at order 20 loses every digit), and scaling the variable cannot help: the
recurrences are homogeneous in it, so t -> r t by a power of two changes no rounding at all.
Cauchy's formula does not recurse: for f holomorphic on the disc |z - a| <= r,

    c_k = f^(k)(a) / k! = (1 / 2 pi i) contour integral f(z) / (z - a)^(k+1) dz
        ~ (1/n) sum_j f(a + r w^j) w^(-jk) / r^k,         w = exp(2 pi i / n),

one FFT of f at n points of the circle, with a rounding error of about eps * max|f| / r^k, small
for a large r (Bornemann, "Accuracy and stability of computing high-order derivatives of
analytic functions by Cauchy integrals", Found. Comput. Math. 11 (2011)). The sum is exact up
to aliasing (c_{k+n} r^n, ...), negligible when r is well inside the radius of convergence.

``improve`` tries a ladder of radii, each 2^(1/4) times the last, in ONE evaluation of f at complex
points, and keeps for each point the radius whose result agrees best with the next radius's.
A radius is rejected when the circle leaves f's domain of holomorphy, which it detects by
    - a value that is not finite on the circle,
    - coefficients that are not real (f real on the real axis has conjugate-symmetric values
      on a circle about a real point, unless a branch cut or a non-holomorphic op, abs or
      floor, breaks it),
    - low-order coefficients that disagree with Taylor mode's, where those are accurate.
The result replaces Taylor mode's only where its estimated error is smaller.
"""
from __future__ import annotations

import warnings

import numpy as np

from .taylor import EPS, SAFETY, inaccurate, taylor_coefficients

#: radii tried, as multiples of the first guess (the radius the Taylor coefficients suggest):
#: close steps, so that two neighbours are both near the best radius and their difference
#: measures its error, not the error of a radius twice as large
LADDER = 2.0 ** np.arange(-4, 7, 0.25)


#: points per evaluation of f on the circles: each costs len(LADDER) * n complex samples
#: (44 * 128 at order 30, about 90 kB per intermediate value of f)
CHUNK = 16


def improve(f, points, order, coeffs, errors):
    """``(coefficients, errors)``, both (K,) + points.shape: Taylor mode's ``coeffs`` and
    ``errors`` (the same shapes, c_k = f^(k)/k! about each real point), each replaced by the
    Cauchy integral's where that one's estimated error is smaller. Only the points with a
    coefficient of order 2 or more above 1e-8 relative are tried, CHUNK at a time. ``f`` maps a
    complex tensor of points elementwise."""
    K = order + 1
    shape = np.shape(coeffs)
    a = np.asarray(points, dtype=np.float64).reshape(-1)                    # (P,)
    c = np.real(np.asarray(coeffs)).reshape(K, -1)
    e = np.asarray(errors, dtype=np.float64).reshape(K, -1)
    if c.shape[1] != a.size:
        c = np.broadcast_to(c, (K, a.size))
        e = np.broadcast_to(e, (K, a.size))
    c, e = c.copy(), e.copy()
    doubtful = np.flatnonzero(inaccurate(c[2:], e[2:]).any(axis=0))
    for start in range(0, len(doubtful), CHUNK):
        block = doubtful[start:start + CHUNK]
        c[:, block], e[:, block] = _improve_block(f, a[block], K, c[:, block], e[:, block])
    return c.reshape(shape).astype(np.result_type(coeffs)), e.reshape(shape)


def _improve_block(f, a, K, c, e):
    """``improve`` for the points ``a`` (P,), coefficients and errors (K, P)."""
    from .tensor import _wrap

    n = max(64, 1 << (4 * K - 1).bit_length())                               # samples per circle
    radii = _first_radius(c, e)[:, None] * LADDER[None, :]                   # (P, R)
    w = np.exp(2j * np.pi * np.arange(n) / n)
    z = a[:, None, None] + radii[:, :, None] * w                             # (P, R, n)
    try:
        with warnings.catch_warnings(), np.errstate(all="ignore"):
            warnings.simplefilter("ignore")
            y = f(_wrap(z.reshape(-1)))
            y = np.asarray(getattr(y, "_value", y), dtype=np.complex128)
    except Exception:          # an op without complex support: Taylor mode's result stands
        return c, e
    if y.shape != (z.size,):
        return c, e
    y = y.reshape(z.shape)
    finite = np.isfinite(y).all(axis=-1)                                     # (P, R)
    big = np.where(finite, np.abs(y).max(axis=-1), np.inf)                   # max |f| on circle
    F = np.fft.fft(np.where(np.isfinite(y), y, 0), axis=-1)[..., :K] / n    # (P, R, K): c_k r^k
    k = np.arange(K)
    with np.errstate(all="ignore"):
        cc = F / radii[..., None] ** k                                       # (P, R, K)
        # rounding of the sum: eps * max|f| / r^k, times a few for the FFT's own
        rounding = 4 * EPS * big[..., None] / radii[..., None] ** k
        unreal = np.abs(cc.imag)        # not real: a cut or a non-holomorphic op on the circle
        cr = cc.real
        taylor = c.T[:, None, :]                                             # (P, 1, K)
        # agreement with Taylor mode where it is accurate (its relative error below 1e-10)
        trusted = (e.T <= 1e-10 * np.abs(c.T))[:, None, :]
        clash = trusted & (np.abs(cr - taylor) > SAFETY * (rounding + unreal) + 1e-8 * np.abs(taylor))
        ok = finite[..., None] & ~clash.any(axis=-1, keepdims=True) & (unreal <= 1e-6 * np.abs(cr))
        # the next radius up checks each one (a radius with no good neighbour is not used)
        step = np.abs(cr[:, :-1] - cr[:, 1:])                                # (P, R-1, K)
        est = SAFETY * (step + rounding[:, :-1] + unreal[:, :-1])
        est = np.where(ok[:, :-1] & ok[:, 1:] & np.isfinite(est), est, np.inf)
    pick = np.argmin(est, axis=1)                                            # (P, K)
    value = np.take_along_axis(cr, pick[:, None, :], axis=1)[:, 0].T        # (K, P)
    error = np.take_along_axis(est, pick[:, None, :], axis=1)[:, 0].T
    better = error < e
    return np.where(better, value, c), np.where(better, error, e)


def _first_radius(c, e):
    """A radius about the radius of convergence the accurate Taylor coefficients suggest:
    1 / max_k |c_k|^(1/k) over the k >= 1 whose estimated relative error is below 1e-10; 1
    where none is (a power of two, so that the ladder rounds nothing)."""
    K = c.shape[0]
    if K < 2:
        return np.ones(c.shape[1])
    k = np.arange(1, K, dtype=np.float64)[:, None]
    good = (e[1:] <= 1e-10 * np.abs(c[1:])) & (c[1:] != 0) & np.isfinite(c[1:])
    with np.errstate(all="ignore"):
        log_rho = np.where(good, np.log2(np.abs(c[1:])) / k, -np.inf).max(axis=0)
    r = np.where(np.isfinite(log_rho), np.exp2(-np.round(log_rho)), 1.0)
    return np.clip(r, 2.0 ** -40, 2.0 ** 40)


def coefficients_with_errors(f, x, order):
    """``(coefficients, errors)``, each of shape ``(order+1,) + x.shape``: the Taylor
    coefficients c_k = f^(k)(x)/k! about each real point of ``x`` with their estimated absolute
    errors, as ``taylor_coefficients(..., return_error=True)`` gives them, except that those
    whose estimate is above 1e-8 relative are taken from Cauchy's integral where that one is
    better (``improve``: f holomorphic around the point). ``f`` acts elementwise. What a
    Taylor polynomial (``tape taylor``) prints, each coefficient checked."""
    coeffs, errors = taylor_coefficients(f, x, order, return_error=True)
    if (order >= 2 and np.isrealobj(coeffs) and np.isrealobj(x)
            and inaccurate(coeffs[2:], errors[2:]).any()):
        coeffs, errors = improve(f, x, order, coeffs, errors)
    return coeffs, errors
