"""Primitives and their gradient rules.

Every op of the engine is a ``Primitive``: a NumPy forward function plus a name under which its
gradient rule is registered. Calling a primitive converts its tensor arguments, runs the NumPy
function and, only when a tape is recording, offers the call to the recording tapes.
"""
from __future__ import annotations

import _thread         # (not threading: its import would cost every start of the command line)
import itertools
import weakref

import numpy as np

from . import tensor as _tensor_module
from .tensor import Tensor, _to_array, _wrap

#: Every recorder active in any thread (see ``record`` for their protocol): tapes and other graph
#: recorders in ``recording_tapes``, ForwardAccumulators in ``active_accumulators``. Ops test
#: only whether either is non-empty (one cheap check while nothing records anywhere); ``record``
#: then offers the op to the calling thread's own recorders, ``_Recorders.lists``.
recording_tapes: list = []
active_accumulators: list = []


class _Recorders(_thread._local):
    """The calling thread's recorders, in order: ``lists = (tapes, accumulators)``. Tapes
    innermost last; accumulators outermost first: they see an op after every tape has, so tapes
    also record the tangent computation (reverse-over-forward). An op run by one thread is never
    offered to another thread's recorders, as TensorFlow's tapes are thread-local; reading them
    costs one thread-local lookup per recorded op, except on the ``_solo`` path."""

    def __init__(self):
        self.lists = ([], [])
        # ``alive`` dies with its thread: then ``_solo`` forgets the thread's recorder, so that a
        # thread given the same identity later does not find it
        self.alive = alive = _ThreadAlive()
        self.key = (_get_ident(), weakref.ref(alive, _thread_ended))


class _ThreadAlive:
    __slots__ = ("__weakref__",)


_get_ident = _thread.get_ident
#: ``(thread identity, recorder._offer, offer_pair)`` of one thread whose lists hold a single
#: tape and no accumulator (the usual program: one tape at a time), else None. Ops of that
#: thread offer themselves to it directly: one identity test instead of a thread-local lookup.
#: ``offer_pair(op, a, b, output)`` is the same offer for a two-input op without attributes
#: (a tape's ``_offer_pair``, which may keep the application in its scalar lane). Only a thread
#: sets it, for itself, after changing its own lists; every change of a thread's lists clears
#: it if it is that thread's. None is always safe (ops take the thread-local path).
_solo = None


def _lists_changed(lists, ident):
    """Keep ``_solo`` true after a change of thread ``ident``'s recorder lists."""
    global _solo
    tapes, accumulators = lists
    if len(tapes) == 1 and not accumulators and ident == _get_ident():
        try:
            recorder = tapes[0]
            _solo = (ident, recorder._offer, _pair_offer(recorder))
        except IndexError:      # emptied by another thread meanwhile
            _solo = None
            return
        # a stop from another thread may have changed the lists meanwhile: either it sees
        # the value just set and clears it, or this second look sees its change
        if len(tapes) != 1 or accumulators:
            _solo = None
        return
    solo = _solo
    if solo is not None and solo[0] == ident:
        _solo = None


def _pair_offer(recorder):
    """``recorder``'s offer of a two-input application (see ``_solo``)."""
    pair = getattr(recorder, "_offer_pair", None)
    if pair is not None:
        return pair
    offer = recorder._offer
    return lambda op, a, b, result: offer(op, (a, b), (result,), _NO_ATTRS, None)


def _thread_ended(_ref):
    global _solo
    _solo = None        # (its recorder, if any, stays active in no thread: nothing to offer to)


_recorders = _Recorders()

#: Stamps given to recorders as they start (``recorder._entry``): who is nested inside whom.
_entries = itertools.count()

