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

``improve`` tries a ladder of radii, each twice the last, in ONE evaluation of f at complex
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

import math
import warnings

import numpy as np

from .taylor import EPS, SAFETY

#: radii tried, as multiples of the first guess (the radius the Taylor coefficients suggest)
LADDER = 2.0 ** np.arange(-4, 7)


def improve(f, points, order, coeffs, errors):
    """``(value, error)`` of the ``order``-th derivative at each real point, from Cauchy
    integrals where they beat Taylor mode's ``coeffs``/``errors`` (shape (K,) + points.shape),
    else Taylor mode's own. ``f`` maps a complex tensor of points elementwise."""
    from .tensor import _wrap

    K = order + 1
    a = np.asarray(points, dtype=np.float64).reshape(-1)                    # (P,)
    c = np.real(np.asarray(coeffs)).reshape(K, -1)
    e = np.asarray(errors, dtype=np.float64).reshape(K, -1)
    if c.shape[1] != a.size:
        c = np.broadcast_to(c, (K, a.size))
        e = np.broadcast_to(e, (K, a.size))
    scale = float(math.factorial(order))
    best_value, best_error = c[order] * scale, e[order] * scale
    n = max(64, 1 << (4 * K - 1).bit_length())                               # samples per circle
    r0 = _first_radius(c, e)                                                 # (P,)
    radii = r0[:, None] * LADDER[None, :]                                    # (P, R)
    w = np.exp(2j * np.pi * np.arange(n) / n)
    z = a[:, None, None] + radii[:, :, None] * w                             # (P, R, n)
    try:
        with warnings.catch_warnings(), np.errstate(all="ignore"):
            warnings.simplefilter("ignore")
            y = f(_wrap(z.reshape(-1)))
            y = np.asarray(getattr(y, "_value", y), dtype=np.complex128)
    except Exception:          # an op without complex support: Taylor mode's result stands
        return best_value, best_error
    if y.shape != (z.size,):
        return best_value, best_error
    y = y.reshape(z.shape)
    finite = np.isfinite(y).all(axis=-1)                                     # (P, R)
    big = np.where(finite, np.abs(y).max(axis=-1), np.inf)                   # max |f| on circle
    F = np.fft.fft(np.where(np.isfinite(y), y, 0), axis=-1)[..., :K] / n    # (P, R, K): c_k r^k
    k = np.arange(K)
    with np.errstate(all="ignore"):
        cc = F / radii[..., None] ** k                                       # (P, R, K)
        # rounding of the sum: eps * max|f| / r^k, times a few for the FFT's own
        rounding = 4 * EPS * big[..., None] / radii[..., None] ** k
        # not real: a cut or a non-holomorphic op on the circle
        unreal = np.abs(cc.imag)
        cr = cc.real
        # agreement with Taylor mode where it is accurate (its relative error below 1e-10)
        trusted = (e.T <= 1e-10 * np.abs(c.T))[:, None, :]                  # (P, 1, K)
        clash = trusted & (np.abs(cr - c.T[:, None, :]) >
                           SAFETY * (rounding + unreal) + 1e-8 * np.abs(c.T[:, None, :]))
        ok = finite & ~clash.any(axis=-1) & (unreal[..., order] <= 1e-6 * np.abs(cr[..., order]))
        top = cr[..., order]                                                 # (P, R)
        # the next radius up checks this one (a radius with no good neighbour is not used)
        step = np.abs(top[:, :-1] - top[:, 1:])
        pair_ok = ok[:, :-1] & ok[:, 1:]
        est = SAFETY * (step + rounding[:, :-1, order] + unreal[:, :-1, order])
        est = np.where(pair_ok & np.isfinite(est), est, np.inf)              # (P, R-1)
    pick = np.argmin(est, axis=1)
    rows = np.arange(a.size)
    value = top[rows, pick] * scale
    error = est[rows, pick] * scale
    better = error < best_error
    return np.where(better, value, best_value), np.where(better, error, best_error)


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
