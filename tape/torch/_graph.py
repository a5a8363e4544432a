"""The define-by-run graph: backward nodes, leaf accumulators, grad mode and the backward pass.

An op with an input that requires grad gives its output a ``grad_fn``: a ``BackwardNode``
holding the engine primitive that ran, the values it saw (inputs and output, as immutable engine
tensors) and ``_edges``, the node of each input (its ``grad_fn``, or the ``AccumulateGrad`` of a
leaf, or None). Nodes point only towards inputs, so the graph is a DAG owned by the tensors that
reach it: it lives exactly as long as they do and holds no reference cycle.

Each node carries ``_seq``, a counter taken when it is made. A node is made after the nodes of
its inputs, so handling nodes by decreasing ``_seq`` (a heap) visits every node after all of its
consumers: the backward pass needs no recursion and no prior walk of the graph.
"""
from __future__ import annotations

import heapq
import itertools
import threading
import weakref

import numpy as np

from . import _engine as E
from ._names import backward_name

_next_seq = itertools.count().__next__

class _GradMode(threading.local):
    """Grad mode, per thread as PyTorch's: ops record nodes only while ``on`` is true
    (``no_grad`` clears it); ``inference`` is set inside ``inference_mode``."""

    on = True
    inference = False


_grad_mode = _GradMode()

FREED = ("Trying to backward through the graph a second time (or directly access saved tensors "
         "after they have already been freed). Saved intermediate values of the graph are freed "
         "when you call .backward() or autograd.grad(). Specify retain_graph=True if you need to "
         "backward through the graph a second time or if you need to access saved tensors after "
         "calling backward.")


_NO_ATTRS: dict = {}
_F64 = np.float64
_ET = E.EngineTensor
_new_engine_tensor = object.__new__


class BackwardNode:
    """One recorded op application (``y.grad_fn``), named as PyTorch names it (``MulBackward0``).

    The engine's gradient rule for ``op`` reads it as it reads the engine's own nodes:
    ``inputs`` (the values the op saw, as immutable engine tensors), ``outputs``, ``attrs`` and
    ``needs_grad``. ``_saved`` holds the input tensors themselves (as PyTorch's saved tensors
    keep theirs alive) for ops whose rules read values. The values are kept raw (NumPy arrays
    and scalars: nothing for the garbage collector to track) and wrapped as engine tensors only
    when a rule asks for them;
    ``attrs`` and ``_retained`` are class defaults that few nodes override. After a backward pass
    without ``retain_graph`` the saved values are gone (``inputs`` None).
    """

    __slots__ = ("op", "_in", "_out", "_edges", "_seq", "_saved", "__dict__", "__weakref__")
    attrs = _NO_ATTRS
    _retained = None
    _dirty = None       # the output tensor, changed in place, of a node whose rule reads it

    @property
    def inputs(self):
        values = self._in
        if values is None:
            return None
        a = _new_engine_tensor(_ET)
        a._value = values[0]
        if len(values) == 1:
            return (a,)
        if len(values) == 2:
            b = _new_engine_tensor(_ET)
            b._value = values[1]
            return (a, b)
        return (a,) + tuple([E.wrap(v) for v in values[1:]])

    @property
    def outputs(self):
        out = self._out
        return None if out is None else (E.wrap(out),)

    @property
    def needs_grad(self):
        return tuple([e is not None for e in self._edges])

    @property
    def type(self) -> str:
        return self.op.name

    def name(self) -> str:
        return type(self).__name__

    @property
    def next_functions(self) -> tuple:
        return tuple((e, 0) for e in self._edges)

    @property
    def metadata(self) -> dict:
        return {}

    def __repr__(self):
        return f"<{type(self).__name__} object at {id(self):#x}>"


_CLASSES: dict = {}


def node_class(name: str) -> type:
    """The node class named ``name`` (``AddBackward0`` ...), made once."""
    cls = _CLASSES.get(name)
    if cls is None:
        cls = _CLASSES[name] = type(name, (BackwardNode,), {"__slots__": ()})
    return cls


class AccumulateGrad:
    """The graph node of a leaf that requires grad: it adds what reaches it to ``leaf.grad``.

    As in PyTorch, the graph's nodes hold it and it holds the leaf, while the leaf holds it
    only weakly (so no cycle forms): a leaf lives at least as long as a graph that uses it.
    """

    __slots__ = ("_leaf", "_seq", "__weakref__")
    _edges = ()
    next_functions = ()

    def __init__(self, leaf):
        self._leaf = leaf
        self._seq = _next_seq()

    @property
    def variable(self):
        return self._leaf

    def name(self) -> str:
        return "torch::autograd::AccumulateGrad"

    def __repr__(self):
        return f"<AccumulateGrad object at {id(self):#x}>"


