"""Linear algebra: matmul, einsum, tensordot, inv, det, solve, trace, norm."""
from __future__ import annotations

import numpy as np


from .. import series as S
from ..broadcast import batch_ndim
from ..registry import defop
from ..tensor import convert_to_tensor
from .array import (broadcast_to, getitem, kept_output, reduction_axes, reduce_sum,
                    reshape, scatter_into, spread, transpose, unbroadcast, where)
from .cast import conj, real, real_cotangent
from .compare import equal
from .math import abs as _abs
from .reduce import reduce_max
from .rules import full, out_ndim, plus

__all__ = ["cholesky", "det", "diag_part", "eig", "eigh", "einsum", "inv", "matmul", "norm", "pinv", "solve",
           "svd", "tensordot", "trace"]

_LETTERS = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"


def _swap(x):
    nd = x.ndim
    return transpose(x, tuple(range(nd - 2)) + (nd - 1, nd - 2))


def _adjoint(x):
    """The conjugate transpose of the last two axes (the transpose of a real matrix).

    Gradient rules use it where a real rule transposes: TensorFlow's convention for complex
    numbers conjugates every factor (the gradient of ``a @ b`` for ``a`` is ``g @ b^H``).
    """
    t = _swap(x)
    if t._value.dtype.kind == "c":
        t = conj(t)
    return t


def _left_times_stack(a, g):
    """``a @ g`` for a 2-D ``a`` and a stack ``g`` (..., m, n) as ONE matrix product.

    Computed as (g^T @ a^T)^T with the stack folded into rows, so BLAS sees one large GEMM
    instead of a loop of small ones (the Jacobian sweep's batch axis makes such stacks).
    """
    lead = tuple(g.shape[:-2])
    m, n = g.shape[-2], g.shape[-1]
    nd = g.ndim
    if n == 1:
        rows = reshape(g, (-1, m))
        return reshape(_matmul(rows, _swap(a)), lead + (a.shape[0], 1))
    gt = transpose(g, tuple(range(nd - 2)) + (nd - 1, nd - 2))          # (..., n, m)
    prod = _matmul(reshape(gt, (-1, m)), _swap(a))                       # (L*n, k)
    return _swap(reshape(prod, lead + (n, a.shape[0])))


def _stack_times_right(g, b):
    """``g @ b`` for a stack ``g`` (..., m, n) and a 2-D ``b``, as ONE matrix product."""
    lead = tuple(g.shape[:-1])
    return reshape(_matmul(reshape(g, (-1, g.shape[-1])), b), lead + (b.shape[-1],))


def _matmul_grad(node, g):
    a, b = node.inputs
    nb = batch_ndim(node, g)
    need_a, need_b = node.needs_grad
    ga = gb = None
    if need_a:
        bt = _adjoint(b)
        ga = _stack_times_right(g, bt) if b.ndim == 2 and g.ndim > 2 else _matmul(g, bt)
        ga = unbroadcast(ga, a.shape, nb)
    if need_b:
        at = _adjoint(a)
        gb = _left_times_stack(at, g) if a.ndim == 2 and g.ndim > 2 else _matmul(at, g)
        gb = unbroadcast(gb, b.shape, nb)
    return [ga, gb]


def _matmul_series(node, ins, K):
    (a, b), nd = ins, out_ndim(node)
    x, y = node.inputs
    if a is None:
        return np.matmul(x._value, S.align(b, nd))
    if b is None:
        return np.matmul(S.align(a, nd), y._value)
    a, b = S.align(a, nd), S.align(b, nd)
    out = np.matmul(a[:1], b)                          # shapes; row k: sum_j a_j @ b_{k-j}
    for k in range(K):
        out[k] = sum(np.matmul(a[j], b[k - j]) for j in range(k + 1))
    return out


# bilinear: one term per operand with a tangent
_matmul = defop("MatMul", np.matmul, _matmul_grad,
                jvp=lambda n, ta, tb: plus(None if ta is None else n.op(ta, n.inputs[1]),
                                           None if tb is None else n.op(n.inputs[0], tb)),
                taylor=_matmul_series)


