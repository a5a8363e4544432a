"""``torch.autograd``: ``grad`` and ``backward`` over the define-by-run graph of ``_graph``."""
from __future__ import annotations

import numpy as np

from . import _engine as E
from ._graph import AccumulateGrad, _grad_mode, edge, run_backward
from ._tensor import Tensor, _new

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
        wanted = _as_list(inputs)
        got = grad(outputs, wanted, grad_tensors, retain_graph, create_graph, allow_unused=True)
        for x, g in zip(wanted, got):
            if g is not None:
                x._grad = g if x._grad is None else x._grad + g
        return
    nodes, cotangents = _seeds(outputs, grad_tensors, create_graph)
    mode = _grad_mode[0]
    _grad_mode[0] = bool(create_graph)
    try:
        run_backward(nodes, cotangents, retain_graph, create_graph)
    finally:
        _grad_mode[0] = mode


def grad(outputs, inputs, grad_outputs=None, retain_graph=None, create_graph=False,
         only_inputs=True, allow_unused=None, is_grads_batched=False, materialize_grads=False):
    """The gradients of ``outputs`` with respect to ``inputs``, as a tuple (``.grad`` untouched)."""
    if is_grads_batched:
        raise NotImplementedError("tape.torch.autograd.grad: is_grads_batched is not supported")
    outs = [outputs] if isinstance(outputs, Tensor) else _as_list(outputs)
    ins = [inputs] if isinstance(inputs, Tensor) else _as_list(inputs)
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
    mode = _grad_mode[0]
    _grad_mode[0] = bool(create_graph)
    try:
        recorder = run_backward(nodes, cotangents, retain_graph, create_graph, capture)
    finally:
        _grad_mode[0] = mode
    result = []
    for x, node in zip(ins, targets):
        g = capture[node]
        if g is None:
            if materialize_grads:
                result.append(_new(np.zeros_like(x._value)[()]))
                continue
            if not allow_unused:
                raise RuntimeError("One of the differentiated Tensors appears to not have been "
                                   "used in the graph. Set allow_unused=True if this is the "
                                   "desired behavior.")
            result.append(None)
        elif recorder is not None:
            result.append(_shaped(recorder.as_torch(g), x))
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


def _shaped(t, like):
    from ._graph import _fit as fit_tensor
    if t._value.dtype != like._value.dtype or np.shape(t._value) != np.shape(like._value):
        return fit_tensor(t, like._value)
    return t


__all__ += ["AccumulateGrad"]