def edge(t):
    """The graph node gradients of tensor ``t`` flow to (None if it does not require grad)."""
    if not getattr(t, "_requires_grad", False):
        return None
    node = t._grad_fn
    return node if node is not None else leaf_acc(t)


def leaf_acc(t):
    """The ``AccumulateGrad`` of leaf ``t`` (made when no graph holds one any more)."""
    ref = t._acc
    node = ref() if ref is not None else None
    if node is None:
        node = AccumulateGrad(t)
        t._acc = weakref.ref(node)
    return node


# -- the backward pass ---------------------------------------------------------------------
def run_backward(roots, cotangents, retain_graph, create_graph, capture=None, sink=None):
    """Push ``cotangents`` from the nodes ``roots`` back through the graph.

    Without ``capture``: what reaches a leaf's ``AccumulateGrad`` goes to
    ``sink.accumulate(acc, g, recorder)`` (which adds it to ``.grad``), and a tensor's that
    asked ``retain_grad`` to ``sink.retain(ref, g, recorder)``.
    With ``capture`` (a dict node -> None, from ``autograd.grad``): the total cotangent reaching
    each of those nodes is stored there instead and no ``.grad`` changes. Cotangents are raw NumPy
    values, or (``create_graph``) engine tensors recorded into new graph nodes.
    """
    heap = []
    buffers = {}
    for node, g in zip(roots, cotangents):
        prev = buffers.get(node)
        if prev is None:
            buffers[node] = g
            heap.append((-node._seq, node))
        else:
            buffers[node] = prev + g
    heapq.heapify(heap)
    stop = 0
    if capture:
        stop = min([n._seq for n in capture]) if len(capture) > 1 else next(iter(capture))._seq
    if create_graph:
        recorder = _Recorder()
        with E.recording(recorder):
            buffers = {n: recorder.connect(g) for n, g in buffers.items()}
            _sweep(heap, buffers, retain_graph, capture, stop, recorder, sink)
        return recorder
    token = E.silence()
    try:
        _sweep(heap, buffers, retain_graph, capture, stop, None, sink)
    finally:
        E.restore(token)
    return None


def _reaches(node, targets, stop):
    """Whether a path leads from ``node`` to one of ``targets`` (made at ``stop`` or later)."""
    seen = set()
    stack = [node]
    while stack:
        n = stack.pop()
        if n in targets:
            return True
        for e in n._edges:
            if e is not None and e not in seen and e._seq >= stop:
                seen.add(e)
                stack.append(e)
    return False


def _free_leading_to(done, targets, all_lead):
    """After ``autograd.grad`` without ``retain_graph``: free the saved values of the nodes it
    ran (``done``, by decreasing number) that lead to its inputs, as PyTorch runs only those;
    the others keep theirs for a later pass that needs them. ``all_lead``: the sweep met no
    other leaf and no node below its inputs, so every node it ran leads to one."""
    needed = set(targets)
    for node, lane in reversed(done):       # inputs before the nodes that use them
        if not all_lead:
            for e in node._edges:
                if e in needed:
                    break
            else:
                continue
            needed.add(node)
        if node.op not in _SAVES_NOTHING:
            node._in = node._out = node._saved = None
        elif not lane:
            _keep_shapes(node)