def matmul(a, b, transpose_a=False, transpose_b=False, adjoint_a=False, adjoint_b=False, name=None):
    """Matrix product over the last two axes (batch axes broadcast); 1-D operands as in NumPy."""
    a, b = convert_to_tensor(a), convert_to_tensor(b)
    if a.ndim == 0 or b.ndim == 0:
        raise ValueError(f"matmul: both operands need rank >= 1, got shapes {tuple(a.shape)} and "
                         f"{tuple(b.shape)}; use multiply for scalars")
    if transpose_a or adjoint_a:
        a = _adjoint(a) if adjoint_a else _swap(a)
    if transpose_b or adjoint_b:
        b = _adjoint(b) if adjoint_b else _swap(b)
    squeeze_a = a.ndim == 1
    squeeze_b = b.ndim == 1
    if squeeze_a:
        a = reshape(a, (1, a.shape[0]))
    if squeeze_b:
        b = reshape(b, (b.shape[0], 1))
    if a.shape[-1] != b.shape[-2]:
        raise ValueError(f"matmul: shapes {tuple(a.shape)} and {tuple(b.shape)} are incompatible "
                         f"(inner dimensions {a.shape[-1]} != {b.shape[-2]})")
    out = _matmul(a, b)
    if squeeze_a or squeeze_b:
        shape = tuple(out.shape)
        shape = shape[:-2] + (() if squeeze_a else shape[-2:-1]) + (() if squeeze_b else shape[-1:])
        out = reshape(out, shape)
    return out


# -- einsum --------------------------------------------------------------------------------
def _parse_einsum(subscripts, shapes):
    """Explicit subscripts (no ellipsis, no '->' omitted) for the given operand shapes."""
    spec = subscripts.replace(" ", "")
    if "->" in spec:
        lhs, out = spec.split("->")
    else:
        lhs, out = spec, None
    ins = lhs.split(",")
    if len(ins) != len(shapes):
        raise ValueError(f"einsum: {subscripts!r} names {len(ins)} operands, {len(shapes)} given")
    used = set(c for c in spec if c.isalpha())
    spare = [c for c in _LETTERS if c not in used]
    if "..." in spec:
        ell_nd = max(len(s) - len(i.replace("...", "")) for i, s in zip(ins, shapes) if "..." in i)
        ell = "".join(spare[:ell_nd])
        spare = spare[ell_nd:]
        ins = [i.replace("...", ell[ell_nd - (len(s) - len(i.replace("...", ""))):]) for i, s in
               zip(ins, shapes)]
        if out is not None:
            out = out.replace("...", ell)
    else:
        ell = ""
    if out is None:
        counts = {}
        for c in "".join(ins):
            counts[c] = counts.get(c, 0) + 1
        out = ell + "".join(sorted(c for c, k in counts.items() if k == 1 and c not in ell))
    for i, s in zip(ins, shapes):
        if len(i) != len(s):
            raise ValueError(f"einsum: subscripts {i!r} do not match an operand of shape {tuple(s)}")
    return ins, out, spare


