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

from .taylor import taylor_coefficients

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
def partials(f, x, order):
    """Every distinct partial derivative of order ``order`` of ``f`` at ``x``.

    ``f(*xs)`` takes one tensor per variable and must act pointwise: each ``xs[l]`` has shape
    ``(B,)`` (B points) and ``f`` returns shape ``(B,)`` (or a scalar constant). ``x`` is one
    point, shape ``(n,)``, or a batch of points, shape ``(P, n)``. Returns a float64 array of
    shape ``(C(n+order-1, order),)``, or ``(P, C(n+order-1, order))`` for a batch, the partials
    in ``multi_indices(n, order)`` order: lexicographic sorted variable-index tuples (x,x ; x,y ;
    y,y for order 2), each distinct partial once.

    All of them come from one Taylor-mode pass over C(n+order-1, order) directions per point,
    combined with exact rational coefficients (see the module docstring). Order 0 gives the
    value, order 1 the gradient.

    Examples
    --------
    >>> tape.partials(lambda x, y: x ** 2 * y, [3.0, 2.0], order=2)      # xx, xy, yy
    array([4., 6., 0.])
    """
    return _evaluate(f, x, order, [order], "partials")[0]


def partials_up_to(f, x, order):
    """Every distinct partial of every order from 0 to ``order``: a list whose entry k is what
    ``partials(f, x, k)`` returns (entry 0 the value, 1 the gradient, 2 the Hessian's upper
    triangle, ...), all from ONE Taylor-mode pass over the directions of every order.

    Examples
    --------
    >>> value, gradient, second = tape.partials_up_to(lambda x, y: x ** 2 * y, [3.0, 2.0], 2)
    >>> gradient, second
    (array([12.,  9.]), array([4., 6., 0.]))
    """
    orders = list(range(order + 1)) if isinstance(order, (int, np.integer)) and order > 0 else [0]
    return _evaluate(f, x, order, orders, "partials_up_to")


def _evaluate(f, x, order, orders, what):
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
    base = np.repeat(points, n_dir, axis=0)                        # (P*D, n)
    along = np.tile(directions, (n_points, 1))                     # (P*D, n)

    def restricted(t):
        y = f(*[t * along[:, l] + base[:, l] for l in range(n)])
        shape = tuple(y.shape) if hasattr(y, "shape") else ()
        if shape not in ((), (len(base),)):
            raise ValueError(f"{what}: f must return one value per point (shape ({len(base)},) "
                             f"for {len(base)} points, or a scalar), got shape {shape}")
        return y
    series = taylor_coefficients(restricted, np.zeros(len(base)), order)
    series = np.real(series).reshape(order + 1, -1)                # (K, 1) for a constant f
    series = np.broadcast_to(series, (order + 1, len(base))).reshape(order + 1, n_points, n_dir)
    results, start = [], 0
    for e, (dirs, steps) in zip(orders, plans):
        top = series[e][:, start:start + len(dirs)]                # [t^e] along this order's directions
        start += len(dirs)
        if e == 0:
            out = top.copy()
        else:
            out = np.empty((n_points, len(dirs)))
            for columns, rows, gamma in steps:       # one dense product per support size
                out[:, rows] = top[:, columns] @ gamma
        results.append(out[0] if single else out)
    return results