_GRADIENTS: dict = {}
#: Optional first-order rules on raw NumPy values, used only when no tape records the backward
#: sweep (so nothing needs to be differentiable again); same signature, arrays in and out.
_FAST_GRADIENTS: dict = {}
#: Optional first-order rules of two-input ops on NumPy scalars, for the tapes' scalar lane
#: (see ``scalar_rule``); dropped with the fast rule when the op's gradient is overridden.
_SCALAR_GRADIENTS: dict = {}
_NOT_DIFFERENTIABLE = object()
_SCALARS = (float, int, bool, complex)
_SCALARS_BY_VALUE: dict = {}    # float/complex dtype -> {number: tensor}
_SCALARS_BY_TYPE: dict = {}     # (type, number, int/bool dtype) -> tensor
_F64 = np.float64
#: The float64 entry of ``_SCALARS_BY_VALUE``, read directly by ``x * 2.0`` on a float64 scalar.
_F64_BY_VALUE = _SCALARS_BY_VALUE[np.dtype(_F64)] = {}
_NUMPY_VALUES = (np.ndarray, np.generic)
_new_tensor = object.__new__
#: The attrs of an op called without keyword arguments (shared: rules only read attrs).
_NO_ATTRS: dict = {}
#: Every primitive by name, so a later RegisterGradient / NotDifferentiable reaches them.
_PRIMITIVES: dict = {}
#: The names of the engine's own ops (``defop``), as opposed to users' ``primitive``s.
_BUILT_IN: set = set()


class Node:
    """One recorded op application, as a gradient rule sees it.

    Attributes: ``type`` (the op name), ``inputs`` and ``outputs`` (tuples of Tensors), ``attrs``
    (the op's keyword arguments) and, during the backward sweep, ``needs_grad`` (for each input,
    whether a gradient is wanted: rules may skip work for the others and return None there).
    """

    __slots__ = ("op", "inputs", "outputs", "attrs", "needs_grad")

    def __init__(self, op, inputs, outputs, attrs):
        self.op = op
        self.inputs = inputs
        self.outputs = outputs
        self.attrs = attrs
        self.needs_grad = None

    @property
    def type(self) -> str:
        return self.op.name

    name = type

    def __repr__(self):
        return f"<Node {self.op.name} inputs={len(self.inputs)} outputs={len(self.outputs)}>"


class Primitive:
    """A NumPy function turned into a recorded op (see ``primitive``).

    ``fast`` is the op's raw-NumPy first-order rule (None when it has none, or when its gradient
    was overridden), ``scalar`` its rule on NumPy scalars (``scalar_rule``; two-input ops only);
    ``nondiff`` says the tape need not record it. All three are kept in step with the registries
    by ``_refresh``, so recording and the sweep read one attribute instead of looking the op's
    name up.

    The other modes read their rules from the op object: ``jvp(node, *input_tangents)`` (forward
    mode) and ``taylor(node, input_series, K)`` (Taylor mode; ``tape.derivative`` through an op without
    one raises LookupError; ``input_series`` holds None for a constant input, and ``primitive``
    adapts a user's rule of SPEC section 7's form, ``rule(op, *coefficients, order)``, to it). Two declarations stand for rules not written out:
    ``linear`` (the op is linear in its inputs: its JVP is the op applied to the tangents, its
    Taylor rule the op applied to each coefficient) and ``symmetric`` (its Jacobian is symmetric,
    as an elementwise op's diagonal one: its JVP is its VJP applied to the tangent).
    """

    __slots__ = ("name", "fn", "n_outputs", "fast", "scalar", "nondiff", "_custom_grad", "jvp",
                 "taylor", "linear", "symmetric", "__dict__", "__weakref__")

    def __init__(self, fn, name, n_outputs=1, doc=None, *, jvp=None, taylor=None, linear=False,
                 symmetric=False):
        self.name = name
        self.fn = fn
        self.n_outputs = n_outputs          # 1, or "many" for a tuple of outputs
        self.jvp = jvp
        self.taylor = taylor
        self.linear = linear
        self.symmetric = symmetric
        self._custom_grad = None
        self.__doc__ = doc or getattr(fn, "__doc__", None)
        self.__wrapped__ = fn
        _PRIMITIVES.setdefault(name, weakref.WeakSet()).add(self)
        self._refresh()

    @property
    def custom_grad(self):
        """A gradient rule for this op object alone (``custom_gradient``), or None."""
        return self._custom_grad

    @custom_grad.setter
    def custom_grad(self, rule):
        self._custom_grad = rule
        self._refresh()

    def _refresh(self):
        custom = self._custom_grad is not None
        self.nondiff = not custom and _GRADIENTS.get(self.name) is _NOT_DIFFERENTIABLE
        self.fast = None if custom else _FAST_GRADIENTS.get(self.name)
        self.scalar = None if custom else _SCALAR_GRADIENTS.get(self.name)

    def __call__(self, *args, **attrs):
        inputs = convert_inputs(args)
        out = self.fn(*[t._value for t in inputs], **attrs)
        if self.n_outputs == 1:
            if not isinstance(out, _NUMPY_VALUES):
                out = np.asarray(out)
            result = _new_tensor(Tensor)
            result._value = out
            if recording_tapes or active_accumulators:
                record(self, inputs, (result,), attrs)
            return result
        else:
            outputs = tuple(_wrap(o if isinstance(o, (np.ndarray, np.generic)) else np.asarray(o))
                            for o in out)
        if recording_tapes or active_accumulators:
            record(self, inputs, outputs, attrs)
        return list(outputs)

    def __repr__(self):
        return f"<tape primitive {self.name}>"


