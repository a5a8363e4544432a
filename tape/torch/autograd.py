"""``torch.autograd``: ``grad`` and ``backward`` over the define-by-run graph of ``_graph``."""
from __future__ import annotations

import numpy as np

from . import _engine as E
from ._graph import AccumulateGrad, _grad_mode, edge, run_backward
from ._tensor import Tensor, _apply, _new, _propagate

__all__ = ["backward", "grad"]

_F64 = np.float64
_ONE = np.float64(1.0)


def _as_list(x):
    if x is None:
        return []
    if isinstance(x, (list, tuple)):
        return list(x)
    return [x]


def _seeds(outputs, grad_outputs, create_graph):
    """Each output's graph node and cotangent (raw NumPy, or a tensor for ``create_graph``)."""
    grads = _as_list(grad_outputs)
    if grads and len(grads) != len(outputs):
        raise RuntimeError(f"grad can be implicitly created only for scalar outputs"
                           if not grads else
                           f"got {len(grads)} grad_outputs for {len(outputs)} outputs")
    nodes, cotangents = [], []
    for i, y in enumerate(outputs):
        if not isinstance(y, Tensor):
            raise TypeError(f"expected a tape.torch Tensor as output {i}, got {type(y).__name__}")
        node = edge(y)
        if node is None:
            raise RuntimeError(f"element {i} of tensors does not require grad and does not have "
                               "a grad_fn")
        g = grads[i] if grads else None
        value = y._value
        if g is None:
            if type(value) is _F64:
                g = _ONE
            elif value.size != 1:
                raise RuntimeError("grad can be implicitly created only for scalar outputs")
            else:
                g = np.ones_like(value)[()]
            if create_graph:
                g = _new(g)
        else:
            gv = g._value if isinstance(g, E.EngineTensor) else np.asarray(g, dtype=value.dtype)
            if np.shape(gv) != np.shape(value):
                raise RuntimeError(f"Mismatch in shape: grad_output[{i}] has a shape of "
                                   f"torch.Size({list(np.shape(gv))}) and output[{i}] has a shape "
                                   f"of torch.Size({list(np.shape(value))}).")
            if create_graph:
                g = g if isinstance(g, Tensor) else _new(gv)
            else:
                g = gv
        nodes.append(node)
        cotangents.append(g)
    return nodes, cotangents


def backward(tensors, grad_tensors=None, retain_graph=None, create_graph=False, inputs=None):
    """Accumulate gradients of ``tensors`` into the ``.grad`` of the graph's leaves."""
    outputs = _as_list(tensors)
    if retain_graph is None:
        retain_graph = create_graph
    if inputs is not None:
        wanted = [inputs] if isinstance(inputs, Tensor) else _as_list(inputs)
        if not wanted:
            raise RuntimeError("`inputs` argument to `backward()` cannot be empty.")
        got = grad(outputs, wanted, grad_tensors, retain_graph, create_graph, allow_unused=True)
        for x, g in zip(wanted, got):
            if g is not None:
                _add_to_grad(x, g._value if not create_graph else g, create_graph)
        return
    nodes, cotangents = _seeds(outputs, grad_tensors, create_graph)
    mode = _grad_mode.on
    _grad_mode.on = bool(create_graph)
    try:
        run_backward(nodes, cotangents, retain_graph, create_graph, sink=_Leaves)
    finally:
        _grad_mode.on = mode


