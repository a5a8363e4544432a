"""Every distinct N-th order partial derivative from univariate Taylor series.

A function of n variables has C(n+N-1, N) distinct partials of order N. They follow from the
N-th Taylor coefficient of ``t -> f(x + t j)`` along the C(n+N-1, N) integer directions j with
|j| = N, combined by a fixed linear map (Griewank, Utke and Walther, "Evaluating higher
derivative tensors by forward propagation of univariate Taylor series", Math. Comp. 69 (2000);
Griewank and Walther, "Evaluating Derivatives", 2nd ed., ch. 13):

    d^i f(x) = sum_{|j|=N} gamma_ij * y_j,      y_j = [t^N] f(x + t j).

All directions form one batch, so the engine's Taylor mode runs them in one vectorized pass
(``partials_up_to`` puts the directions of every order 0..N into that one batch).

The coefficients are exact rationals, rounded once to float64. Expanding the binomials of the
paper's formula into Stirling numbers of the first kind ``s(a, b)`` and summing its alternating
sum over ``k <= i`` in closed form gives the integer expression used here (d = N, |i| = d):

    gamma_ij = sum_{p <= min(i, j)} d^|p| (d - |p|)! * prod_l s(j_l, p_l) * i_l! / (i_l - p_l)!
               / (d^d * prod_l j_l!)

gamma_ij vanishes unless supp(j) is within supp(i), and it only depends on the exponents inside
the support, so the map is stored as one dense block per support size s: rows the compositions
of N into s positive parts, columns every exponent vector on s variables. A block is computed
once per (s, N) from the partitions of N (permuting variables permutes rows and columns alike).
"""
from __future__ import annotations

import functools
import itertools
import math

import numpy as np

from .taylor import EPS, error_from_deltas, perturbed_coefficients

#: partial counts up to this are allowed; beyond it the direction batch alone needs gigabytes
MAX_PARTIALS = 200_000


def multi_indices(n_variables: int, order: int) -> list[tuple[int, ...]]:
    """The distinct partials of order ``order`` as sorted variable-index tuples, lexicographic:
    ``(0, 0), (0, 1), (1, 1)`` for two variables at order 2. ``partials`` returns them in this
    order."""
    return list(itertools.combinations_with_replacement(range(n_variables), order))


def partial_count(n_variables: int, order: int) -> int:
    """C(n + N - 1, N): the number of distinct partials of order N of n variables."""
    return math.comb(n_variables + order - 1, order)


# -- exact coefficients -------------------------------------------------------------------------
@functools.lru_cache(maxsize=None)
def _stirling1(d: int) -> tuple[tuple[int, ...], ...]:
    """Signed Stirling numbers of the first kind s(a, b), 0 <= a, b <= d."""
    s = [[0] * (d + 1) for _ in range(d + 1)]
    s[0][0] = 1
    for a in range(1, d + 1):
        for b in range(1, a + 1):
            s[a][b] = s[a - 1][b - 1] - (a - 1) * s[a - 1][b]
    return tuple(map(tuple, s))


def _exponents(s: int, d: int) -> np.ndarray:
    """Every exponent vector on s variables with sum d, in multiset order, shape (count, s)."""
    out = np.zeros((math.comb(s + d - 1, d), s), np.int64)
    for row, combo in enumerate(itertools.combinations_with_replacement(range(s), d)):
        for v in combo:
            out[row, v] += 1
    return out


def _codes(exponents: np.ndarray, d: int, columns: np.ndarray | None = None) -> np.ndarray:
    """A distinct integer per exponent vector of sum ``d``, for lookups: the rank of its multiset
    of variable indices in colexicographic order (combinatorial number system), so every code is
    below C(n+d-1, d), the number of such vectors, and fits in int64 whenever they can be
    listed at all (a mixed-radix code (d+1)^n overflows from n = 32 at d = 3).

    ``exponents`` is (count, s); with ``columns`` (S, s), increasing variable indices, the codes
    are those of each row placed on each of the S supports instead, shape (S, count)."""
    count, s = exponents.shape
    # each row as its sorted variable indices (count, d); rows sum to d
    local = np.repeat(np.tile(np.arange(s), count), exponents.ravel()).reshape(count, d)
    indices = local if columns is None else columns[:, local]
    n = s if columns is None else int(columns.max(initial=0)) + 1
    return _colex_binomials(n, d)[indices + np.arange(d), np.arange(1, d + 1)].sum(axis=-1)


