"""Forward mode: ``ForwardAccumulator`` and the JVP rule of each primitive.

An active accumulator is offered every op application after the tapes (registry.record). If an
input carries a tangent, the op's JVP rule computes the output tangents with the engine's own
ops, so an outer GradientTape records them (reverse-over-forward) and ops run by a backward sweep
inside the accumulator get tangents too (forward-over-reverse: Hessian-vector products).

Rules live in ``_JVP`` keyed by op name: ``rule(node, *input_tangents) -> output tangent``
(a list for multi-output ops); a missing input tangent is ``None`` (zero). Linear ops apply
themselves to the tangent. An op without a rule falls back to the "double VJP" trick: its
gradient rule is linear in the cotangent ``u``, so ``J t = d/du <J^T u, t>`` -- exact, slower.

Complex numbers: tangents are pushed forward unconjugated (``f'(z) t`` for a holomorphic f),
while gradient rules follow TensorFlow's convention (the transpose of the real Jacobian,
``g * conj(f'(z))``). The two meet in ``Re <J^T u, t> = Re <u, J t>`` with the Hermitian
``<a, b> = sum(conj(a) * b)``; rules borrowed from the reverse mode conjugate accordingly.
"""
from __future__ import annotations

import numpy as np

from . import nest
from .registry import active_accumulators, entry_order, gradient_rule, recording_tapes
from .tensor import Tensor, _wrap, convert_to_tensor

_JVP: dict = {}


def defjvp(op_name: str, rule=None):
    """Register ``rule(node, *input_tangents) -> output tangent`` for ``op_name`` (or decorate)."""
    if rule is None:
        return lambda r: defjvp(op_name, r)
    _JVP[op_name] = rule
    return rule


class ForwardAccumulator:
    """Computes Jacobian-vector products in forward mode, as ``tf.autodiff.ForwardAccumulator``.

    Parameters
    ----------
    primals : Tensor or nest of Tensors
        The tensors to watch (floating dtype).
    tangents : tensor-like or nest of them
        One tangent per primal, of the primal's shape: the direction of differentiation.

    Examples
    --------
    >>> x = tape.constant([1.0, 2.0])
    >>> with tape.ForwardAccumulator(x, tape.constant([1.0, 0.0])) as acc:
    ...     y = x * x
    >>> acc.jvp(y)
    tape.Tensor([2. 0.], shape=(2,), dtype=float64)
    """

    def __init__(self, primals, tangents):
        flat_p, flat_t = nest.flatten(primals), _flatten_up_to(primals, tangents)
        self._tangents: dict = {}         # id(tensor) -> (tensor, tangent); keeps both alive
        self._active = False
        for p, t in zip(flat_p, flat_t):
            if id(p) in self._tangents:
                raise ValueError("ForwardAccumulator: a primal was watched multiple times; pass each "
                                 "tensor once with its tangent")
            self._watch(p, t)

    def _watch(self, primal, tangent):
        if not isinstance(primal, Tensor):
            raise TypeError(f"ForwardAccumulator: primals must be Tensors or Variables, got "
                            f"{type(primal).__name__}")
        if primal._value.dtype.kind not in "fc":
            raise TypeError(f"ForwardAccumulator: primal of dtype {primal.dtype.name} cannot carry a "
                            "tangent; use a floating dtype (e.g. tape.float64)")
        dtype = primal._value.dtype
        if isinstance(tangent, Tensor):
            t = tangent if tangent._value.dtype == dtype else _cast(tangent, dtype)
        else:
            t = _wrap(np.asarray(tangent, dtype=dtype)[()])
        if tuple(t.shape) != tuple(primal.shape):
            raise ValueError(f"ForwardAccumulator: tangent shape {tuple(t.shape)} does not match "
                             f"primal shape {tuple(primal.shape)}")
        prev = self._tangents.get(id(primal))
        self._tangents[id(primal)] = (primal, t if prev is None else prev[1] + t)

    def __enter__(self):
        if self._active:
            raise ValueError("this ForwardAccumulator is already recording; it cannot be entered twice")
        active_accumulators.append(self)
        self._active = True
        self._entry = next(entry_order)
        return self

    def __exit__(self, *exc):
        if self._active:
            active_accumulators.remove(self)
            self._active = False
        return False

    def jvp(self, primals, unconnected_gradients="none"):
        """The tangent of ``primals`` (a Tensor or a nest): ``J @ tangents``.

        Unconnected tensors give None, or zeros with ``unconnected_gradients="zero"``.
        """
        from .tape import UnconnectedGradients, _unconnected_mode
        zero = _unconnected_mode(unconnected_gradients) is UnconnectedGradients.ZERO

        def one(t):
            if isinstance(t, (int, float)) and not isinstance(t, bool):
                # a Python number where TF's autograph would have a cond output: a constant, JVP 0
                return _wrap(np.zeros((), np.float64)[()])
            if not isinstance(t, Tensor):
                raise ValueError(f"ForwardAccumulator.jvp: expected Tensors, got {type(t).__name__}")
            entry = self._tangents.get(id(t))
            if entry is not None:
                return entry[1]
            return _wrap(np.zeros(t._value.shape, t._value.dtype)[()]) if zero else None
        return nest.map_structure(one, primals)

    # -- the registry's protocol (see registry.record) ------------------------------------
    def _accepts(self, inputs) -> bool:
        tangents = self._tangents
        for t in inputs:
            if id(t) in tangents:
                return True
        return False

    def _add(self, node):
        tangents = self._tangents
        ins = [tangents[id(i)][1] if id(i) in tangents else None for i in node.inputs]
        # Leave the list while computing: our own tangent ops must not get tangents of their own,
        # and, as in TensorFlow, only the tapes and accumulators entered before this one (the
        # outer ones) see them to differentiate again; inner ones do not.
        # Both lists are in entry order, so the inner ones are a suffix of each.
        index = active_accumulators.index(self)
        inner = active_accumulators[index:]
        del active_accumulators[index:]
        cut = len(recording_tapes)
        while cut and recording_tapes[cut - 1]._entry > self._entry:
            cut -= 1
        inner_tapes = recording_tapes[cut:]
        del recording_tapes[cut:]
        try:
            outs = jvp_of(node, ins)
        finally:
            active_accumulators[index:index] = inner
            recording_tapes[cut:cut] = inner_tapes
        for o, t in zip(node.outputs, outs):
            if t is None or o._value.dtype.kind not in "fc":
                continue
            if t._value.dtype != o._value.dtype:
                t = _cast(t, o._value.dtype)
            if t._value.shape != o._value.shape:
                from .ops.array import broadcast_to
                t = broadcast_to(t, o._value.shape)
            tangents[id(o)] = (o, t)