def grad(outputs, inputs, grad_outputs=None, retain_graph=None, create_graph=False,
         only_inputs=True, allow_unused=None, is_grads_batched=False, materialize_grads=False):
    """The gradients of ``outputs`` with respect to ``inputs``, as a tuple (``.grad`` untouched)."""
    if is_grads_batched:
        raise NotImplementedError("tape.torch.autograd.grad: is_grads_batched is not supported")
    outs = [outputs] if isinstance(outputs, Tensor) else _as_list(outputs)
    ins = [inputs] if isinstance(inputs, Tensor) else _as_list(inputs)
    if not ins:
        raise RuntimeError("`inputs` argument to `grad()` cannot be empty.")
    if materialize_grads and allow_unused is False:
        raise ValueError("Expected allow_unused to be True or not passed when "
                         "materialize_grads=True, but got: allow_unused=False.")
    if allow_unused is None:
        allow_unused = materialize_grads
    if retain_graph is None:
        retain_graph = create_graph
    for x in ins:
        if not isinstance(x, Tensor) or not x._requires_grad:
            raise RuntimeError("One of the differentiated Tensors does not require grad")
    nodes, cotangents = _seeds(outs, grad_outputs, create_graph)
    targets = [edge(x) for x in ins]
    capture = dict.fromkeys(targets)
    mode = _grad_mode.on
    _grad_mode.on = bool(create_graph)
    try:
        recorder = run_backward(nodes, cotangents, retain_graph, create_graph, capture)
    finally:
        _grad_mode.on = mode
    result = []
    for x, node in zip(ins, targets):
        g = capture[node]
        if g is None:
            if materialize_grads:       # (with create_graph, zeros that can be differentiated)
                zeros = _new(np.zeros_like(x._value)[()])
                result.append(zeros.requires_grad_() if create_graph else zeros)
                continue
            if not allow_unused:
                raise RuntimeError("One of the differentiated Tensors appears to not have been "
                                   "used in the graph. Set allow_unused=True if this is the "
                                   "desired behavior.")
            result.append(None)
        elif recorder is not None:
            result.append(_as_torch(_fitted(g, x._value), recorder))
        else:
            result.append(_new(_fit(g, x._value)))
    return tuple(result)


def _fit(g, like):
    if type(g) is _F64 and type(like) is _F64:
        return g
    g = np.asarray(g)
    if g.shape != np.shape(like):
        g = np.broadcast_to(g, np.shape(like))
    if g.dtype != like.dtype:
        g = g.astype(like.dtype)
    return g[()] if g.ndim == 0 else g


def _fitted(t, like):
    """Engine tensor ``t`` with ``like``'s dtype and shape (recorded when create_graph is on)."""
    if t._value.dtype != like.dtype:
        t = E.PRIMITIVES["Cast"](t, dtype=like.dtype)
    if np.shape(t._value) != np.shape(like):
        t = E.PRIMITIVES["BroadcastTo"](t, shape=np.shape(like))
    return t


def _as_torch(t, recorder):
    """A torch tensor for an engine tensor of a create_graph pass, with its graph node."""
    e = recorder.node_of(t)
    if type(e) is AccumulateGrad:      # the gradient is a leaf itself: an alias of it
        mode = _grad_mode.on
        _grad_mode.on = True
        try:
            return _apply(E.PRIMITIVES["Identity"], (e._leaf,), {}, "AliasBackward0")
        finally:
            _grad_mode.on = mode
    out = _new(t._value)
    if e is not None:
        out._requires_grad = True
        out._grad_fn = e
    return out


def _fresh(g, like):
    """A gradient array of ``like``'s shape and dtype that ``.grad`` may keep (not a view)."""
    g = np.asarray(g)
    if g.shape != np.shape(like):
        g = np.broadcast_to(g, np.shape(like))
    return np.array(g, dtype=like.dtype)[()] if g.ndim == 0 else np.array(g, dtype=like.dtype)


class _Leaves:
    """Where the backward pass delivers gradients: leaves' ``.grad`` and retained ``.grad``."""

    @staticmethod
    def accumulate(acc, g, recorder):
        leaf = acc._leaf
        if recorder is not None:
            _add_to_grad(leaf, _as_torch(_fitted(g, leaf._value), recorder), True)
        else:
            _add_to_grad(leaf, _fresh(g, leaf._value), False)

    @staticmethod
    def retain(ref, g, recorder):
        t = ref()
        if t is None:
            return
        if recorder is not None:
            _add_to_grad(t, _as_torch(g, recorder), True)
        else:
            _add_to_grad(t, _fresh(g, t._value), False)


def _add_to_grad(t, g, create_graph):
    """Add gradient ``g`` to ``t.grad``: in place (the same tensor object, as PyTorch does) unless
    the pass records a graph or the present ``.grad`` requires grad; then out of place."""
    old = t._grad
    if old is None:
        t._grad = g if create_graph else _new(g)
    elif create_graph or old._requires_grad:
        t._grad = old + (g if create_graph else _new(g))
    else:
        old._value = old._value + g
        _propagate(old)


def _tensor_backward(self, gradient=None, retain_graph=None, create_graph=False, inputs=None):
    """Accumulate the gradient of this tensor into the ``.grad`` of the leaves it depends on."""
    backward(self, gradient, retain_graph, create_graph, inputs=inputs)


Tensor.backward = _tensor_backward
__all__ += ["AccumulateGrad"]