def _einsum_grad(node, g):
    ins, out = node.attrs["inputs"], node.attrs["output"]
    nb = batch_ndim(node, g)
    used = set("".join(ins) + out)
    spare = [c for c in _LETTERS if c not in used]
    batch = "".join(spare[:nb])
    grads = []
    for k, (sub, x) in enumerate(zip(ins, node.inputs)):
        if not node.needs_grad[k]:
            grads.append(None)
            continue
        unique = "".join(dict.fromkeys(sub))          # a repeated index (a diagonal) appears once
        others = [(s, t) for j, (s, t) in enumerate(zip(ins, node.inputs)) if j != k]
        avail = set(out) | set("".join(s for s, _ in others))
        target = "".join(c for c in unique if c in avail)
        subs = [batch + out] + [s for s, _ in others]
        gk = _einsum(g, *[_conj_if_complex(t) for _, t in others], inputs=subs, output=batch + target,
                     spec=",".join(subs) + "->" + batch + target)
        sizes = {c: x.shape[sub.index(c)] for c in unique}
        if target != unique:       # indices summed inside this operand alone: broadcast back
            bshape = tuple(gk.shape[:nb])
            gk = broadcast_to(reshape(gk, bshape + tuple(sizes[c] if c in target else 1 for c in unique)),
                              bshape + tuple(sizes[c] for c in unique))
        if unique != sub:          # scatter onto the diagonal positions of x
            grid = np.indices(tuple(sizes[c] for c in unique), sparse=True)
            key = (slice(None),) * nb + tuple(grid[unique.index(c)] for c in sub)
            gk = scatter_into(gk, shape=tuple(gk.shape[:nb]) + tuple(x.shape), key=key)
        grads.append(gk)
    return grads


def _conj_if_complex(t):
    if t._value.dtype.kind == "c":
        return conj(t)
    return t


def _einsum_jvp(node, *ts):
    out = None
    for k, t in enumerate(ts):            # multilinear: one term per operand with a tangent
        if t is not None:
            args = list(node.inputs)
            args[k] = t
            out = plus(out, node.op(*args, **node.attrs))
    return out


def _einsum_series(node, ins, K):
    live = [k for k, s in enumerate(ins) if s is not None]
    spec, subs = node.attrs["output"], list(node.attrs["inputs"])
    if len(live) == 1:                                  # linear in the one live operand
        letter = next(c for c in _LETTERS[25::-1] + _LETTERS[:25:-1]
                      if c not in node.attrs["spec"])
        subs[live[0]] = letter + subs[live[0]]
        args = [ins[k] if k == live[0] else x._value for k, x in enumerate(node.inputs)]
        return np.einsum(",".join(subs) + "->" + letter + spec, *args)
    # multilinear in the live operands: coefficient k sums the products of coefficients whose
    # orders add up to k (a Cauchy product over several factors)
    args = [x._value for x in node.inputs]
    out = np.zeros((K,) + node.outputs[0]._value.shape, node.outputs[0]._value.dtype)
    equation = ",".join(subs) + "->" + spec
    for orders in _compositions(K - 1, len(live)):
        for k, m in zip(live, orders):
            args[k] = ins[k][m]
        out[sum(orders)] += np.einsum(equation, *args, optimize=len(args) > 2)
    return out


def _compositions(top, parts):
    """Every tuple of ``parts`` non-negative integers with sum at most ``top``."""
    if parts == 1:
        return [(m,) for m in range(top + 1)]
    return [(m,) + rest for m in range(top + 1) for rest in _compositions(top - m, parts - 1)]


_einsum = defop("Einsum", lambda *xs, inputs, output, spec: np.einsum(spec, *xs, optimize=len(xs) > 2),
                _einsum_grad, jvp=_einsum_jvp, taylor=_einsum_series)


def einsum(equation, *inputs, **kwargs):
    """Einstein summation, as ``numpy.einsum`` (gradients for operands without repeated indices)."""
    xs = [convert_to_tensor(x) for x in inputs]
    ins, out, _ = _parse_einsum(equation, [tuple(x.shape) for x in xs])
    spec = ",".join(ins) + "->" + out
    return _einsum(*xs, inputs=ins, output=out, spec=spec)