class UnaryPrimitive(Primitive):
    """A one-input, one-output primitive with a shorter call path (most elementwise ops)."""

    __slots__ = ()

    def __call__(self, x, **attrs):
        if not isinstance(x, Tensor):
            x = _wrap(_to_array(x))
        out = self.fn(x._value, **attrs) if attrs else self.fn(x._value)
        if not isinstance(out, _NUMPY_VALUES):
            out = np.asarray(out)
        result = _new_tensor(Tensor)
        result._value = out
        solo = _solo
        if solo is not None and solo[0] == _get_ident():
            if not self.nondiff:
                solo[1](self, (x,), (result,), attrs, None)
        elif recording_tapes or active_accumulators:
            record(self, (x,), (result,), attrs)
        return result


class BinaryPrimitive(Primitive):
    """A two-input, one-output primitive (arithmetic) with the shortest call path of all.

    ``operator(a, b)`` and ``reflected(b, a)`` are plain functions, so they can be installed as a
    Tensor's ``__mul__`` / ``__rmul__`` and run without an extra call frame.
    """

    __slots__ = ()

    def __init__(self, fn, name, n_outputs=1, doc=None, **rules):
        super().__init__(fn, name, n_outputs, doc, **rules)
        self.operator, self.reflected = _binary_operators(self, fn)

    def __call__(self, a, b, **attrs):
        if not attrs:
            return self.operator(a, b)
        a, b = convert_inputs((a, b))
        out = self.fn(a._value, b._value, **attrs)
        result = _wrap(out if isinstance(out, _NUMPY_VALUES) else np.asarray(out))
        if recording_tapes or active_accumulators:
            record(self, (a, b), (result,), attrs)
        return result


def _binary_operators(op, fn):
    """``op(a, b)`` and ``op`` reflected (``b.__rmul__(a)``), without keyword arguments: the hottest
    path of the engine (every ``x * y``), written flat."""
    def operator(a, b):
        if isinstance(a, Tensor):
            va = a._value
            if isinstance(b, Tensor):
                vb = b._value
            elif type(b) in _SCALARS:
                # a float64 scalar times a cached number: no dtype lookup (see _scalar_like)
                t = _F64_BY_VALUE.get(b) if type(va) is _F64 and type(b) is not complex else None
                b = t if t is not None else _scalar_like(b, va.dtype)
                vb = b._value
            else:
                a, b = convert_inputs((a, b))
                va, vb = a._value, b._value
        else:       # tape.multiply(2.0, x) and the like (2.0 * x comes through `reflected`)
            a, b = convert_inputs((a, b))
            va, vb = a._value, b._value
        out = fn(va, vb)
        if type(out) is not _F64 and not isinstance(out, _NUMPY_VALUES):
            out = np.asarray(out)
        result = _new_tensor(Tensor)
        result._value = out
        solo = _solo
        if solo is not None and solo[0] == _get_ident():     # record_pair, inlined
            if not op.nondiff:
                solo[2](op, a, b, result)
        elif recording_tapes or active_accumulators:
            record(op, (a, b), (result,), _NO_ATTRS)
        return result

    def reflected(b, a):
        # Python calls b.__rxx__(a) only when a is not a Tensor: a Python number or an array-like
        if type(a) in _SCALARS:
            vb = b._value
            t = _F64_BY_VALUE.get(a) if type(vb) is _F64 and type(a) is not complex else None
            a = t if t is not None else _scalar_like(a, vb.dtype)
        return operator(a, b)
    return operator, reflected


