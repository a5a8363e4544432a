"""GradientTape: recording op applications and sweeping them backwards.

Recording: a tape keeps ``_tracked``, the tensors it watches and the outputs of the ops it
recorded, and ``_log``, the recorded applications in execution order (a topological order):
Nodes, and plain tuples for arithmetic on float64 scalars (the scalar lane, lane.py), which
``_nodes`` turns into Nodes for every reader but the first-order sweep. The backward sweep
(sweep.py) walks that list once, in reverse, keeping cotangents in a dict; it never recurses.
Tensors are their own dict keys: their hash is identity (``object.__hash__``, in C), so a
lookup never calls ``Tensor.__eq__`` and costs no ``id()`` call.
"""
from __future__ import annotations

import contextlib
import _thread         # (not threading: its import would cost every start of the command line)
import enum
import warnings
import weakref

import numpy as np

from . import nest
from .lane import as_node
from .quiet import restore, silence
from .inspect import recorded_operations
from .jacobian import BatchIdentityRows, IdentityRows, chunks
from .ops.array import concat, identity, reshape, transpose, unbroadcast
from .ops.cast import cast
from .registry import _NO_ATTRS, Node, is_recording, start_recording, stop_recording
from .structural import StructuralZeros, unmarked
from .sweep import depending_on, sweep_raw, sweep_tensors
from .tensor import Tensor, Variable, _assign_hooks, _wrap

_FLOAT64 = np.float64
_new_node = object.__new__
_ONE_F64 = np.float64(1.0)

#: Number of backward sweeps run so far (tests use it to prove Jacobians are vectorized).
sweep_count = 0

#: Tapes alive, so a Variable about to be assigned can protect the values they recorded.
#: Weak references without callbacks (a WeakSet's callback would run at every tape's death);
#: dead ones are dropped when the list has doubled since the last clean-up.
_live_tapes: list = []
_live_tapes_kept = [64]
_live_tapes_lock = _thread.allocate_lock()


def _register_live(tape):
    _live_tapes.append(weakref.ref(tape))       # (one atomic step)
    if len(_live_tapes) > _live_tapes_kept[0]:
        with _live_tapes_lock:                  # one clean-up at a time
            # the first n entries are replaced in one step: appends made meanwhile by other
            # threads sit after them and are kept
            n = len(_live_tapes)
            _live_tapes[:n] = [r for r in _live_tapes[:n] if r() is not None]
            _live_tapes_kept[0] = max(64, 2 * len(_live_tapes))


def _snapshot_before_assign(variable):
    """Before ``variable`` changes, give every tape that recorded ops on it a read of the old value.

    Recorded nodes then see the value they were computed with, and gradients still reach the
    variable through an identity node placed first on the tape (a leaf comes before its uses).
    """
    for ref in list(_live_tapes):
        t = ref()
        if t is None or variable not in t._tracked or not t._log:
            continue
        snap = None
        for node in t._nodes:
            if any(i is variable for i in node.inputs):
                if snap is None:
                    snap = _wrap(variable._value)
                node.inputs = tuple(snap if i is variable else i for i in node.inputs)
        if snap is not None:
            t._nodes.insert(0, Node(identity, (variable,), (snap,), {}))
            t._tracked[snap] = None


_assign_hooks.append(_snapshot_before_assign)


class UnconnectedGradients(enum.Enum):
    """What ``gradient`` returns for a source the target does not depend on."""

    NONE = "none"
    ZERO = "zero"