def tensordot(a, b, axes, name=None):
    """Sum of products over ``axes`` of ``a`` and ``b`` (an int n, or two lists of axes)."""
    a, b = convert_to_tensor(a), convert_to_tensor(b)
    if isinstance(axes, (int, np.integer)):
        n = int(axes)
        ax_a, ax_b = list(range(a.ndim - n, a.ndim)), list(range(n))
    else:
        ax_a, ax_b = axes
        ax_a = [int(i) % a.ndim for i in np.atleast_1d(ax_a)]
        ax_b = [int(i) % b.ndim for i in np.atleast_1d(ax_b)]
    letters = iter(_LETTERS)
    sa = [next(letters) for _ in range(a.ndim)]
    sb = [next(letters) for _ in range(b.ndim)]
    for i, j in zip(ax_a, ax_b):
        if a.shape[i] != b.shape[j]:
            raise ValueError(f"tensordot: axis {i} of shape {tuple(a.shape)} and axis {j} of shape "
                             f"{tuple(b.shape)} differ in length")
        sb[j] = sa[i]
    out = "".join(c for i, c in enumerate(sa) if i not in ax_a) + \
        "".join(c for j, c in enumerate(sb) if j not in ax_b)
    return einsum("".join(sa) + "," + "".join(sb) + "->" + out, a, b)


# -- inverse, determinant, solve -----------------------------------------------------------
def _check_square(x, what):
    if x.ndim < 2 or x.shape[-1] != x.shape[-2]:
        raise ValueError(f"{what}: needs square matrices in the last two axes, got shape {tuple(x.shape)}")


def _inv_np(x):
    try:
        return np.linalg.inv(x)
    except np.linalg.LinAlgError as exc:
        raise ValueError(f"linalg.inv: matrix is not invertible ({exc})") from None


def _inverse_series(a):
    """Y = A^-1 for a series of matrices: Y_0 = inv(A_0), Y_k = -Y_0 sum_{j>=1} A_j Y_{k-j}."""
    y = np.empty(np.broadcast_shapes(a.shape), np.result_type(a, np.float64))
    y[0] = np.linalg.inv(a[0])
    jitter = S.local.jitter
    for k in range(1, len(a)):
        y[k] = -y[0] @ sum(a[j] @ y[k - j] for j in range(1, k + 1))
        if jitter is not None:
            S.jittered(y, k, jitter)
    return y


_inv = defop("MatrixInverse", _inv_np,
             lambda n, g: [-_matmul(_matmul(_adjoint(n.outputs[0]), g), _adjoint(n.outputs[0]))],
             jvp=lambda n, t: None if t is None else -_matmul(_matmul(n.outputs[0], t), n.outputs[0]),
             taylor=lambda n, ins, K: _inverse_series(ins[0]))


def inv(input, adjoint=False, name=None):
    x = convert_to_tensor(input)
    _check_square(x, "linalg.inv")
    out = _inv(x)
    return _adjoint(out) if adjoint else out


def _det_grad(node, g):
    x = node.inputs[0]
    gk = reshape(g * _conj_if_complex(node.outputs[0]), tuple(g.shape) + (1, 1))
    return [gk * _adjoint(inv(x))]


def _det_jvp(node, t):
    if t is None:
        return None
    return node.outputs[0] * reduce_sum(_swap(inv(node.inputs[0])) * t, axis=(-2, -1))


def _det_series(node, ins, K):
    # Gaussian elimination in series arithmetic with partial pivoting on c0: the product of the
    # pivots. (exp of the integral of trace(A^-1 A') is ill-conditioned when det is near 0.)
    a = ins[0]
    n = a.shape[-1]
    flat = a.reshape((K, -1, n, n))
    out = np.empty((K, flat.shape[1]))
    for b in range(flat.shape[1]):
        m = flat[:, b].copy()
        det = S.const(1.0, K)
        for k in range(n):
            p = k + int(np.argmax(np.abs(m[0, k:, k])))
            if p != k:
                m[:, [k, p]] = m[:, [p, k]]
                det = -det
            det = S.mul(det, m[:, k, k])
            if k + 1 < n:
                factor = S.div(m[:, k + 1:, k], m[:, k:k + 1, k])        # (K, rows)
                m[:, k + 1:, k + 1:] -= S.mul(factor[:, :, None], m[:, k:k + 1, k + 1:])
        out[:, b] = det
    return out.reshape((K,) + node.outputs[0]._value.shape)


_det = defop("MatrixDeterminant", np.linalg.det, _det_grad, jvp=_det_jvp, taylor=_det_series)


def det(input, name=None):
    x = convert_to_tensor(input)
    _check_square(x, "linalg.det")
    return _det(x)