# The two caches are shared by all threads: a race between two of them at most builds the same
# immutable tensor twice (dict reads and writes are atomic), so they need no lock.
def _scalar_like(value, ref):
    """A Python number as a tensor of dtype ``ref`` (NumPy's weak promotion for ints/bools).

    Cached: for a float or complex ``ref`` by the number alone (2, 2.0 and True give the same
    tensor there), else by (type, number). Zeros of a float ``ref`` and NaNs are never cached:
    -0.0 == 0 would hand back the wrong sign, and a NaN never finds itself.
    """
    by_value = _SCALARS_BY_VALUE.get(ref)
    if by_value is not None and type(value) is not complex:
        t = by_value.get(value)
        if t is not None:
            return t
    return _new_scalar(value, ref)


def _new_scalar(value, ref):
    exact = ref.kind in "fc"
    if not exact:
        key = (type(value), value, ref)
        t = _SCALARS_BY_TYPE.get(key)
        if t is not None:
            return t
    npd = ref if exact and type(value) is not complex else np.result_type(ref, value)
    t = _wrap(npd.type(value))
    if type(value) is complex or value != value:
        return t
    if exact:
        by_value = _SCALARS_BY_VALUE.setdefault(ref, {})
        if value != 0 and len(by_value) < 4096:
            by_value[value] = t
    elif (value != 0 or type(value) is not float) and len(_SCALARS_BY_TYPE) < 4096:
        _SCALARS_BY_TYPE[key] = t
    return t


def record(op, inputs, outputs, attrs):
    """Offer an op application to the calling thread's active recorders: first the tapes (and
    any other graph recorder), then the forward accumulators.

    The recorder protocol is one method, ``recorder._offer(op, inputs, outputs, attrs, node)``:
    the recorder keeps the application if it wants it (an input it tracks), building the
    ``Node`` when ``node`` is None, and returns the node it kept or the one it was given, so
    that all recorders of one application share one Node.
    """
    if op.nondiff:
        return
    solo = _solo
    if solo is not None and solo[0] == _get_ident():     # nearly every program: one tape
        solo[1](op, inputs, outputs, attrs, None)
        return
    tapes, accumulators = _recorders.lists
    node = None
    # copies: a recorder may leave (or enter) its list while it is being offered an op
    for recorder in tuple(tapes):
        node = recorder._offer(op, inputs, outputs, attrs, node)
    for recorder in tuple(accumulators):          # an accumulator leaves and re-enters the list
        node = recorder._offer(op, inputs, outputs, attrs, node)


def record_pair(op, a, b, result):
    """``record`` of a two-input application without attributes, by the one-tape shortcut when
    it applies (where the tape may keep it in its scalar lane). The engine's own operators
    inline this; ``tape.torch``'s call it."""
    solo = _solo
    if solo is not None and solo[0] == _get_ident():
        if not op.nondiff:
            solo[2](op, a, b, result)
    elif recording_tapes or active_accumulators:
        record(op, (a, b), (result,), _NO_ATTRS)


def start_recording(recorder, after_all=False, index=None):
    """Make ``recorder`` (any object with ``_offer``, see ``record``) see every op application
    of the calling thread from now on: after the recorders already active, or with ``after_all``
    after every one of them, as forward accumulators do (so the others also record what it
    computes). ``index``: its place among them instead (resuming where ``stop_recording`` took
    it from). A recorder starting afresh is stamped with its entry order (``recorder._entry``),
    which ``pause_recorder`` reads to tell the recorders around it from those inside it, and
    remembers its thread's lists (``recorder._thread_lists``): stopping it from another thread
    takes it out of those."""
    local = _recorders
    lists = recorder._thread_lists = local.lists
    key = recorder._thread_key = local.key
    if index is None:
        recorder._entry = next(_entries)
        index = len(lists[after_all])
    lists[after_all].insert(index, recorder)
    (active_accumulators if after_all else recording_tapes).append(recorder)
    _lists_changed(lists, key[0])


