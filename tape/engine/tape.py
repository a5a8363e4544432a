"""GradientTape: recording op applications and sweeping them backwards.

Recording: a tape keeps ``_tracked`` (id -> tensor) for the tensors it watches and the outputs
of the ops it recorded, and ``_nodes``, the recorded applications in execution order (a
topological order). The backward sweep walks that list once, in reverse, keeping cotangents in
a dict keyed by tensor identity; it never recurses.
"""
from __future__ import annotations

import contextlib
import enum
import warnings
import weakref

import numpy as np

from . import nest
from .quiet import restore, silence
from .registry import _FAST_GRADIENTS, active_accumulators, gradient_rule, recording_tapes
from .tensor import Tensor, Variable, _assign_hooks, _wrap

#: Number of backward sweeps run so far (tests use it to prove Jacobians are vectorized).
sweep_count = 0

#: Tapes alive, so a Variable about to be assigned can protect the values they recorded.
_live_tapes: "weakref.WeakSet[GradientTape]" = weakref.WeakSet()


def _snapshot_before_assign(variable):
    """Before ``variable`` changes, give every tape that recorded ops on it a read of the old value.

    Recorded nodes then see the value they were computed with, and gradients still reach the
    variable through an identity node placed first on the tape (a leaf comes before its uses).
    """
    from .ops.math import identity
    from .registry import Node
    for t in list(_live_tapes):
        if id(variable) not in t._tracked or not t._nodes:
            continue
        snap = None
        for node in t._nodes:
            if node is not None and any(i is variable for i in node.inputs):
                if snap is None:
                    snap = _wrap(variable._value)
                node.inputs = tuple(snap if i is variable else i for i in node.inputs)
        if snap is not None:
            t._nodes.insert(0, Node(identity, (variable,), (snap,), {}))
            t._tracked[id(snap)] = snap


_assign_hooks.append(_snapshot_before_assign)


class UnconnectedGradients(enum.Enum):
    """What ``gradient`` returns for a source the target does not depend on."""

    NONE = "none"
    ZERO = "zero"


def _unconnected_mode(value) -> UnconnectedGradients:
    if isinstance(value, UnconnectedGradients):
        return value
    try:
        return UnconnectedGradients(value)
    except ValueError:
        raise ValueError(f"Unknown value for unconnected_gradients: {value!r}; use "
                         "UnconnectedGradients.NONE / 'none' or UnconnectedGradients.ZERO / 'zero'") \
            from None


def _warn_dtype(what, t, stacklevel=3):
    """Warn (pointing at the user's call) that an integer or bool tensor is not differentiable."""
    warnings.warn(f"The dtype of the {what} tensor must be floating (e.g. tape.float64) or complex "
                  f"to be differentiated, got {t.dtype.name}; its gradient is None.",
                  UserWarning, stacklevel=stacklevel)