def _solve_np(a, b):
    try:
        return np.linalg.solve(a, b)
    except np.linalg.LinAlgError as exc:
        raise ValueError(f"linalg.solve: matrix is singular ({exc})") from None


def _solve_grad(node, g):
    a, b = node.inputs
    nb = batch_ndim(node, g)
    gb = _solve(_adjoint(a), g)
    ga = -_matmul(gb, _adjoint(node.outputs[0])) if node.needs_grad[0] else None
    return [unbroadcast(ga, a.shape, nb) if ga is not None else None, unbroadcast(gb, b.shape, nb)]


def _solve_jvp(node, ta, tb):
    a, x = node.inputs[0], node.outputs[0]
    rhs = plus(tb, None if ta is None else -_matmul(ta, x))
    return None if rhs is None else node.op(a, rhs)


def _solve_series(node, ins, K):
    nd = out_ndim(node)
    a = S.align(full(ins[0], node.inputs[0], K), nd)
    b = S.align(full(ins[1], node.inputs[1], K), nd)
    x = np.empty((K,) + node.outputs[0]._value.shape)
    jitter = S.local.jitter
    for k in range(K):                    # A_0 X_k = B_k - sum_{j>=1} A_j X_{k-j}
        rhs = b[k] - sum((a[j] @ x[k - j] for j in range(1, k + 1)), np.zeros_like(x[0]))
        x[k] = np.linalg.solve(a[0], rhs)
        if jitter is not None and k:
            S.jittered(x, k, jitter)
    return x


_solve = defop("MatrixSolve", _solve_np, _solve_grad, jvp=_solve_jvp, taylor=_solve_series)


def solve(matrix, rhs, adjoint=False, name=None):
    """``x`` with ``matrix @ x = rhs`` (rhs of shape [..., n, k])."""
    a, b = convert_to_tensor(matrix), convert_to_tensor(rhs)
    _check_square(a, "linalg.solve")
    if b.ndim < 2 or b.shape[-2] != a.shape[-1]:
        raise ValueError(f"linalg.solve: rhs of shape {tuple(b.shape)} does not fit a matrix of "
                         f"shape {tuple(a.shape)} (rhs needs shape [..., {a.shape[-1]}, k])")
    if adjoint:
        a = _adjoint(a)
    return _solve(a, b)


def trace(x, name=None):
    """Sum of the main diagonal over the last two axes."""
    x = convert_to_tensor(x)
    if x.ndim < 2:
        raise ValueError(f"linalg.trace: needs rank >= 2, got shape {tuple(x.shape)}")
    k = min(x.shape[-1], x.shape[-2])
    idx = np.arange(k)
    return reduce_sum(getitem(x, (Ellipsis, idx, idx)), axis=-1)


def diag_part(x):
    x = convert_to_tensor(x)
    k = min(x.shape[-1], x.shape[-2])
    idx = np.arange(k)
    return getitem(x, (Ellipsis, idx, idx))


def _norm_grad(node, g):
    # The Euclidean norm's gradient x / |x| is taken as 0 at x = 0 (a subgradient), not NaN.
    x = node.inputs[0]
    n = kept_output(node, g)
    return [spread(node, real_cotangent(g)) * x / where(equal(n, 0), 1, n)]


def _norm_jvp(node, t):
    if t is None:
        return None
    n, x = node.outputs[0], node.inputs[0]
    axis, keepdims = node.attrs["axis"], node.attrs["keepdims"]
    if x._value.dtype.kind == "c" or t._value.dtype.kind == "c":    # d|x| = Re(sum(conj(x) dx)) / |x|
        return reduce_sum(real(conj(x) * t), axis, keepdims) / where(equal(n, 0), 1, n)
    return reduce_sum(x * t, axis, keepdims) / where(equal(n, 0), 1, n)