@functools.lru_cache(maxsize=32)
def _colex_binomials(n: int, d: int) -> np.ndarray:
    """C(c, k) for c < n + d, k <= d, as int64 (every one used is below C(n+d-1, d))."""
    if math.comb(n + d - 1, d) >= 2 ** 63:
        raise ValueError(f"{math.comb(n + d - 1, d)} partials of order {d} in {n} variables "
                         f"are more than can be listed")
    table = np.array([[math.comb(c, k) if math.comb(c, k) < 2 ** 63 else -1
                       for k in range(d + 1)] for c in range(n + d)], dtype=np.int64)
    table.setflags(write=False)
    return table


def _positions(codes: np.ndarray) -> np.ndarray:
    """The inverse of the permutation ``codes`` of 0..len-1: row of each code."""
    where = np.empty(len(codes), np.int64)
    where[codes] = np.arange(len(codes))
    return where


def _exact_row(i: tuple[int, ...], J: np.ndarray, denominator: np.ndarray, d: int) -> np.ndarray:
    """gamma_ij for one composition i (all parts >= 1) over the exponent vectors J, as float64
    (each the correctly rounded value of an exact rational); ``denominator``: d^d j! per j."""
    # |partial sums| <= prod_l j_l! i_l! <= (d!)^2: int64 holds them up to d = 12
    dtype = np.int64 if math.factorial(d) ** 2 < 2 ** 63 else object
    stirling = np.array(_stirling1(d), dtype=dtype)
    acc = np.zeros((d + 1, len(J)), dtype)
    acc[0] = 1
    degree = 0
    for l, il in enumerate(i):                   # multiply by sum_p s(j_l, p) i_l!/(i_l-p)! z^p
        nxt = np.zeros_like(acc)
        column = stirling[J[:, l]]               # (count, d+1): s(j_l, p)
        for p in range(il + 1):
            weight = column[:, p] * (math.factorial(il) // math.factorial(il - p))
            nxt[p:degree + p + 1] += acc[:degree + 1] * weight
        acc, degree = nxt, degree + il
    numerator = sum(acc[r].astype(object) * (d ** r * math.factorial(d - r)) for r in range(d + 1))
    return (numerator / denominator).astype(np.float64)       # int / int: correctly rounded


@functools.lru_cache(maxsize=None)
def _block(s: int, d: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(compositions (m, s), exponents J (c, s), gamma (m, c)) for support size s, order d."""
    J = _exponents(s, d)
    row_of = _positions(_codes(J, d))
    compositions = J[(J > 0).all(axis=1)]
    factorials = [math.factorial(k) for k in range(d + 1)]
    denominator = np.array([d ** d * math.prod(factorials[e] for e in row) for row in J.tolist()],
                           dtype=object)
    rows = {}
    gamma = np.empty((len(compositions), len(J)))
    for r, c in enumerate(compositions):
        perm = np.argsort(-c, kind="stable")      # c[perm] is the partition, non-increasing
        partition = tuple(int(v) for v in c[perm])
        if partition not in rows:
            rows[partition] = _exact_row(partition, J, denominator, d)
        # gamma_{c, j} = gamma_{partition, j[perm]}
        where = row_of[_codes(J[:, perm], d)]
        gamma[r] = rows[partition][where]
    for a in (J, compositions, gamma):
        a.setflags(write=False)
    return compositions, J, gamma


@functools.lru_cache(maxsize=32)
def _plan(n: int, d: int):
    """Directions (D, n) and, per support size, (direction columns, partial rows, gamma)."""
    directions = _exponents(n, d)
    row_of = _positions(_codes(directions, d))
    steps = []
    for s in range(1, min(n, d) + 1):
        compositions, J, gamma = _block(s, d)
        supports = np.array(list(itertools.combinations(range(n), s)), np.int64)   # (S, s)
        steps.append((row_of[_codes(J, d, supports)], row_of[_codes(compositions, d, supports)],
                      gamma.T.copy()))
    directions = directions.astype(np.float64)
    directions.setflags(write=False)
    return directions, steps


# -- the derivatives ------------------------------------------------------------------------------
def partials(f, x, order, *, return_error=False):
    """Every distinct partial derivative of order ``order`` of ``f`` at ``x``.

    ``f(*xs)`` takes one tensor per variable and must act pointwise: each ``xs[l]`` has shape
    ``(B,)`` (B points) and ``f`` returns shape ``(B,)`` (or a scalar constant). ``x`` is one
    point, shape ``(n,)``, or a batch of points, shape ``(P, n)``. Returns a float64 array of
    shape ``(C(n+order-1, order),)``, or ``(P, C(n+order-1, order))`` for a batch, the partials
    in ``multi_indices(n, order)`` order: lexicographic sorted variable-index tuples (x,x ; x,y ;
    y,y for order 2), each distinct partial once.

    All of them come from one Taylor-mode pass over C(n+order-1, order) directions per point,
    combined with exact rational coefficients (see the module docstring). Order 0 gives the
    value, order 1 the gradient. Each variable's direction is scaled by a power of two chosen
    from the growth of f's coefficients along it (a short first pass along the axes), so that
    variables of different scales (exp(30x + y)) do not cancel in the combination.

    With ``return_error=True`` the result is ``(partials, errors)``, ``errors`` of the same
    shape estimating each partial's absolute rounding error (the Taylor pass's replays, see
    ``tape.derivative``, plus the combination's own rounding); ``tape.engine.taylor.inaccurate``
    flags those above 1e-8 relative.

    Examples
    --------
    >>> tape.partials(lambda x, y: x ** 2 * y, [3.0, 2.0], order=2)      # xx, xy, yy
    array([4., 6., 0.])
    """
    got = _evaluate(f, x, order, [order], "partials", return_error)
    return (got[0][0], got[1][0]) if return_error else got[0][0]


def partials_up_to(f, x, order, *, return_error=False):
    """Every distinct partial of every order from 0 to ``order``: a list whose entry k is what
    ``partials(f, x, k)`` returns (entry 0 the value, 1 the gradient, 2 the Hessian's upper
    triangle, ...), all from ONE Taylor-mode pass over the directions of every order. With
    ``return_error=True``: ``(values, errors)``, two such lists.

    Examples
    --------
    >>> value, gradient, second = tape.partials_up_to(lambda x, y: x ** 2 * y, [3.0, 2.0], 2)
    >>> gradient, second
    (array([12.,  9.]), array([4., 6., 0.]))
    """
    orders = list(range(order + 1)) if isinstance(order, (int, np.integer)) and order > 0 else [0]
    got = _evaluate(f, x, order, orders, "partials_up_to", return_error)
    return got if return_error else got[0]


def _evaluate(f, x, order, orders, what, return_error=False):
    """The partials of each order in ``orders`` (each <= ``order``), from one Taylor pass."""
    if isinstance(order, bool) or not isinstance(order, (int, np.integer)):
        raise TypeError(f"{what}: order must be a non-negative integer, got {order!r}")
    if order < 0:
        raise ValueError(f"{what}: order must be a non-negative integer, got {order}")
    order = int(order)
    points = np.asarray(x, dtype=np.float64)
    single = points.ndim == 1
    if points.ndim not in (1, 2) or points.shape[-1] == 0:
        raise ValueError(f"{what}: x must have shape (n,) for one point or (P, n) for P points "
                         f"with n >= 1 variables, got shape {points.shape}")
    points = np.atleast_2d(points)
    n_points, n = points.shape
    count = sum(partial_count(n, e) for e in orders)
    if count > MAX_PARTIALS:
        raise ValueError(f"{what}: {n} variables at order {order} have {count} distinct partials; "
                         f"the limit is {MAX_PARTIALS}")
    plans = [(np.zeros((1, n)), []) if e == 0 else _plan(n, e) for e in orders]
    directions = np.concatenate([d for d, _ in plans])
    n_dir = len(directions)

    def restricted_to(base, along):
        def restricted(t):
            y = f(*[t * along[:, l] + base[:, l] for l in range(n)])
            shape = tuple(y.shape) if hasattr(y, "shape") else ()
            if shape not in ((), (len(base),)):
                raise ValueError(f"{what}: f must return one value per point (shape "
                                 f"({len(base)},) for {len(base)} points, or a scalar), got "
                                 f"shape {shape}")
            return y
        return restricted

    # log2 of each point's scale per variable (P, n): 0 unless mixed partials are combined
    log_scales = np.zeros((n_points, n))
    if n > 1 and order > 1:
        log_scales = _log2_scales(restricted_to, points, order)
    base = np.repeat(points, n_dir, axis=0)                                 # (P*D, n)
    along = np.tile(directions, (n_points, 1)) * np.exp2(np.repeat(log_scales, n_dir, axis=0))
    series, deltas = perturbed_coefficients(restricted_to(base, along), np.zeros(len(base)),
                                            order, lanes=2 if return_error else 0)

    def per_direction(s):                                      # (K, P, D), real
        s = np.real(s).reshape(order + 1, -1)                  # (K, 1) for a constant f
        return np.broadcast_to(s, (order + 1, len(base))).reshape(order + 1, n_points, n_dir)
    series = per_direction(series)
    deltas = [per_direction(d) for d in deltas]
    results, errors, start = [], [], 0
    for e, (dirs, steps) in zip(orders, plans):
        columns_of = slice(start, start + len(dirs))
        start += len(dirs)
        top = series[e][:, columns_of]                         # [t^e] along this order's directions
        # the partials of the scaled variables u_l = x_l / s_l are s^i times those of x
        unscale = np.exp2(-(log_scales @ dirs.T)) if e else 1.0     # (P, D): exact, powers of 2
        out = _combine(top, dirs, steps, e) * unscale
        results.append(out[0] if single else out)
        if return_error:
            err = _combine_error(top, [d[e][:, columns_of] for d in deltas], steps, e)
            err = err * unscale
            errors.append(err[0] if single else err)
    return (results, errors) if return_error else (results,)


def _combine(top, dirs, steps, e):
    """The partials of order e (P, D) from the coefficients [t^e] along its directions."""
    if e == 0:
        return top.copy()
    out = np.empty((top.shape[0], len(dirs)))
    for columns, rows, gamma in steps:           # one dense product per support size
        out[:, rows] = top[:, columns] @ gamma
    return out


def _combine_error(top, deltas, steps, e):
    """Estimated absolute error of the combined partials: each direction's estimated error
    (from the replays' ``deltas``) carried through the combination as independent errors
    are, the square root of the sum of the squares of the coefficients times the errors
    (the roundings of different directions are different roundings; combining the replays'
    signed differences instead, one draw of them, underestimated one partial in 500 of the
    mpmath test by 4x, and adding their magnitudes overestimated the errors of issue 38's
    tenth-order partials 50 times), and the combination's own rounding, eps times the
    magnitudes it adds times the terms added."""
    size = np.abs(top)
    each = error_from_deltas(np.zeros_like(top), deltas)          # per direction, (P, D)
    if e == 0:
        return EPS * size + each
    out = np.empty(top.shape)
    for columns, rows, gamma in steps:
        g = np.abs(gamma)
        out[:, rows] = (size[:, columns] @ g) * (len(columns) * EPS) + \
            np.sqrt(np.square(each[:, columns]) @ np.square(g))
    return out


def _log2_scales(restricted_to, points, order):
    """For each point and variable, log2 of the scale s_l that evens out the growth of f's
    Taylor coefficients along the axes: with rho_l = max_k |c_k|^(1/k) along axis l over the
    upper half of the orders (k = ceil(order/2)..order), s_l is the power of two nearest
    rho_max / rho_l (at most 2^60). The directions of the combination are then about equally
    steep, and its alternating sum does not cancel the large coefficients of one variable
    against the small ones of another (exp(30x+y) at order 10 lost 3 digits of its mixed
    partials without it). Only the high orders say how steep the order-N coefficients are:
    the gradient's size says nothing of them (sin(ab + cd + ef) exp(a + ... + f)/(1 + a^2) at
    0.1..0.6 has its largest first coefficients along e and f, its largest tenth along a, and
    scaled by its first ones lost 100 times the digits at order 10). A variable f does not
    depend on keeps scale 1; scales are powers of two, so they round nothing."""
    n_points, n = points.shape
    base = np.repeat(points, n, axis=0)                                # (P*n, n)
    along = np.tile(np.eye(n), (n_points, 1))
    c, _ = perturbed_coefficients(restricted_to(base, along), np.zeros(len(base)), order)
    c = np.abs(np.real(c)).reshape(order + 1, -1)
    first = (order + 1) // 2
    c = np.broadcast_to(c, (order + 1, len(base)))[first:]             # (orders, P*n)
    k = np.arange(first, order + 1, dtype=np.float64)[:, None]
    with np.errstate(divide="ignore", invalid="ignore"):
        log_rho = np.where((c > 0) & np.isfinite(c), np.log2(c) / k, -np.inf).max(axis=0)
    log_rho = log_rho.reshape(n_points, n)
    known = np.isfinite(log_rho)
    top = np.where(known, log_rho, -np.inf).max(axis=1, keepdims=True)  # the steepest variable
    log_s = np.where(known, np.round(np.where(known, top, 0.0) - np.where(known, log_rho, 0.0)),
                     0.0)
    return np.clip(log_s, 0, 60)
