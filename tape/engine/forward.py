"""Forward mode: ``ForwardAccumulator`` and the JVP rule of each primitive.

An active accumulator is offered every op application after the tapes (registry.record). If an
input carries a tangent, the op's JVP rule computes the output tangents with the engine's own
ops, so an outer GradientTape records them (reverse-over-forward) and ops run by a backward sweep
inside the accumulator get tangents too (forward-over-reverse: Hessian-vector products).

Each op carries its own rule (``Primitive.jvp``, defined beside the op): ``rule(node,
*input_tangents) -> output tangent`` (a list for multi-output ops); a missing input tangent is
``None`` (zero). Two declared defaults stand for rules not written out: a ``linear`` op applies
itself to the tangents, and a ``symmetric`` one (elementwise ops, softmax) applies its gradient
rule to the tangent. Any other op falls back to the "double VJP" trick: its gradient rule is
linear in the cotangent ``u``, so ``J t = d/du <J^T u, t>`` -- exact, slower.

Complex numbers: tangents are pushed forward unconjugated (``f'(z) t`` for a holomorphic f),
while gradient rules follow TensorFlow's convention (the transpose of the real Jacobian,
``g * conj(f'(z))``). The two meet in ``Re <J^T u, t> = Re <u, J t>`` with the Hermitian
``<a, b> = sum(conj(a) * b)``; rules borrowed from the reverse mode conjugate accordingly.
"""
from __future__ import annotations

import numpy as np

from . import nest
from .ops.array import broadcast_to, reduce_sum
from .ops.cast import cast, conj, real
from .ops.creation import zeros_like
from .registry import (Node, gradient_rule, pause_recorder, resume_recorder, start_recording,
                       stop_recording)
from .structural import StructuralZeros, mark, unmarked
from .tape import GradientTape, UnconnectedGradients, unconnected_mode
from .tensor import Tensor, _wrap, convert_to_tensor


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
            t = tangent if tangent._value.dtype == dtype else cast(tangent, dtype)
        else:
            # a constant direction: the elements it does not move are structural zeros (a
            # tangent tensor may itself be differentiated, so its zeros are values)
            t = np.asarray(tangent, dtype=dtype)
            t = _wrap(mark(t) if t.ndim else t[()])
        if tuple(t.shape) != tuple(primal.shape):
            raise ValueError(f"ForwardAccumulator: tangent shape {tuple(t.shape)} does not match "
                             f"primal shape {tuple(primal.shape)}")
        prev = self._tangents.get(id(primal))
        self._tangents[id(primal)] = (primal, t if prev is None else prev[1] + t)

    def __enter__(self):
        if self._active:
            raise ValueError("this ForwardAccumulator is already recording; it cannot be entered twice")
        start_recording(self, after_all=True)
        self._active = True
        return self

    def __exit__(self, *exc):
        if self._active:
            stop_recording(self)
            self._active = False
        return False

    def jvp(self, primals, unconnected_gradients="none"):
        """The tangent of ``primals`` (a Tensor or a nest): ``J @ tangents``.

        Unconnected tensors give None, or zeros with ``unconnected_gradients="zero"``.
        """
        zero = unconnected_mode(unconnected_gradients) is UnconnectedGradients.ZERO

        def one(t):
            if isinstance(t, (int, float)) and not isinstance(t, bool):
                # a Python number where TF's autograph would have a cond output: a constant, JVP 0
                return _wrap(np.zeros((), np.float64)[()])
            if not isinstance(t, Tensor):
                raise ValueError(f"ForwardAccumulator.jvp: expected Tensors, got {type(t).__name__}")
            entry = self._tangents.get(id(t))
            if entry is not None:
                tangent = entry[1]
                if type(tangent._value) is StructuralZeros:
                    tangent._value = unmarked(tangent._value)     # (the same numbers)
                return tangent
            return _wrap(np.zeros(t._value.shape, t._value.dtype)[()]) if zero else None
        return nest.map_structure(one, primals)

    # -- the recorder protocol (see registry.record) ---------------------------------------
    def _offer(self, op, inputs, outputs, attrs, node):
        """The recorder protocol (see ``registry.record``): tangents for the outputs of an op
        application one of whose inputs carries a tangent."""
        tangents = self._tangents
        for t in inputs:
            if id(t) in tangents:
                break
        else:
            return node
        if node is None:
            node = Node(op, inputs, outputs, attrs)
        self._push_forward(node)
        return node

    def _push_forward(self, node):
        tangents = self._tangents
        ins = [tangents[id(i)][1] if id(i) in tangents else None for i in node.inputs]
        # Leave the lists while computing: our own tangent ops must not get tangents of their
        # own, and only the tapes and accumulators we are nested in see them (to differentiate
        # again); those nested inside us do not, as in TensorFlow.
        paused = pause_recorder(self)
        try:
            outs = jvp_of(node, ins)
        finally:
            resume_recorder(paused)
        for o, t in zip(node.outputs, outs):
            if t is None or o._value.dtype.kind not in "fc":
                continue
            if t._value.dtype != o._value.dtype:
                t = cast(t, o._value.dtype)
            if t._value.shape != o._value.shape:
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
    op = node.op
    if op.custom_grad is not None:
        return _double_vjp(node, tangents)
    rule = op.jvp
    if rule is not None:
        out = rule(node, *tangents)
    elif op.linear:
        out = _linear_jvp(node, tangents)
    elif op.symmetric:
        out = _symmetric_jvp(node, *tangents)
    else:
        return _double_vjp(node, tangents)
    return out if op.n_outputs != 1 else [out]


def _linear_jvp(node, tangents):
    """A linear op's JVP: the op itself applied to the tangents (zeros for the missing ones)."""
    if all(t is None for t in tangents):
        return None
    if len(tangents) == 1:
        return node.op(tangents[0], **node.attrs)
    return node.op(*[t if t is not None else zeros_like(x) for t, x in zip(tangents, node.inputs)],
                   **node.attrs)


def _symmetric_jvp(node, t):
    """The JVP of a one-input op with a symmetric Jacobian: its VJP applied to t. For a complex
    (holomorphic) op the VJP multiplies by conj(f'(z)), so conj(VJP(conj t)) = f'(z) t."""
    if t is None:
        return None
    if node.inputs[0]._value.dtype.kind == "c" or t._value.dtype.kind == "c":
        return _conj(gradient_rule(node)(node, _conj(t))[0])
    return gradient_rule(node)(node, t)[0]


def _conj(x):
    return conj(x) if x._value.dtype.kind == "c" else x


def _double_vjp(node, tangents):
    """J t from the gradient rule alone: VJP(u) = J^T u is linear in u, so J t = d/du <J^T u, t>."""
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
                    term = reduce_sum(real(conj(g) * t))
                else:
                    term = reduce_sum(g * t)
                total = term if total is None else total + term
    finally:
        node.needs_grad = saved
    if total is None:
        return [None] * len(node.outputs)
    return inner.gradient(total, us)