def _sweep(heap, buffers, retain, capture, stop, recorder, sink):
    """Handle the nodes by decreasing ``_seq``: each one's cotangent is complete when it is popped.

    With ``capture`` (``autograd.grad``), a node already freed is skipped unless it leads to an
    input (then PyTorch's error), and the saved values are freed at the end, only for the nodes
    that lead to an input.

    Written flat: this loop is most of the time of a small backward pass.
    """
    pop, push = heapq.heappop, heapq.heappush
    get = buffers.get
    acc_type = AccumulateGrad
    general = E.general_rule
    saves_nothing = _SAVES_NOTHING
    done = [] if capture is not None and not retain else None
    all_lead = True         # (with capture: every node run so far may lead to an input)
    while heap:
        seq, node = pop(heap)
        g = buffers.pop(node)
        if capture is not None:
            if -seq < stop:
                all_lead = False
                break
            if node in capture:
                capture[node] = g
            elif type(node) is acc_type:
                all_lead = False
            if type(node) is acc_type:
                continue
        elif type(node) is acc_type:
            sink.accumulate(node, g, recorder)
            continue
        if node._retained is not None and capture is None:
            sink.retain(node._retained, g, recorder)
        if node._in is None:
            if capture is not None and not _reaches(node, capture, stop):
                all_lead = False
                continue
            raise RuntimeError(FREED)
        edges = node._edges
        op = node.op
        if changed_in_place[0] and (node._dirty is not None or op.name in _READS):
            check_saved(node)
        lane = False
        if recorder is not None:
            got = recorder.rule(node, g)
        else:
            rule = op.fast
            scalar = op.scalar          # float64 scalars: the engine's scalar-lane rule
            got = None if scalar is None or type(g) is not _F64 or type(node._out) is not _F64 \
                else scalar(g, node._in[0], node._in[1], node._out,
                            edges[0] is not None, edges[1] is not None)
            if got is not None:
                lane = True
            elif rule is None:
                got = general(node, g, True)
            elif len(edges) == 1:       # a one-input op's fast rule returns its cotangent itself
                got = (rule(node, g),)
            else:
                got = rule(node, g)
        if done is not None:
            done.append((node, lane))
        elif not retain:
            if op not in saves_nothing:
                node._in = node._out = node._saved = None
            elif not lane:              # (a scalar-rule node holds scalars: no shapes to keep)
                _keep_shapes(node)
        if not got:
            all_lead = False
            continue
        for e, ig in zip(edges, got):
            if e is None or ig is None:
                if e is not None:
                    all_lead = False
                continue
            prev = get(e)
            if prev is None:
                buffers[e] = ig
                push(heap, (-e._seq, e))
            else:
                buffers[e] = prev + ig
    if done:
        _free_leading_to(done, capture, all_lead)


# -- values saved for backward and changed in place since ------------------------------------
#: Set once any tensor has been changed in place: from then on each node's saved tensors are
#: checked before its rule runs.
changed_in_place = [False]


def _reads_other(node):
    """Mul, MatMul: each input is read for the other's gradient."""
    edges = node._edges
    return [i for i in (0, 1) if edges[1 - i] is not None]


def _reads_div(node):
    edges = node._edges
    if edges[0] is None and not hasattr(node._saved[0], "_requires_grad"):
        return ()       # number / tensor: PyTorch computes reciprocal(tensor) * number
    return ([0] if edges[1] is not None else []) + [1]


def _reads_first(node):
    return (0,)


def _reads_both(node):
    return (0, 1)


def _reads_remainder(node):
    return (0, 1) if node._edges[1] is not None else ()


#: Which saved inputs each op's rule reads, as PyTorch's derivatives save them (an input is
#: saved only when a gradient that needs it is wanted); ops not listed read none.
_READS = {
    "Mul": _reads_other, "MatMul": _reads_other, "RealDiv": _reads_div,
    "Pow": _reads_both, "TorchPow": _reads_both, "Maximum": _reads_both, "Minimum": _reads_both,
    "TorchMaximum": _reads_both, "TorchMinimum": _reads_both, "Atan2": _reads_both,
    "TorchAtan2": _reads_both, "FloorMod": _reads_remainder,
    **dict.fromkeys(("Sin", "Cos", "Asin", "Acos", "Atan", "Sinh", "Cosh", "Asinh", "Acosh",
                     "Atanh", "Log", "Log1p", "Abs", "Erf", "Square", "Softplus", "Prod", "Max",
                     "Min", "LogSumExp"), _reads_first),
}

#: Ops whose rules read their output (PyTorch saves the result): when that output is changed
#: in place, the node may not run.
SAVES_RESULT = frozenset(("Exp", "Expm1", "Sqrt", "Rsqrt", "Reciprocal", "Sigmoid", "Tanh",
                          "Tan", "Relu", "Softmax", "LogSoftmax", "Prod", "Max", "Min",
                          "LogSumExp"))

_CHANGED = ("one of the variables needed for gradient computation has been modified by an "
            "inplace operation: [{}], which {}, was changed in place after {} saved it. Hint: "
            "the operation that changed it is an in-place op (add_, mul_, x[i] = ..., fill_, "
            "+= ...) on it or on a view of it, after the forward pass that used it.")