_norm2 = defop("EuclideanNorm", lambda x, axis, keepdims: np.sqrt(np.sum(
    np.square(np.abs(x)), axis=axis, keepdims=keepdims)), _norm_grad, jvp=_norm_jvp,
    taylor=lambda n, ins, K: S.pow_scalar(np.sum(
        S.mul(ins[0], ins[0]), axis=S.value_axes(n.attrs["axis"], n.inputs[0].ndim),
        keepdims=n.attrs["keepdims"]), 0.5))


def norm(tensor, ord="euclidean", axis=None, keepdims=None, name=None):
    """Vector or Frobenius norm (``ord`` 'euclidean'/'fro'/2, 1 or inf) over ``axis``."""
    x = convert_to_tensor(tensor)
    keep = bool(keepdims)
    axes = reduction_axes(axis, x.ndim, "linalg.norm")
    if ord in ("euclidean", "fro", 2, 2.0, None):
        return _norm2(x, axis=axes, keepdims=keep)
    if ord in (1, 1.0):
        return reduce_sum(_abs(x), axis=axes, keepdims=keep)
    if ord in (np.inf, "inf"):
        return reduce_max(_abs(x), axis=axes, keepdims=keep)
    raise ValueError(f"linalg.norm: ord {ord!r} is not supported; use 'euclidean', 'fro', 1, 2 or inf")



# -- decompositions --------------------------------------------------------------------------
# Their gradient rules are written with the ops above, so that nested tapes differentiate them
# again. Taylor mode follows one output per op: the two with several outputs (eigh, svd) say so.
def _no_series(what):
    def rule(node, ins, K):
        raise LookupError(f"Taylor mode (tape.derivative) has no rule for the op {node.op.name!r} "
                          f"({what} has several outputs): take its higher derivatives with nested "
                          f"GradientTapes")
    return rule


def _mH(a):
    """The conjugate transpose of the last two axes of a NumPy array."""
    return np.conj(np.swapaxes(a, -1, -2))


def _cholesky_series(node, ins, K):
    # A_k = sum_j L_j L_{k-j}^H: L_0 L_k^H + L_k L_0^H = B_k (the rest of the sum), solved by
    # L_k = L_0 phi(L_0^-1 B_k L_0^-H), phi keeping the lower triangle and half the diagonal
    a = ins[0]
    l0 = node.outputs[0]._value
    n = l0.shape[-1]
    phi = np.tril(np.ones((n, n))) - 0.5 * np.eye(n)
    out = np.zeros((K,) + l0.shape, np.result_type(l0, a))
    out[0] = l0
    jitter = S.local.jitter
    for k in range(1, K):
        b = a[k] - sum((out[j] @ _mH(out[k - j]) for j in range(1, k)), np.zeros_like(l0))
        m = np.linalg.solve(l0, _mH(np.linalg.solve(l0, _mH(b))))
        out[k] = l0 @ (m * phi)
        if jitter is not None:
            S.jittered(out, k, jitter)
    return out


def _solve_series_arrays(g, r, K):
    """X with G X = R for series G and R (G_0 invertible)."""
    x = np.zeros((K,) + np.linalg.solve(g[0], r[0]).shape, np.result_type(g, r))
    for k in range(K):
        rhs = r[k] - sum((g[j] @ x[k - j] for j in range(1, k + 1)), np.zeros_like(x[0]))
        x[k] = np.linalg.solve(g[0], rhs)
    return x


def _pinv_series(node, ins, K):
    # of full rank: pinv A = (A^H A)^-1 A^H (tall) or A^H (A A^H)^-1 (wide)
    a = ins[0]
    a0 = node.inputs[0]._value
    m, n = a0.shape[-2:]
    if np.any(np.linalg.matrix_rank(a0) < min(m, n)):
        raise LookupError("Taylor mode (tape.derivative) of Pinv needs a matrix of full rank; "
                          "take higher derivatives with nested GradientTapes")
    ah = _mH(a)
    if m >= n:
        return _solve_series_arrays(_matmul_series_arrays(ah, a), ah, K)
    return _mH(_solve_series_arrays(_matmul_series_arrays(a, ah), a, K))