def _flatten_up_to(primals, tangents):
    """Tangents flattened to the structure of primals (a tangent may itself be a list: [1., 0.])."""
    if isinstance(primals, Tensor) or not isinstance(primals, (list, tuple, dict)):
        return [tangents]
    if isinstance(primals, dict):
        if not isinstance(tangents, dict) or set(tangents) != set(primals):
            raise ValueError("ForwardAccumulator: tangents must match the structure of primals "
                             f"(a dict with keys {sorted(primals)})")
        keys = nest._sorted_keys(primals)
        return [t for k in keys for t in _flatten_up_to(primals[k], tangents[k])]
    if not isinstance(tangents, (list, tuple)) or len(tangents) != len(primals):
        raise ValueError(f"ForwardAccumulator: tangents must match the structure of primals "
                         f"({len(primals)} items)")
    return [t for p, tg in zip(primals, tangents) for t in _flatten_up_to(p, tg)]


def jvp_of(node, tangents):
    """Output tangents (a list) of a recorded op application given its input tangents."""
    rule = _JVP.get(node.op.name) if node.op.custom_grad is None else None
    if rule is None:
        return _double_vjp(node, tangents)
    out = rule(node, *tangents)
    return out if node.op.n_outputs != 1 else [out]


def _double_vjp(node, tangents):
    """J t from the gradient rule alone: VJP(u) = J^T u is linear in u, so J t = d/du <J^T u, t>."""
    from .ops.reduce import reduce_sum
    from .tape import GradientTape
    rule = gradient_rule(node)            # LookupError when the op has no gradient at all
    if rule is None:
        return [None] * len(node.outputs)
    us = [_wrap(np.zeros(o._value.shape, o._value.dtype)[()]) for o in node.outputs]
    saved = node.needs_grad
    node.needs_grad = tuple(t is not None for t in tangents)
    try:
        with GradientTape() as inner:
            for u in us:
                if u._value.dtype.kind in "fc":
                    inner.watch(u)
            got = rule(node, *us)
            got = got if isinstance(got, (list, tuple)) else [got]
            total = None
            for g, t in zip(got, tangents):
                if g is None or t is None:
                    continue
                g = convert_to_tensor(g)
                if g._value.dtype.kind == "c" or t._value.dtype.kind == "c":
                    # <J^T u, t> as the real inner product of pairs of reals: Re sum(conj(g) t)
                    from .ops.math import conj, real
                    term = reduce_sum(real(conj(g) * t))
                else:
                    term = reduce_sum(g * t)
                total = term if total is None else total + term
    finally:
        node.needs_grad = saved
    if total is None:
        return [None] * len(node.outputs)
    return inner.gradient(total, us)


# -- helpers -------------------------------------------------------------------------------
def _cast(t, dtype):
    from .ops.math import cast
    return cast(t, dtype)


def _zero_like(x):
    return _wrap(np.zeros((), x._value.dtype)[()])