def stop_recording(recorder):
    """Stop offering op applications to ``recorder``; returns the place it had (for resuming).
    ValueError if it is not active."""
    lists = getattr(recorder, "_thread_lists", None)
    if lists is not None:
        tapes = lists[0]
        if tapes and tapes[-1] is recorder:     # the innermost tape: nearly always
            tapes.pop()
            recording_tapes.remove(recorder)    # one atomic step, whatever other threads do
            _lists_changed(lists, recorder._thread_key[0])
            return len(tapes)
        for group, everywhere in zip(lists, (recording_tapes, active_accumulators)):
            if recorder in group:               # (recorders compare by identity)
                index = group.index(recorder)
                group.remove(recorder)
                everywhere.remove(recorder)
                _lists_changed(lists, recorder._thread_key[0])
                return index
    raise ValueError("stop_recording: this recorder is not active")


def is_recording() -> bool:
    """Whether any recorder of the calling thread is active."""
    if not (recording_tapes or active_accumulators):
        return False
    tapes, accumulators = _recorders.lists
    return bool(tapes or accumulators)


def recording_in_this_thread() -> list:
    """The calling thread's active tapes (and other graph recorders), innermost last."""
    return _recorders.lists[0]


def suspend_recording():
    """Take every recorder of the calling thread out of its lists (they stay active): ops run
    until ``resume_recording(token)`` are recorded nowhere."""
    lists = tapes, accumulators = _recorders.lists
    token = (tapes[:], accumulators[:])
    tapes.clear()
    accumulators.clear()
    _lists_changed(lists, _get_ident())
    return token


def resume_recording(token):
    """Put back the recorders ``suspend_recording`` took out."""
    lists = tapes, accumulators = _recorders.lists
    tapes[:], accumulators[:] = token
    _lists_changed(lists, _get_ident())


def pause_recorder(recorder):
    """Take an active forward accumulator out of its thread's lists without stopping it, while
    it computes tangents, together with every recorder that started after it. Its own ops must
    not get tangents of their own, and, as in TensorFlow, only the recorders it is nested in
    (those that started before it) see its tangent computations to differentiate them again;
    the ones nested inside it do not. Returns what ``resume_recorder`` needs to put them all
    back.

    Both lists are in entry order (accumulators outermost first, tapes innermost last), so the
    recorders that started after it are a suffix of each."""
    tapes, accumulators = recorder._thread_lists
    index = accumulators.index(recorder)
    inner_accumulators = accumulators[index:]
    del accumulators[index:]
    entry = recorder._entry
    cut = len(tapes)
    while cut and tapes[cut - 1]._entry > entry:
        cut -= 1
    inner_tapes = tapes[cut:]
    del tapes[cut:]
    ident = recorder._thread_key[0]
    _lists_changed(recorder._thread_lists, ident)
    return recorder._thread_lists, ident, index, inner_accumulators, cut, inner_tapes


def resume_recorder(paused):
    """Put back the recorders taken out by ``pause_recorder``."""
    lists, ident, index, inner_accumulators, cut, inner_tapes = paused
    tapes, accumulators = lists
    accumulators[index:index] = inner_accumulators
    tapes[cut:cut] = inner_tapes
    _lists_changed(lists, ident)


def convert_inputs(args):
    """Tensors for an op's positional arguments; Python numbers take the tensors' dtype."""
    for a in args:
        if not isinstance(a, Tensor):
            break
    else:
        return args
    ref = None
    for a in args:
        if isinstance(a, Tensor):
            ref = a._value.dtype if ref is None else np.promote_types(ref, a._value.dtype)
    out = []
    for a in args:
        if isinstance(a, Tensor):
            out.append(a)
        elif ref is not None and type(a) in _SCALARS:
            out.append(_scalar_like(a, ref))
        else:
            out.append(_wrap(_to_array(a)))
    return tuple(out)