def unconnected_mode(value) -> UnconnectedGradients:
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
        self._roots: set = set()             # watched tensors (the sweep's possible sources)
        self._log: list = []
        self._watched_vars: dict = {}
        self._recording = False
        self._used = False
        _register_live(self)

    # -- context --------------------------------------------------------------------------
    def __enter__(self):
        if self._recording:
            raise ValueError("this GradientTape is already recording; tapes cannot be entered twice")
        start_recording(self)
        self._recording = True
        return self

    def __exit__(self, *exc):
        if self._recording:
            self._pop()
        return False

    def _pop(self):
        stop_recording(self)
        self._recording = False

    @contextlib.contextmanager
    def stop_recording(self):
        """Temporarily stop recording: ops run inside are not on this tape."""
        if not self._recording:
            raise RuntimeError("GradientTape.stop_recording() needs the tape to be recording; "
                               "call it inside the tape's `with` block")
        index = stop_recording(self)
        self._recording = False
        try:
            yield
        finally:
            start_recording(self, index=index)
            self._recording = True

    def reset(self):
        """Forget everything recorded, as if the context were exited and entered again."""
        self._tracked = {}
        self._roots = set()
        self._log = []
        self._watched_vars = {}
        self._used = False

    # -- watching -------------------------------------------------------------------------
    def watch(self, tensor):
        """Track a tensor, Variable, or a nest of them so gradients can be taken with respect to it."""
        for t in (tensor,) if isinstance(tensor, Tensor) else nest.flatten(tensor):
            if not isinstance(t, Tensor):
                raise ValueError(f"GradientTape.watch: expected a Tensor or Variable, got "
                                 f"{type(t).__name__}; convert it first with tape.constant")
            if t._value.dtype.kind not in "fc":
                _warn_dtype("watched", t)
                continue
            self._track(t)

    def _track(self, t):
        self._tracked[t] = None
        self._roots.add(t)
        if isinstance(t, Variable) and t not in self._watched_vars:
            self._watched_vars[t] = None

    def watched_variables(self):
        """The variables this tape watches, in the order they were created (as TensorFlow)."""
        return tuple(sorted(self._watched_vars, key=lambda v: v._serial))

    def _offer(self, op, inputs, outputs, attrs, node):
        """The recorder protocol (see ``registry.record``): keep an op application that reads a
        watched tensor (or a trainable variable, watched on first read), with its outputs."""
        tracked = self._tracked
        hit = False
        for t in inputs:
            if t in tracked:
                hit = True
            elif type(t) is Variable and self._watch_accessed and t._trainable \
                    and t._value.dtype.kind in "fc":
                self._track(t)      # (only ops of the thread that entered the tape come here)
                hit = True
        if not hit:
            return node
        if node is None:
            node = _new_node(Node)          # Node(...) without the __init__ call: the hot path
            node.op = op
            node.inputs = inputs
            node.outputs = outputs
            node.attrs = attrs
            node.needs_grad = None
        self._log.append(node)
        if len(outputs) == 1:
            o = outputs[0]
            v = o._value
            if type(v) is _FLOAT64 or v.dtype.kind in "fc":
                tracked[o] = None
            return node
        for o in outputs:
            v = o._value
            if type(v) is _FLOAT64 or v.dtype.kind in "fc":
                tracked[o] = None
        return node

    def _offer_pair(self, op, a, b, result):
        """``_offer`` of a two-input application without attributes (``registry._solo``). One
        with a float64 scalar output and a scalar rule goes to the scalar lane: the tuple
        ``(op, a, b, result)`` instead of a Node (lane.py); any other is offered as usual."""
        if type(result._value) is not _FLOAT64 or op.scalar is None:
            self._offer(op, (a, b), (result,), _NO_ATTRS, None)
            return
        tracked = self._tracked
        if a in tracked:
            if type(b) is Variable and b not in tracked:
                self._read(b)
        elif b in tracked:
            if type(a) is Variable:
                self._read(a)
        elif not ((type(a) is Variable and self._read(a)) |     # (both: each variable read
                  (type(b) is Variable and self._read(b))):     # is watched)
            return
        self._log.append((op, a, b, result))
        tracked[result] = None

    def _read(self, t) -> bool:
        """Watch the Variable ``t`` if the tape watches it on this first read (trainable, float)."""
        if self._watch_accessed and t._trainable and t._value.dtype.kind in "fc":
            self._track(t)
            return True
        return False

    @property
    def _nodes(self) -> list:
        """The recorded applications as Nodes, in execution order (lane entries are made Nodes
        in place, once)."""
        log = self._log
        for i, entry in enumerate(log):
            if type(entry) is tuple:
                log[i] = as_node(entry)
        return log

    # -- read-only view for tools (tape trace) -------------------------------------------
    def recorded_operations(self):
        """What this tape recorded, in execution order, as read-only ``RecordedOp`` records."""
        return recorded_operations(self._nodes)

    # -- gradients ------------------------------------------------------------------------
    def _begin_use(self, what):
        if self._used and not self._persistent:
            # TensorFlow's wording first: its tests (and users' code) match the start of it
            raise RuntimeError("A non-persistent GradientTape can only be used to compute one "
                               f"set of gradients (or jacobians): GradientTape.{what} can only "
                               "be called once on it, and this tape has already been used. To "
                               "compute several, create the tape with "
                               "GradientTape(persistent=True) (and `del` it when done), or run "
                               "the computation again under a new tape.")
        self._used = True
        if self._recording and not self._persistent:
            self._pop()      # as in TensorFlow: asking for gradients ends a non-persistent tape's recording

    def gradient(self, target, sources, output_gradients=None,
                 unconnected_gradients=UnconnectedGradients.NONE):
        """Gradient of ``target`` (summed over its elements and over a nest) with respect to ``sources``.

        The result has the structure of ``sources``; each gradient has its source's shape.
        ``output_gradients`` weights each target (a vector-Jacobian product).
        """
        if self._used or (self._recording and not self._persistent):
            self._begin_use("gradient")      # the tape's state first, then the arguments
        mode = unconnected_gradients if type(unconnected_gradients) is UnconnectedGradients \
            else unconnected_mode(unconnected_gradients)
        self._used = True
        single = isinstance(sources, Tensor)
        flat_sources = (sources,) if single else nest.flatten(sources)
        if single and type(sources._value) is _FLOAT64:
            valid_sources = flat_sources
        else:
            valid_sources = []
            for s in flat_sources:
                if not isinstance(s, Tensor):
                    raise ValueError(f"GradientTape.gradient: sources must be Tensors or "
                                     f"Variables, got {type(s).__name__}")
                v = s._value
                if type(v) is _FLOAT64 or v.dtype.kind in "fc":
                    valid_sources.append(s)
                else:
                    _warn_dtype("source", s)
        if output_gradients is None and isinstance(target, Tensor):
            if type(target._value) is _FLOAT64 and target in self._tracked:
                seeds = {target: _ONE_F64}      # the common scalar case, in short (a raw seed)
            else:
                seeds = self._seeds((target,), (None,))
        else:
            targets = [target] if isinstance(target, Tensor) else nest.flatten(target)
            if output_gradients is None:
                weights = [None] * len(targets)
            else:
                weights = nest.flatten(output_gradients)
                if len(weights) != len(targets):
                    raise ValueError(f"GradientTape.gradient: {len(weights)} output_gradients for "
                                     f"{len(targets)} targets")
            seeds = self._seeds(targets, weights)
        grads = self._sweep(seeds, valid_sources, 0)
        if not self._persistent:
            self._release()
        if single:
            g = grads.get(sources)
            if g is not None and type(g._value) is _FLOAT64 and type(sources._value) is _FLOAT64:
                return g                # the scalar case: nothing to reshape or cast
            return self._finish(sources, g, mode, ())
        result = [self._finish(s, grads.get(s), mode, ()) for s in flat_sources]
        return nest.pack_sequence_as(sources, result)

    def _seeds(self, targets, weights) -> dict:
        """target -> the cotangent it starts the sweep with: ones (a raw NumPy value), or its
        output gradient (a tensor)."""
        seeds = {}
        for t, w in zip(targets, weights):
            if not isinstance(t, Tensor):
                raise ValueError(f"GradientTape.gradient: target must be a Tensor, got {type(t).__name__}")
            v = t._value
            if type(v) is not _FLOAT64 and v.dtype.kind not in "fc":
                _warn_dtype("target", t, 4)
                continue
            if type(t) is Variable and t not in self._tracked and self._watch_accessed \
                    and t._trainable:
                self._track(t)      # reading a variable as the target watches it, as in TensorFlow
            if w is None:                   # ones, raw (see _sweep)
                seed = _ONE_F64 if type(v) is _FLOAT64 else \
                    v.dtype.type(1) if v.ndim == 0 else np.ones(v.shape, v.dtype)
            else:
                seed = w if isinstance(w, Tensor) else _wrap(np.asarray(w, v.dtype)[()])
                if v.dtype.kind == "c" and seed._value.dtype.kind != "c":
                    seed = cast(seed, v.dtype)      # a complex value's cotangent is complex
                if seed.shape != t.shape:
                    raise ValueError(f"GradientTape.gradient: output_gradients shape "
                                     f"{tuple(seed.shape)} does not match target shape {tuple(t.shape)}")
            prev = seeds.get(t)
            seeds[t] = seed if prev is None else prev + seed
        return seeds

    def _finish(self, source, g, mode, batch_shape):
        if g is None or (type(source._value) is not _FLOAT64 and source._value.dtype.kind not in "fc"):
            if mode is UnconnectedGradients.ZERO:
                return _wrap(np.zeros(tuple(batch_shape) + source._value.shape, source._value.dtype)[()])
            return None
        gv, sv = g._value, source._value
        if type(gv) is _FLOAT64 and type(sv) is _FLOAT64:
            return g                    # the scalar case: nothing to reshape or cast
        want = tuple(batch_shape) + source._value.shape
        if g._value.shape != want:
            g = unbroadcast(g, source._value.shape, len(batch_shape))
        if g._value.dtype != source._value.dtype:
            g = cast(g, source.dtype)
        return g

    def _release(self):
        if not self._persistent:
            self._log = []
            self._tracked = {}
            self._roots = set()

    def _sweep(self, seeds: dict, sources, nb: int, keep: bool = False) -> dict:
        """Reverse sweep from ``seeds`` (tensor -> cotangent: a Tensor, or a raw NumPy value) to
        ``sources``; returns source -> gradient.
        ``keep``: leave the nodes on a non-persistent tape for another sweep (Jacobian chunks).

        When no tape records the sweep itself, cotangents stay raw NumPy values and rules with a
        ``fast`` variant run on them directly; otherwise every rule runs on tensors, recorded.
        """
        global sweep_count
        sweep_count += 1
        tracked = self._tracked
        wanted = set()
        for s in sources:
            if s in tracked:
                wanted.add(s)
        free = not (self._persistent or keep)
        raw = not is_recording()    # accumulators need tensor rules too
        # A persistent tape may record this very sweep, so it walks a copy; a non-persistent one
        # stopped recording in _begin_use and lets go of each node once it is processed. Only
        # the first-order sweep reads lane entries; tensor rules get Nodes.
        log = self._log if raw else self._nodes
        nodes = log if free else log[:]
        if free:
            self._log = []
        # which tensors depend on a source (only those need cotangents): everything tracked when
        # every watched tensor is a source (the usual case), else a forward pass over the nodes
        relevant = tracked if self._roots <= wanted else depending_on(wanted, nodes)
        grads = {}
        for k, v in seeds.items():
            if k in relevant:
                if isinstance(v, Tensor):
                    grads[k] = v._value if raw else v
                else:
                    grads[k] = v if raw else _wrap(v)
        del seeds
        # Singular points give inf/nan in the result itself; NumPy's warnings about the
        # intermediate steps of rules would only be noise.
        token = silence()
        try:
            if raw:
                grads = sweep_raw(nodes, grads, wanted, relevant, free)
            else:
                grads = sweep_tensors(nodes, grads, wanted, relevant, free)
        finally:
            restore(token)
        result = {}
        for k in wanted:
            g = grads.get(k)
            if g is not None:
                if raw:
                    g = _wrap(g if type(g) is not StructuralZeros else unmarked(g))
                elif type(g._value) is StructuralZeros:
                    g._value = unmarked(g._value)       # (the same numbers)
                result[k] = g
        return result

    # -- Jacobians ------------------------------------------------------------------------
    def jacobian(self, target, sources, unconnected_gradients=UnconnectedGradients.NONE,
                 parallel_iterations=None, experimental_use_pfor=True):
        """Jacobian of ``target`` with respect to each source: shape ``target.shape + source.shape``.

        Computed in one backward sweep that carries a batch of cotangents (an identity), or in
        chunks of ``parallel_iterations`` rows.
        """
        self._check_usable("jacobian")
        mode = unconnected_mode(unconnected_gradients)
        _check_target(target, "jacobian")
        flat = _flat_sources(sources, "jacobian")
        rows = IdentityRows(target)
        grads = self._batched_gradients(target, flat, rows, parallel_iterations,
                                        experimental_use_pfor, "jacobian")
        results = []
        for s, g in zip(flat, grads):
            shape = rows.shape + tuple(s._value.shape)
            results.append(_zeros_or_none(shape, s._value.dtype, mode) if g is None else reshape(g, shape))
        return nest.pack_sequence_as(sources, results)

    def batch_jacobian(self, target, source, unconnected_gradients=UnconnectedGradients.NONE,
                       parallel_iterations=None, experimental_use_pfor=True):
        """Per-example Jacobians: ``[b, y...] x [b, x...] -> [b, y..., x...]``.

        Assumes example i of the target depends only on example i of the source. An unconnected
        target gives zeros of the target's dtype, as in TensorFlow, whatever
        ``unconnected_gradients`` says.
        """
        self._check_usable("batch_jacobian")
        unconnected_mode(unconnected_gradients)
        _check_target(target, "batch_jacobian")
        if not isinstance(source, Tensor):
            raise ValueError(f"batch_jacobian: source must be a single Tensor, got {type(source).__name__}")
        for name, t in (("target", target), ("source", source)):
            if t.ndim < 2:
                raise ValueError(f"batch_jacobian: {name} shape {tuple(t.shape)} must have rank at least 2 "
                                 "(a batch dimension and at least one more)")
        if target.shape[0] != source.shape[0]:
            raise ValueError(f"batch_jacobian: Need first dimension of target shape {tuple(target.shape)} "
                             f"and source shape {tuple(source.shape)} to match")
        rows = BatchIdentityRows(target)
        (g,) = self._batched_gradients(target, [source], rows, parallel_iterations,
                                       experimental_use_pfor, "batch_jacobian")
        shape = (rows.b,) + rows.inner + tuple(source._value.shape[1:])
        if g is None:
            return _wrap(np.zeros(shape, target._value.dtype))
        # g: (n_inner, b, x...) -> (b, n_inner, x...) -> (b, y..., x...)
        perm = (1, 0) + tuple(range(2, g.ndim))
        return reshape(transpose(g, perm), shape)

    def _check_usable(self, what):
        """The tape's state is checked before the arguments, as TensorFlow does."""
        if self._used and not self._persistent:
            self._begin_use(what)             # raises the RuntimeError

    def _batched_gradients(self, target, flat_sources, seed_rows, parallel_iterations, use_pfor,
                           what):
        """Rows of cotangents ``seed_rows(start, stop)`` pushed back to each source; None if
        unconnected. The nodes stay alive between chunks and are released after the last."""
        n = seed_rows.n
        self._begin_use(what)
        if not use_pfor:
            if not self._persistent:
                raise RuntimeError(f"GradientTape.{what} with experimental_use_pfor=False runs one "
                                   "sweep per output element and needs GradientTape(persistent=True)")
            parts_of = [(i, i + 1) for i in range(n)]
        else:
            parts_of = chunks(n, parallel_iterations)
        valid = [s for s in flat_sources if s.dtype.is_differentiable]
        keep = len(parts_of) > 1
        parts = [[] for _ in flat_sources]
        for start, stop in parts_of:
            seed = seed_rows(start, stop)
            grads = self._sweep({target: seed}, valid, 1, keep) if target.dtype.is_differentiable else {}
            for k, s in enumerate(flat_sources):
                g = grads.get(s)
                parts[k].append(None if g is None else
                                self._finish(s, g, UnconnectedGradients.NONE, (stop - start,)))
        self._release()
        out = []
        for k, s in enumerate(flat_sources):
            if not parts_of:              # a zero-size target: an empty Jacobian, as with pfor
                out.append(_wrap(np.zeros((0,) + s._value.shape, s._value.dtype)))
                continue
            if all(p is None for p in parts[k]):
                out.append(None)
                continue
            rows = [p._value if p is not None else
                    np.zeros((stop - start,) + s._value.shape, s._value.dtype)
                    for p, (start, stop) in zip(parts[k], parts_of)]
            if len(rows) == 1:
                out.append(parts[k][0] if parts[k][0] is not None else _wrap(rows[0]))
            else:
                out.append(concat([p if p is not None else _wrap(r) for p, r in zip(parts[k], rows)], 0))
        return out