def _or0(t, x):
    """The tangent, or a zero scalar of x's dtype that broadcasts like x would."""
    return t if t is not None else _zero_like(x)


def _plus(a, b):
    if a is None:
        return b
    return a if b is None else a + b


# -- rules ---------------------------------------------------------------------------------
def _linear(node, t, *rest):
    """A linear one-input op: its JVP is the op itself, applied to the tangent."""
    return None if t is None else node.op(t, **node.attrs)


for _name in ("Neg", "Reshape", "Transpose", "Sum", "Mean", "StridedSlice", "ScatterKey", "Tile",
              "BroadcastTo", "Identity", "Cast", "Cumsum", "Real", "Imag", "Conj"):
    defjvp(_name, _linear)


def _elementwise_by_vjp(node, t):
    # A one-input elementwise op has a diagonal Jacobian: its VJP applied to t is its JVP. For a
    # complex (holomorphic) op the VJP multiplies by conj(f'(z)): conj(VJP(conj t)) = f'(z) t.
    if t is None:
        return None
    if _is_complex(node.inputs[0]) or _is_complex(t):
        return _conj(gradient_rule(node)(node, _conj(t))[0])
    return gradient_rule(node)(node, t)[0]


def _is_complex(x):
    return x._value.dtype.kind == "c"


def _conj(x):
    from .ops.math import conj
    return conj(x) if _is_complex(x) else x


def _holomorphic(rule, node, t):
    """The JVP ``f' t`` from a reverse rule ``g -> g conj(f')`` (just ``rule(t)`` on reals)."""
    if t is None:
        return None
    if _is_complex(t) or any(_is_complex(x) for x in node.inputs):
        return _conj(rule(node, _conj(t)))
    return rule(node, t)


for _name in ("Square", "Sqrt", "Rsqrt", "Reciprocal", "Exp", "Expm1", "Log", "Log1p", "Sin",
              "Cos", "Tan", "Asin", "Acos", "Atan", "Sinh", "Cosh", "Tanh", "Asinh", "Acosh", "Atanh",
              "Sigmoid", "Softplus", "Erf", "Relu",
              "Softmax"):                          # softmax's Jacobian is symmetric: same trick
    defjvp(_name, _elementwise_by_vjp)

@defjvp("Abs")
def _abs_jvp(node, t):
    if t is None:
        return None
    x = node.inputs[0]
    if not _is_complex(x):
        return _elementwise_by_vjp(node, t)
    # d|z| = Re(conj(z) dz) / |z|, and 0 at z = 0
    from .ops.math import conj, div_no_nan, real
    return div_no_nan(real(conj(x) * t), node.outputs[0])


@defjvp("Angle")
def _angle_jvp(node, t):
    if t is None or not _is_complex(node.inputs[0]):
        return None
    # d arg z = Im(conj(z) dz) / |z|^2
    from .ops.math import conj, imag, real
    x = node.inputs[0]
    return imag(conj(x) * t) / real(conj(x) * x)


@defjvp("Complex")
def _complex_jvp(node, ta, tb):
    if ta is None and tb is None:
        return None
    from .ops.math import complex_
    a, b = node.inputs
    return complex_(_or0(ta, a), _or0(tb, b))


defjvp("Pad", lambda n, t: None if t is None else n.op(t, paddings=n.attrs["paddings"],
                                                           constant_values=0))
defjvp("AddV2", lambda n, ta, tb: _plus(ta, tb))
defjvp("Sub", lambda n, ta, tb: _plus(ta, None if tb is None else -tb))
defjvp("Mul", lambda n, ta, tb: _plus(None if ta is None else ta * n.inputs[1],
                                      None if tb is None else n.inputs[0] * tb))
defjvp("RealDiv", lambda n, ta, tb: _plus(None if ta is None else ta / n.inputs[1],
                                          None if tb is None else -tb * n.outputs[0] / n.inputs[1]))


@defjvp("Pow")
def _pow_jvp(node, ta, tb):
    from .ops.math import _pow_da, _pow_db
    return _plus(_holomorphic(_pow_da, node, ta), _holomorphic(_pow_db, node, tb))


def _select(node, cond, ta, tb):
    from .ops.array import where
    a, b = node.inputs[-2:]
    if ta is None and tb is None:
        return None
    return where(cond, _or0(ta, a), _or0(tb, b))


defjvp("Maximum", lambda n, ta, tb: _select(n, _ge(*n.inputs), ta, tb))
defjvp("Minimum", lambda n, ta, tb: _select(n, _le(*n.inputs), ta, tb))
defjvp("SelectV2", lambda n, tc, ta, tb: _select(n, n.inputs[0], ta, tb))


def _ge(a, b):
    from .ops.compare import greater_equal
    return greater_equal(a, b)