def check_saved(node):
    """PyTorch's error if a tensor ``node``'s rule reads was changed in place after the node
    saved it (the node keeps the old values, but PyTorch would have read the new ones)."""
    name = type(node).__name__
    if node._dirty is not None:
        raise RuntimeError(_CHANGED.format(node._dirty, f"is output 0 of {name}", name))
    saved = node._saved if hasattr(node, "_saved") else None
    reads = _READS.get(node.op.name) if saved else None
    if reads is None:
        return
    for i in reads(node):
        t = saved[i] if i < len(saved) else None
        stamp = getattr(t, "_stamp", 0) if t is not None else 0
        if stamp and stamp > node._seq:
            raise RuntimeError(_CHANGED.format(describe(t), f"is input {i} of {name}", name))


def describe(t):
    """``torch.DoubleTensor [5, 5]``, as PyTorch names a tensor in this error."""
    try:
        kind = t.type()
    except Exception:  # noqa: BLE001  (an engine constant has no torch type)
        kind = "Tensor"
    return f"{kind} {list(np.shape(t._value))}"


#: Ops whose rules read only the shapes and dtypes of their values (PyTorch saves no tensor for
#: them, so a second backward pass through them works): after a pass their values give way to
#: placeholders of the same shape and dtype instead of being dropped.
_SAVES_NOTHING = frozenset(E.PRIMITIVES[name] for name in (
    "AddV2", "Sub", "Neg", "Sum", "Mean", "Reshape", "Transpose", "BroadcastTo", "StridedSlice",
    "Identity", "ConcatV2", "Cast"))


def _keep_shapes(node):
    for v in node._in:
        if type(v) is np.ndarray:
            break
    else:
        if type(node._out) is not np.ndarray:
            return          # NumPy scalars only: nothing large to let go of
    node._in = tuple([_placeholder(v) for v in node._in])
    node._out = _placeholder(node._out)


def _placeholder(v):
    if type(v) is not np.ndarray or v.ndim == 0:
        return v
    return np.broadcast_to(np.zeros((), v.dtype), v.shape)


class _Recorder:
    """Builds graph nodes for the ops the gradient rules run (``create_graph=True``).

    The rules run on engine tensors; ``_nodes_of`` maps each one that depends on something that
    requires grad to its graph node, for the duration of the backward pass only.
    """

    def __init__(self):
        self._nodes_of = {}

    def connect(self, g):
        """An engine tensor for a cotangent, its graph node noted if it has one."""
        e = edge(g)
        t = E.wrap(g._value)
        if e is not None:
            self._nodes_of[t] = e
        return t

    def _offer(self, op, inputs, outputs, attrs, enode):
        """The engine's recorder protocol: a graph node for an op application on a tensor that
        has one (else nothing); ``enode``, the engine's shared Node, is passed on untouched."""
        nodes_of = self._nodes_of
        for t in inputs:
            if t in nodes_of:
                break
        else:
            return enode
        if len(outputs) != 1:
            raise NotImplementedError(f"create_graph=True through the multi-output op "
                                      f"{op.name} is not supported")
        out = outputs[0]
        if out._value.dtype.kind not in "fc":
            return enode
        node = object.__new__(node_class(backward_name(op, inputs, attrs)))
        node.op = op
        node._in = tuple([t._value for t in inputs])
        node._out = out._value
        if attrs:
            node.attrs = attrs
        node._edges = tuple(nodes_of.get(t) for t in inputs)
        node._seq = _next_seq()
        nodes_of[out] = node
        return enode

    def rule(self, node, g):
        """Input cotangents of ``node`` by its tensor rule, recorded (inputs connected to the graph)."""
        nodes_of = self._nodes_of
        edges = node._edges
        inputs = []
        for v, e in zip(node._in, edges):
            c = E.wrap(v)
            if e is not None:
                nodes_of[c] = e
            inputs.append(c)
        out = E.wrap(node._out)
        nodes_of[out] = node
        view = E.Node(node.op, tuple(inputs), (out,), node.attrs)
        view.needs_grad = tuple([e is not None for e in edges])
        got = E.general_rule(view, g, False)
        if not got:
            return got
        return [None if x is None else (x if isinstance(x, E.EngineTensor) else
                                        E.wrap(np.asarray(x)[()])) for x in got]

    def node_of(self, t):
        """The graph node of an engine tensor made during the backward pass (None if none)."""
        return self._nodes_of.get(t)