def defop(name, fn, grad=None, *, fast=None, scalar=None, jvp=None, taylor=None, linear=False,
          symmetric=False, numpy=(), differentiable=True, many=False, arity=None, doc=None):
    """Define a built-in primitive: its NumPy forward and all of its rules in one place.

    ``grad`` uses tape ops (differentiable again); ``fast``, if given, computes the same first-order
    gradient on raw arrays and is used when no tape records the backward sweep (the fast rule of a
    one-input op returns that input's cotangent itself; of other ops, a list like ``grad``).
    ``scalar``: the same again on float64 scalars, for the scalar lane (see ``scalar_rule``).
    ``jvp``, ``taylor``, ``linear`` and ``symmetric`` are as on ``Primitive``. ``numpy``: the NumPy
    ufuncs that run this op on tensors (``np.sin(t)``), besides ``fn`` itself when it is a ufunc.
    """
    kind = {1: UnaryPrimitive, 2: BinaryPrimitive}.get(arity, Primitive) if not many else Primitive
    _BUILT_IN.add(name)
    if not differentiable:
        NotDifferentiable(name)
    elif grad is not None:
        _GRADIENTS[name] = grad
        if fast is not None:
            _FAST_GRADIENTS[name] = fast
            if scalar is not None:
                _SCALAR_GRADIENTS[name] = scalar
    op = kind(fn, name, "many" if many else 1, doc, jvp=jvp, taylor=taylor, linear=linear,
              symmetric=symmetric)
    op.numpy_ufuncs = ((fn,) if isinstance(fn, np.ufunc) else ()) + tuple(numpy)
    return op


def primitive(fn=None, name=None, *, grad=None, jvp=None, taylor=None, multiple_outputs=False):
    """Turn a NumPy function ``fn(*arrays, **attrs) -> array`` into an op the tape records.

    Its rules, all optional:

    - ``grad(op, *output_grads) -> list of input grads`` (the same as ``@RegisterGradient(name)``,
      or ``NotDifferentiable(name)``); with neither, the backward pass raises ``LookupError``
      when it reaches the op;
    - ``jvp(op, *input_tangents) -> output tangent`` (None stands for an input without a tangent);
      without it forward mode applies the gradient rule twice (exact, slower);
    - ``taylor(op, *input_coefficients, order) -> output coefficients`` for Taylor mode
      (``tape.derivative``, ``tape.partials``), ``order`` passed by keyword: each coefficient
      array has shape ``(order + 1,) + value shape`` and holds the k-th derivative / k! along
      the series (an input that does not depend on the variable gets its value followed by
      zeros); without it Taylor mode through the op raises ``LookupError`` naming the op.

    Rules use tape ops on ``op.inputs``, ``op.outputs`` and ``op.attrs`` so that nested tapes can
    differentiate them again (a Taylor rule works on NumPy arrays).

    Examples
    --------
    >>> cube = tape.primitive(lambda a: a ** 3, name="Cube",
    ...                       grad=lambda op, g: [g * 3 * op.inputs[0] ** 2],
    ...                       jvp=lambda op, t: 3 * op.inputs[0] ** 2 * t)
    >>> float(tape.derivative(cube, 2.0, order=1))
    12.0
    """
    if fn is None:
        return lambda f: primitive(f, name, grad=grad, jvp=jvp, taylor=taylor,
                                   multiple_outputs=multiple_outputs)
    if not callable(fn):
        raise TypeError(f"primitive: fn must be callable, got {type(fn).__name__}")
    for what, rule in (("grad", grad), ("jvp", jvp), ("taylor", taylor)):
        if rule is not None and not callable(rule):
            raise TypeError(f"primitive: {what} must be callable, got {type(rule).__name__}")
    name = name or getattr(fn, "__name__", "Primitive")
    if name in _BUILT_IN:
        # rules are found by name: the op would take the built-in's gradient (or replace it)
        raise ValueError(f"primitive: {name!r} is the name of a built-in op; give this op a "
                         f"name of its own")
    if grad is not None:
        RegisterGradient(name)(grad)
    return Primitive(fn, name, "many" if multiple_outputs else 1, jvp=jvp,
                     taylor=None if taylor is None else _spec_taylor(taylor))