def _matmul_series_arrays(a, b):
    K = a.shape[0]
    out = np.zeros((K,) + np.matmul(a[0], b[0]).shape, np.result_type(a, b))
    for k in range(K):
        for j in range(k + 1):
            out[k] += a[j] @ b[k - j]
    return out
def _mT(x):
    return _swap(x)


def _safe_reciprocal_gaps(w):
    """``F[..., i, j] = 1 / (w_j - w_i)`` off the diagonal, 0 where two values coincide (their
    eigenvectors' directions are not defined; a cotangent that reads none of them gives 0)."""
    gaps = w[..., None, :] - w[..., :, None]
    same = np.asarray(equal(gaps, 0)._value)
    return where(same, 0.0, 1.0 / where(same, 1.0, gaps))


def _cholesky_np(a):
    try:
        return np.linalg.cholesky(a)
    except np.linalg.LinAlgError as exc:
        raise ValueError(f"linalg.cholesky: matrix is not positive definite ({exc})") from None


def _cholesky_grad(node, g):
    # Murray (2016): S = L^-T phi(L^T G) L^-1, symmetrised; phi keeps the lower triangle and
    # halves the diagonal
    L = node.outputs[0]
    n = L.shape[-1]
    phi = np.tril(np.ones((n, n))) - 0.5 * np.eye(n)
    P = _matmul(_adjoint(L), g) * phi
    Lh = _adjoint(L)
    S = _adjoint(_solve(Lh, _adjoint(_solve(Lh, P))))
    return [(S + _adjoint(S)) * 0.5]


_cholesky = defop("Cholesky", _cholesky_np, _cholesky_grad, taylor=_cholesky_series)


def cholesky(input, name=None):
    """The lower-triangular ``L`` with ``L @ L^H = input`` (its lower triangle is read)."""
    x = convert_to_tensor(input)
    _check_square(x, "linalg.cholesky")
    return _cholesky(x)


def _eigh_grad(node, gw, gv):
    w, v = node.outputs
    x = node.inputs[0]
    n = x.shape[-1]
    vh = _adjoint(v)
    inner = reshape(gw, tuple(gw.shape) + (1,)) * np.eye(n)
    inner = inner + _safe_reciprocal_gaps(w) * _matmul(vh, gv)
    full_ = _matmul(_matmul(v, inner), vh)
    # eigh reads one triangle: the other gets no gradient
    lower = node.attrs["UPLO"] == "L"
    tri = np.tril(np.ones((n, n)), -1) if lower else np.triu(np.ones((n, n)), 1)
    # (the diagonal's imaginary part is not read: a real gradient there)
    return [real(full_) * np.eye(n) + (full_ + _adjoint(full_)) * tri]


_eigh = defop("SelfAdjointEigV2", lambda a, UPLO: np.linalg.eigh(a, UPLO), _eigh_grad, many=True,
              taylor=_no_series("eigh"))


def eigh(tensor, UPLO="L", name=None):
    """Eigenvalues (ascending) and eigenvectors of a symmetric (Hermitian) matrix, read from its
    lower (``UPLO='L'``) or upper triangle."""
    x = convert_to_tensor(tensor)
    _check_square(x, "linalg.eigh")
    if UPLO not in ("L", "U"):
        raise ValueError(f"linalg.eigh: UPLO must be 'L' or 'U', got {UPLO!r}")
    return tuple(_eigh(x, UPLO=UPLO))