def _le(a, b):
    from .ops.compare import less_equal
    return less_equal(a, b)


@defjvp("FloorMod")
def _floormod_jvp(node, ta, tb):
    from .ops.math import floor
    a, b = node.inputs
    return _plus(ta, None if tb is None else -tb * floor(a / b))


@defjvp("Atan2")
def _atan2_jvp(node, ta, tb):
    a, b = node.inputs
    num = _plus(None if ta is None else ta * b, None if tb is None else -tb * a)
    return None if num is None else num / (a * a + b * b)


@defjvp("ConcatV2")
def _concat_jvp(node, *ts):
    if all(t is None for t in ts):
        return None
    from .ops.creation import zeros_like
    return node.op(*[t if t is not None else zeros_like(x) for t, x in zip(ts, node.inputs)],
                   **node.attrs)


@defjvp("MatMul")
def _matmul_jvp(node, ta, tb):
    a, b = node.inputs
    return _plus(None if ta is None else node.op(ta, b), None if tb is None else node.op(a, tb))


@defjvp("Einsum")
def _einsum_jvp(node, *ts):
    out = None
    for k, t in enumerate(ts):            # multilinear: one term per operand with a tangent
        if t is not None:
            args = list(node.inputs)
            args[k] = t
            out = _plus(out, node.op(*args, **node.attrs))
    return out


def _reduce_with(node, t):
    from .ops.reduce import _reduce_sum
    return _reduce_sum(t, axis=node.attrs["axis"], keepdims=node.attrs["keepdims"])


@defjvp("Max")
def _extreme_jvp(node, t):
    if t is None:
        return None
    from .ops.compare import equal
    from .ops.math import cast
    from .ops.reduce import _kept_output, _reduce_sum
    x = node.inputs[0]
    mask = cast(equal(x, _kept_output(node, t)), x.dtype)       # ties share, as in the gradient
    ties = _reduce_sum(mask, axis=node.attrs["axis"], keepdims=True)
    return _reduce_with(node, t * mask / ties)


defjvp("Min", _extreme_jvp)


@defjvp("LogSumExp")
def _logsumexp_jvp(node, t):
    from .ops.math import exp
    from .ops.reduce import _kept_output
    return None if t is None else _reduce_with(node, t * exp(node.inputs[0] - _kept_output(node, t)))


@defjvp("EuclideanNorm")
def _norm_jvp(node, t):
    from .ops.array import where
    from .ops.compare import equal
    if t is None:
        return None
    n = node.outputs[0]
    x = node.inputs[0]
    if _is_complex(x) or _is_complex(t):          # d|x| = Re(sum(conj(x) dx)) / |x|
        from .ops.math import conj, real
        return _reduce_with(node, real(conj(x) * t)) / where(equal(n, 0), 1, n)
    return _reduce_with(node, x * t) / where(equal(n, 0), 1, n)


@defjvp("LogSoftmax")
def _log_softmax_jvp(node, t):
    from .ops.math import exp
    from .ops.reduce import reduce_sum
    if t is None:
        return None
    return t - reduce_sum(exp(node.outputs[0]) * t, axis=node.attrs["axis"], keepdims=True)


@defjvp("MatrixInverse")
def _inv_jvp(node, t):
    from .ops.linalg import _matmul
    y = node.outputs[0]
    return None if t is None else -_matmul(_matmul(y, t), y)


@defjvp("MatrixDeterminant")
def _det_jvp(node, t):
    from .ops.linalg import _swap, inv
    from .ops.reduce import reduce_sum
    if t is None:
        return None
    return node.outputs[0] * reduce_sum(_swap(inv(node.inputs[0])) * t, axis=(-2, -1))


@defjvp("MatrixSolve")
def _solve_jvp(node, ta, tb):
    from .ops.linalg import _matmul
    a, x = node.inputs[0], node.outputs[0]
    rhs = _plus(tb, None if ta is None else -_matmul(ta, x))
    return None if rhs is None else node.op(a, rhs)


@defjvp("Prod")
def _prod_jvp(node, t):
    if t is None:
        return None
    # the gradient rule at a cotangent of ones gives d prod / d x_i, exact at zeros too
    ones = _wrap(np.ones(node.outputs[0]._value.shape, node.outputs[0]._value.dtype)[()])
    # (for complex x the rule gives conj(d prod / d x_i): conjugated back)
    return _reduce_with(node, t * _conj(gradient_rule(node)(node, ones)[0]))


@defjvp("MulNoNan")
def _mul_no_nan_jvp(node, ta, tb):
    # a * b, 0 where a is 0: each term keeps the mask so a masked inf/nan stays out of the tangent
    from .ops.math import mul_no_nan
    a, b = node.inputs
    return _plus(None if ta is None else mul_no_nan(ta, b), None if tb is None else mul_no_nan(a, tb))