def _spec_taylor(rule):
    """A user's Taylor rule (SPEC section 7: ``rule(op, *coefficients, order)``, every input a
    full coefficient array) as the engine's internal one, ``(node, series, K)`` with None for a
    constant input: built-in rules skip the work on constants, a user's rule should not have to
    know about them."""
    def internal(node, ins, K):
        full = []
        for s, x in zip(ins, node.inputs):
            if s is None:
                s = np.zeros((K,) + np.shape(x._value), np.result_type(x._value, np.float64))
                s[0] = x._value
            full.append(s)
        return rule(node, *full, order=K - 1)
    internal.__wrapped__ = rule
    return internal


class RegisterGradient:
    """Decorator registering ``f(op, *output_grads) -> list of input grads`` for an op name.

    Gradient rules should use tape ops (not raw NumPy) so that nested tapes can differentiate
    them again.
    """

    def __init__(self, op_type: str):
        if not isinstance(op_type, str) or not op_type:
            raise TypeError(f"RegisterGradient: op_type must be a non-empty string, got {op_type!r}")
        self._op_type = op_type

    def __call__(self, f):
        _GRADIENTS[self._op_type] = f
        _FAST_GRADIENTS.pop(self._op_type, None)
        _SCALAR_GRADIENTS.pop(self._op_type, None)
        _refresh(self._op_type)
        return f


def NotDifferentiable(op_type: str):
    """Declare that an op has no gradient: paths through it contribute nothing (None)."""
    if not isinstance(op_type, str) or not op_type:
        raise TypeError(f"NotDifferentiable: op_type must be a non-empty string, got {op_type!r}")
    _GRADIENTS[op_type] = _NOT_DIFFERENTIABLE
    _FAST_GRADIENTS.pop(op_type, None)
    _SCALAR_GRADIENTS.pop(op_type, None)
    _refresh(op_type)


def primitives(built_in_only=False):
    """Every primitive alive (each name once: the latest definition), sorted by name."""
    out = {}
    for name, ops in _PRIMITIVES.items():
        if built_in_only and name not in _BUILT_IN:
            continue
        for op in ops:
            out[name] = op
    return [out[k] for k in sorted(out)]


def scalar_rule(name, rule):
    """Give the built-in two-input op ``name`` a first-order rule on NumPy scalars:
    ``rule(g, a, b, out, need_a, need_b) -> (ga, gb)``, where ``g`` is the output's cotangent (a
    float64 scalar), ``a``, ``b``, ``out`` the raw input and output values and ``need_a`` /
    ``need_b`` whether each input's cotangent is wanted (None in its place otherwise). It must
    give exactly what the op's fast rule gives there; it may return None to send the
    application the fast rule's way. Tapes keep such an op's applications with a float64
    scalar output as plain tuples and the sweep applies the rule to them (the scalar lane: no
    Node, no lists). The op's gradient must be the built-in one, with a fast rule."""
    if _FAST_GRADIENTS.get(name) is None:
        raise LookupError(f"scalar_rule: {name} has no built-in fast gradient rule")
    _SCALAR_GRADIENTS[name] = rule
    _refresh(name)


def _refresh(name):
    for op in list(_PRIMITIVES.get(name, ())):
        op._refresh()


NoGradient = NotDifferentiable


def gradient_rule(node):
    """The rule for a recorded node; LookupError if none is registered."""
    custom = node.op.custom_grad
    if custom is not None:
        return custom
    rule = _GRADIENTS.get(node.op.name)
    if rule is None:
        raise LookupError(f"gradient registry has no entry for: {node.op.name}")
    return None if rule is _NOT_DIFFERENTIABLE else rule


def _tracked_by_a_tape(tensor) -> bool:
    """Whether a recorder of this thread follows ``tensor``: a tape tracks it or a forward
    accumulator holds a tangent for it."""
    if not (recording_tapes or active_accumulators):
        return False
    tapes, accumulators = _recorders.lists
    for tape in tapes:
        if tensor in tape._tracked:
            return True
    for accumulator in accumulators:
        if id(tensor) in getattr(accumulator, "_tangents", ()):
            return True
    return False


_tensor_module.tracked_by_a_tape = tracked = _tracked_by_a_tape