class GradientTape:
    """Records operations for automatic differentiation, as ``tf.GradientTape`` does.

    Examples
    --------
    >>> x = tape.constant(3.0)
    >>> with tape.GradientTape() as g:
    ...     g.watch(x)
    ...     y = x * x
    >>> g.gradient(y, x)
    tape.Tensor(6.0, shape=(), dtype=float64)
    """

    def __init__(self, persistent: bool = False, watch_accessed_variables: bool = True):
        self._persistent = bool(persistent)
        self._watch_accessed = bool(watch_accessed_variables)
        self._tracked: dict = {}
        self._roots: set = set()             # ids of watched tensors (the sweep's possible sources)
        self._nodes: list = []
        self._watched_vars: dict = {}
        self._recording = False
        self._used = False
        _live_tapes.add(self)

    # -- context --------------------------------------------------------------------------
    def __enter__(self):
        if self._recording:
            raise RuntimeError("this GradientTape is already recording; tapes cannot be entered twice")
        self._push()
        return self

    def __exit__(self, *exc):
        if self._recording:
            self._pop()
        return False

    def _push(self):
        recording_tapes.append(self)
        self._recording = True

    def _pop(self):
        recording_tapes.remove(self)
        self._recording = False

    @contextlib.contextmanager
    def stop_recording(self):
        """Temporarily stop recording: ops run inside are not on this tape."""
        if not self._recording:
            raise RuntimeError("GradientTape.stop_recording() needs the tape to be recording; "
                               "call it inside the tape's `with` block")
        index = recording_tapes.index(self)
        self._pop()
        try:
            yield
        finally:
            recording_tapes.insert(index, self)
            self._recording = True

    def reset(self):
        """Forget everything recorded, as if the context were exited and entered again."""
        self._tracked = {}
        self._roots = set()
        self._nodes = []
        self._watched_vars = {}
        self._used = False

    # -- watching -------------------------------------------------------------------------
    def watch(self, tensor):
        """Track a tensor, Variable, or a nest of them so gradients can be taken with respect to it."""
        for t in nest.flatten(tensor):
            if not isinstance(t, Tensor):
                raise ValueError(f"GradientTape.watch: expected a Tensor or Variable, got "
                                 f"{type(t).__name__}; convert it first with tape.constant")
            if not t.dtype.is_differentiable:
                _warn_dtype("watched", t)
                continue
            self._track(t)

    def _track(self, t):
        self._tracked[id(t)] = t
        self._roots.add(id(t))
        if isinstance(t, Variable) and id(t) not in self._watched_vars:
            self._watched_vars[id(t)] = t

    def watched_variables(self):
        """The variables this tape watches, in order of first watch."""
        return tuple(self._watched_vars.values())

    def _accepts(self, inputs) -> bool:
        tracked = self._tracked
        hit = False
        for t in inputs:
            if id(t) in tracked:
                hit = True
            elif self._watch_accessed and type(t) is Variable and t._trainable \
                    and t._value.dtype.kind in "fc":
                self._track(t)
                hit = True
        return hit

    def _add(self, node):
        self._nodes.append(node)
        tracked = self._tracked
        for o in node.outputs:
            if o._value.dtype.kind in "fc":
                tracked[id(o)] = o

    # -- read-only view for tools (tape trace) -------------------------------------------
    def recorded_operations(self):
        """What this tape recorded, in execution order, as read-only ``RecordedOp`` records."""
        from .inspect import recorded_operations
        return recorded_operations(self)

    # -- gradients ------------------------------------------------------------------------
    def _begin_use(self, what):
        if self._used and not self._persistent:
            raise RuntimeError("A non-persistent GradientTape can only be used to compute one set "
                               f"of gradients (or jacobians); this {what} call is a second one. "
                               "Create the tape with GradientTape(persistent=True).")
        self._used = True
        if self._recording and not self._persistent:
            self._pop()      # as in TensorFlow: asking for gradients ends a non-persistent tape's recording

    def gradient(self, target, sources, output_gradients=None,
                 unconnected_gradients=UnconnectedGradients.NONE):
        """Gradient of ``target`` (summed over its elements and over a nest) with respect to ``sources``.

        The result has the structure of ``sources``; each gradient has its source's shape.
        ``output_gradients`` weights each target (a vector-Jacobian product).
        """
        mode = _unconnected_mode(unconnected_gradients)
        self._begin_use("gradient")
        targets = [target] if isinstance(target, Tensor) else nest.flatten(target)
        flat_sources = [sources] if isinstance(sources, Tensor) else nest.flatten(sources)
        for s in flat_sources:
            if not isinstance(s, Tensor):
                raise ValueError(f"GradientTape.gradient: sources must be Tensors or Variables, got "
                                 f"{type(s).__name__}")
        if output_gradients is not None:
            weights = nest.flatten(output_gradients)
            if len(weights) != len(targets):
                raise ValueError(f"GradientTape.gradient: {len(weights)} output_gradients for "
                                 f"{len(targets)} targets")
        else:
            weights = [None] * len(targets)

        seeds = {}
        for t, w in zip(targets, weights):
            if not isinstance(t, Tensor):
                raise ValueError(f"GradientTape.gradient: target must be a Tensor, got {type(t).__name__}")
            if t._value.dtype.kind not in "fc":
                _warn_dtype("target", t)
                continue
            if isinstance(t, Variable) and id(t) not in self._tracked and self._watch_accessed \
                    and t._trainable:
                self._track(t)      # reading a variable as the target watches it, as in TensorFlow
            if w is None:
                v = t._value
                seed = _wrap(v.dtype.type(1) if v.ndim == 0 else np.ones(v.shape, v.dtype))
            else:
                seed = w if isinstance(w, Tensor) else _wrap(np.asarray(w, t._value.dtype)[()])
                if seed.shape != t.shape:
                    raise ValueError(f"GradientTape.gradient: output_gradients shape "
                                     f"{tuple(seed.shape)} does not match target shape {tuple(t.shape)}")
            prev = seeds.get(id(t))
            seeds[id(t)] = seed if prev is None else prev + seed

        valid_sources = []
        for s in flat_sources:
            if s._value.dtype.kind in "fc":
                valid_sources.append(s)
            else:
                _warn_dtype("source", s)
        grads = self._sweep(seeds, valid_sources, 0)
        results = [self._finish(s, grads.get(id(s)), mode, ()) for s in flat_sources]
        self._release()
        if isinstance(sources, Tensor):
            return results[0]
        return nest.pack_sequence_as(sources, results)

    def _finish(self, source, g, mode, batch_shape):
        if g is None or source._value.dtype.kind not in "fc":
            if mode is UnconnectedGradients.ZERO:
                return _wrap(np.zeros(tuple(batch_shape) + source._value.shape, source._value.dtype)[()])
            return None
        want = tuple(batch_shape) + source._value.shape
        if g._value.shape != want:
            from .broadcast import unbroadcast
            g = unbroadcast(g, source._value.shape, len(batch_shape))
        if g._value.dtype != source._value.dtype:
            from .ops.math import cast
            g = cast(g, source.dtype)
        return g

    def _release(self):
        if not self._persistent:
            self._nodes = []
            self._tracked = {}
            self._roots = set()

    def _sweep(self, seeds: dict, sources, nb: int) -> dict:
        # Singular points give inf/nan in the result itself; NumPy's warnings about the
        # intermediate steps of rules would only be noise.
        token = silence()
        try:
            return self._sweep_inner(seeds, sources, nb)
        finally:
            restore(token)

    def _sweep_inner(self, seeds: dict, sources, nb: int) -> dict:
        """Reverse sweep from ``seeds`` (id -> cotangent) to ``sources``; returns id -> gradient.

        When no tape records the sweep itself, cotangents stay raw NumPy values and rules with a
        ``fast`` variant run on them directly; otherwise every rule runs on tensors, recorded.
        """
        global sweep_count
        sweep_count += 1
        tracked = self._tracked
        source_ids = {id(s) for s in sources if id(s) in tracked}
        nodes = self._nodes[:]               # a persistent tape may record this very sweep
        # which tensors depend on a source (only those need cotangents): everything tracked when
        # every watched tensor is a source (the usual case), else a forward pass over the nodes
        if self._roots <= source_ids:
            relevant = tracked
        else:
            relevant = set(source_ids)
            add = relevant.add
            for node in nodes:
                if node is None:
                    continue
                for i in node.inputs:
                    if id(i) in relevant:
                        for o in node.outputs:
                            add(id(o))
                        break
        fast = not recording_tapes and not active_accumulators   # accumulators need tensor rules
        if fast:
            grads = {k: v._value for k, v in seeds.items() if k in relevant}
        else:
            grads = {k: v for k, v in seeds.items() if k in relevant}
        free = not self._persistent
        own = self._nodes
        if free:
            # A non-persistent tape lets go of each node once it is processed; drop the strong
            # references of the tracked-tensor table now, so intermediate arrays die during the
            # sweep instead of after it (lower peak memory).
            if relevant is tracked:
                relevant = set(tracked)
            self._tracked = tracked = {}
            del seeds
        for index in range(len(nodes) - 1, -1, -1):
            if not grads:
                break
            node = nodes[index]
            if node is None:
                continue
            outs = node.outputs
            if len(outs) == 1:
                key = id(outs[0])
                g = grads.pop(key, None) if key not in source_ids else grads.get(key)
                if g is None:
                    continue
                out_grads = (g,)
            else:
                got = [grads.get(id(o)) for o in outs]
                if all(x is None for x in got):
                    continue
                for o in outs:
                    if id(o) not in source_ids:
                        grads.pop(id(o), None)
                out_grads = _fill_missing(got, outs, fast)
            inputs = node.inputs
            if len(inputs) == 2:
                node.needs_grad = (id(inputs[0]) in relevant, id(inputs[1]) in relevant)
            elif len(inputs) == 1:
                node.needs_grad = (True,)
            else:
                node.needs_grad = tuple([id(i) in relevant for i in inputs])
            if fast:
                rule = None if node.op.custom_grad is not None else _FAST_GRADIENTS.get(node.op.name)
                if rule is not None:
                    in_grads = rule(node, *out_grads)
                else:
                    in_grads = _tensor_rule_on_arrays(node, out_grads)
                    if in_grads is _NO_RULE:
                        continue
            else:
                rule = gradient_rule(node)
                if rule is None:
                    continue
                in_grads = rule(node, *out_grads)
            if free:
                nodes[index] = None
                own[index] = None
            if in_grads is None:
                continue
            if not isinstance(in_grads, (list, tuple)):
                in_grads = (in_grads,)
            if len(in_grads) != len(node.inputs):
                raise ValueError(f"gradient rule for {node.op.name} returned {len(in_grads)} "
                                 f"gradients for {len(node.inputs)} inputs")
            for inp, ig, need in zip(node.inputs, in_grads, node.needs_grad):
                if ig is None or not need:
                    continue
                if not fast and not isinstance(ig, Tensor):
                    ig = _wrap(np.asarray(ig)[()])
                key = id(inp)
                prev = grads.get(key)
                grads[key] = ig if prev is None else prev + ig
        if fast:
            return {k: _wrap(grads[k]) for k in source_ids if k in grads}
        return {k: grads[k] for k in source_ids if k in grads}

    # -- Jacobians ------------------------------------------------------------------------
    def jacobian(self, target, sources, unconnected_gradients=UnconnectedGradients.NONE,
                 parallel_iterations=None, experimental_use_pfor=True):
        """Jacobian of ``target`` with respect to each source: shape ``target.shape + source.shape``.

        Computed in one backward sweep that carries a batch of cotangents (an identity), or in
        chunks of ``parallel_iterations`` rows.
        """
        from .jacobian import tape_jacobian
        return tape_jacobian(self, target, sources, unconnected_gradients, parallel_iterations,
                             experimental_use_pfor)

    def batch_jacobian(self, target, source, unconnected_gradients=UnconnectedGradients.NONE,
                       parallel_iterations=None, experimental_use_pfor=True):
        """Per-example Jacobians: ``[b, y...] x [b, x...] -> [b, y..., x...]``.

        Assumes example i of the target depends only on example i of the source.
        """
        from .jacobian import tape_batch_jacobian
        return tape_batch_jacobian(self, target, source, unconnected_gradients,
                                   parallel_iterations, experimental_use_pfor)


_NO_RULE = object()


def _tensor_rule_on_arrays(node, out_grads):
    """Run a node's tensor rule on raw cotangents (ops without a fast rule); raw results back."""
    rule = gradient_rule(node)
    if rule is None:
        return _NO_RULE
    got = rule(node, *[_wrap(x) for x in out_grads])
    if got is None:
        return None
    if not isinstance(got, (list, tuple)):
        got = (got,)
    return [None if x is None else (x._value if isinstance(x, Tensor) else np.asarray(x)[()])
            for x in got]


def _fill_missing(got, outs, raw):
    """Zeros for the outputs of a multi-output op that received no cotangent."""
    bshape = _batch_shape(got, outs)
    filled = []
    for x, o in zip(got, outs):
        if x is None:
            x = np.zeros(bshape + o._value.shape, o._value.dtype)[()]
            x = x if raw else _wrap(x)
        filled.append(x)
    return tuple(filled)


def _batch_shape(got, outs):
    for g, o in zip(got, outs):
        if g is not None:
            return tuple(g.shape[:g.ndim - o.ndim])
    return ()