def _check_target(target, what):
    if not isinstance(target, Tensor):
        raise ValueError(f"{what}: target must be a single Tensor, got {type(target).__name__}")


def _flat_sources(sources, what):
    flat = nest.flatten(sources)
    for s in flat:
        if not isinstance(s, Tensor):
            raise ValueError(f"{what}: sources must be Tensors or Variables, got {type(s).__name__}")
    return flat


def _zeros_or_none(shape, dtype, mode):
    if mode is UnconnectedGradients.ZERO:
        return _wrap(np.zeros(shape, dtype)[()])
    return None


@contextlib.contextmanager
def nested_tapes(sources, depth, persistent=False):
    """``depth`` GradientTapes entered one inside the other, each watching ``sources``.

    Yields an iterator over the tapes, innermost first: each is stopped just before it is handed
    out, so its ``gradient``/``jacobian`` is recorded by the tapes still outside it -- the k-th
    one differentiates what the one before it produced, giving derivatives of order 1..depth.
    Every tape is stopped on leaving the block.

    >>> x = tape.constant(0.5)
    >>> with nested_tapes(x, 2) as levels:
    ...     d = x ** 3
    ...     for t in levels:
    ...         d = t.gradient(d, x)
    >>> float(d)
    3.0
    """
    entered = []

    def innermost_first():
        while entered:
            t = entered.pop()
            t.__exit__(None, None, None)
            yield t
    try:
        for _ in range(depth):
            t = GradientTape(persistent=persistent)
            t.watch(sources)
            t.__enter__()
            entered.append(t)
        yield innermost_first()
    finally:
        while entered:
            entered.pop().__exit__(None, None, None)