def _svd_grad(node, gu, gs, gvh):
    # reduced SVD a = u diag(s) vh (Townsend 2016), real or complex
    u, s, vh = node.outputs
    a = node.inputs[0]
    m, n = a.shape[-2:]
    k = min(m, n)
    v, gv = _adjoint(vh), _adjoint(gvh)
    eye = np.eye(k)
    s2 = s * s
    f = _safe_reciprocal_gaps(s2)               # 1 / (s_j^2 - s_i^2)
    uh_gu = _matmul(_adjoint(u), gu)
    vh_gv = _matmul(_adjoint(v), gv)
    s_row = reshape(s, tuple(s.shape[:-1]) + (1, k))
    s_col = reshape(s, tuple(s.shape[:-1]) + (k, 1))
    mid = (f * (uh_gu - _adjoint(uh_gu))) * s_row
    mid = mid + eye * reshape(gs, tuple(gs.shape) + (1,))
    mid = mid + s_col * (f * (vh_gv - _adjoint(vh_gv)))
    if a._value.dtype.kind == "c":
        mid = mid + (uh_gu * eye - _adjoint(uh_gu * eye)) * 0.5 / s_row
    out = _matmul(_matmul(u, mid), vh)
    if m > n:
        rest = np.eye(m) - _matmul(u, _adjoint(u))
        out = out + _matmul(rest, _matmul(gu / s_row, vh))
    elif m < n:
        rest = np.eye(n) - _matmul(v, vh)
        out = out + _matmul(_matmul(u / s_row, _adjoint(gv)), rest)
    return [out]


_svd = defop("Svd", lambda a: np.linalg.svd(a, full_matrices=False), _svd_grad, many=True,
             taylor=_no_series("svd"))


def svd(tensor, name=None):
    """The reduced singular value decomposition ``(u, s, vh)`` with ``a = u diag(s) vh``."""
    x = convert_to_tensor(tensor)
    if x.ndim < 2:
        raise ValueError(f"linalg.svd: needs rank >= 2, got shape {tuple(x.shape)}")
    return tuple(_svd(x))


def _pinv_grad(node, g):
    # the derivative of the pseudo-inverse where the rank does not change (Golub & Pereyra)
    p, a = node.outputs[0], node.inputs[0]
    m, n = a.shape[-2:]
    ph, gh = _adjoint(p), _adjoint(g)
    out = -_matmul(_matmul(ph, g), ph)
    out = out + _matmul(_matmul(_matmul(np.eye(m) - _matmul(a, p), gh), p), ph)
    out = out + _matmul(_matmul(ph, p), _matmul(gh, np.eye(n) - _matmul(p, a)))
    return [out]


_pinv = defop("Pinv", lambda a, rcond: np.linalg.pinv(a, rcond=rcond), _pinv_grad,
              taylor=_pinv_series)


def pinv(a, rcond=None, name=None):
    """The Moore-Penrose pseudo-inverse (singular values below ``rcond`` times the largest are
    taken as zero; NumPy's default)."""
    x = convert_to_tensor(a)
    if x.ndim < 2:
        raise ValueError(f"linalg.pinv: needs rank >= 2, got shape {tuple(x.shape)}")
    if rcond is None:
        rcond = max(x.shape[-2:]) * np.finfo(x._value.dtype).eps
    return _pinv(x, rcond=float(rcond))


def _eig_grad(node, ge, gv):
    # A = V diag(e) V^-1 with unit columns in V: the eigenvector part takes out the change of
    # each column's length (NumPy normalises them), as TensorFlow's rule does
    e, v = node.outputs
    x = node.inputs[0]
    n = x.shape[-1]
    vh = _adjoint(v)
    f = _safe_reciprocal_gaps(e)
    f = conj(f) if f._value.dtype.kind == "c" else f
    vgv = _matmul(vh, gv)
    lengths = real(vgv) * np.eye(n)
    mid = reshape(ge, tuple(ge.shape) + (1,)) * np.eye(n) + f * (vgv - _matmul(_matmul(vh, v), lengths))
    grad = _solve(vh, _matmul(mid, vh))
    return [grad if x._value.dtype.kind == "c" else real(grad)]


_eig = defop("Eig", lambda a: tuple(np.linalg.eig(a)), _eig_grad, many=True,
             taylor=_no_series("eig"))


def eig(tensor, name=None):
    """Eigenvalues and (unit) eigenvectors of a square matrix; complex where NumPy's are."""
    x = convert_to_tensor(tensor)
    _check_square(x, "linalg.eig")
    return tuple(_eig(x))
