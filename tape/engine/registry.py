"""Primitives and their gradient rules.

Every op of the engine is a ``Primitive``: a NumPy forward function plus a name under which its
gradient rule is registered. Calling a primitive converts its tensor arguments, runs the NumPy
function and, only when a tape is recording, offers the call to the recording tapes.
"""
from __future__ import annotations

import weakref

import itertools

import numpy as np

from .tensor import Tensor, Variable, _to_array, _wrap

#: Tapes currently recording, innermost last. Owned by tape.py; read here on every op.
recording_tapes: list = []
#: Active ForwardAccumulators, outermost first. Owned by forward.py; they see an op after every
#: tape has, so tapes also record the tangent computation (reverse-over-forward).
active_accumulators: list = []
#: Numbers given to tapes and accumulators as they are entered: who is nested inside whom.
entry_order = itertools.count()

_GRADIENTS: dict = {}
#: Optional first-order rules on raw NumPy values, used only when no tape records the backward
#: sweep (so nothing needs to be differentiable again); same signature, arrays in and out.
_FAST_GRADIENTS: dict = {}
_NOT_DIFFERENTIABLE = object()
_SCALARS = (float, int, bool, complex)
_SCALARS_BY_VALUE: dict = {}    # float/complex dtype -> {number: tensor}
_SCALARS_BY_TYPE: dict = {}     # (type, number, int/bool dtype) -> tensor
_NUMPY_VALUES = (np.ndarray, np.generic)
_new_tensor = _new_node = object.__new__
_FLOAT64 = np.float64
#: The attrs of an op called without keyword arguments (shared: rules only read attrs).
_NO_ATTRS: dict = {}
#: Every primitive by name, so a later RegisterGradient / NotDifferentiable reaches them.
_PRIMITIVES: dict = {}


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
    was overridden); ``nondiff`` says the tape need not record it. Both are kept in step with the
    registries by ``_refresh``, so recording and the sweep read one attribute instead of looking
    the op's name up.
    """

    __slots__ = ("name", "fn", "n_outputs", "fast", "nondiff", "_custom_grad", "__dict__",
                 "__weakref__")

    def __init__(self, fn, name, n_outputs=1, doc=None):
        self.name = name
        self.fn = fn
        self.n_outputs = n_outputs          # 1, or "many" for a tuple of outputs
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
        if recording_tapes or active_accumulators:
            record(self, (x,), (result,), attrs)
        return result


class BinaryPrimitive(Primitive):
    """A two-input, one-output primitive (arithmetic) with the shortest call path of all.

    ``operator(a, b)`` and ``reflected(b, a)`` are plain functions, so they can be installed as a
    Tensor's ``__mul__`` / ``__rmul__`` and run without an extra call frame.
    """

    __slots__ = ()

    def __init__(self, fn, name, n_outputs=1, doc=None):
        super().__init__(fn, name, n_outputs, doc)
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
                b = _scalar_like(b, va.dtype)
                vb = b._value
            else:
                a, b = convert_inputs((a, b))
                va, vb = a._value, b._value
        else:       # tape.multiply(2.0, x) and the like (2.0 * x comes through `reflected`)
            a, b = convert_inputs((a, b))
            va, vb = a._value, b._value
        out = fn(va, vb)
        if not isinstance(out, _NUMPY_VALUES):
            out = np.asarray(out)
        result = _new_tensor(Tensor)
        result._value = out
        if recording_tapes or active_accumulators:
            _record_pair(op, a, b, result)
        return result

    def reflected(b, a):
        # Python calls b.__rxx__(a) only when a is not a Tensor: a Python number or an array-like
        return operator(_scalar_like(a, b._value.dtype) if type(a) in _SCALARS else a, b)
    return operator, reflected


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
    """Offer an op application to every recording tape (each keeps it if it watches an input),
    then to every active forward accumulator (each computes tangents if an input has one)."""
    if op.nondiff:
        return
    if active_accumulators or len(recording_tapes) != 1:
        return _record_many(op, inputs, outputs, attrs)
    # one tape and no accumulator (nearly every program): the tape's _accepts/_add inlined
    tape = recording_tapes[0]
    tracked = tape._tracked
    hit = False
    for t in inputs:
        if t in tracked:
            hit = True
        elif type(t) is Variable:       # maybe a variable to watch on first read: the long way
            hit = tape._accepts(inputs)
            break
    if not hit:
        return
    node = _new_node(Node)
    node.op = op
    node.inputs = inputs
    node.outputs = outputs
    node.attrs = attrs
    node.needs_grad = None
    tape._nodes.append(node)
    for o in outputs:
        v = o._value
        if type(v) is _FLOAT64 or v.dtype.kind in "fc":
            tracked[o] = None


def _record_pair(op, a, b, result):
    """``record`` for a two-input, one-output op: the same decisions without the loops."""
    if op.nondiff:
        return
    if active_accumulators or len(recording_tapes) != 1:
        return _record_many(op, (a, b), (result,), _NO_ATTRS)
    tape = recording_tapes[0]
    tracked = tape._tracked
    if a in tracked:
        if b not in tracked and type(b) is Variable:
            return record(op, (a, b), (result,), _NO_ATTRS)
    elif b in tracked:
        if type(a) is Variable:
            return record(op, (a, b), (result,), _NO_ATTRS)
    else:
        if type(a) is Variable or type(b) is Variable:
            return record(op, (a, b), (result,), _NO_ATTRS)
        return
    node = _new_node(Node)
    node.op = op
    node.inputs = (a, b)
    node.outputs = (result,)
    node.attrs = _NO_ATTRS
    node.needs_grad = None
    tape._nodes.append(node)
    v = result._value
    if type(v) is _FLOAT64 or v.dtype.kind in "fc":
        tracked[result] = None


def _record_many(op, inputs, outputs, attrs):
    node = None
    for tape in recording_tapes:
        if tape._accepts(inputs):
            if node is None:
                node = Node(op, inputs, outputs, attrs)
            tape._add(node)
    for acc in active_accumulators:       # an accumulator leaves and re-enters this list in place
        if acc._accepts(inputs):
            if node is None:
                node = Node(op, inputs, outputs, attrs)
            acc._add(node)


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


def defop(name, fn, grad=None, *, fast=None, differentiable=True, many=False, arity=None, doc=None):
    """Define a built-in primitive: its NumPy forward and its gradient rule in one place.

    ``grad`` uses tape ops (differentiable again); ``fast``, if given, computes the same first-order
    gradient on raw arrays and is used when no tape records the backward sweep (the fast rule of a
    one-input op returns that input's cotangent itself; of other ops, a list like ``grad``).
    """
    kind = {1: UnaryPrimitive, 2: BinaryPrimitive}.get(arity, Primitive) if not many else Primitive
    if not differentiable:
        NotDifferentiable(name)
    elif grad is not None:
        _GRADIENTS[name] = grad
        if fast is not None:
            _FAST_GRADIENTS[name] = fast
    return kind(fn, name, "many" if many else 1, doc)


def primitive(fn=None, name=None, *, multiple_outputs=False):
    """Turn a NumPy function ``fn(*arrays, **attrs) -> array`` into an op the tape records.

    Its gradient comes from ``@RegisterGradient(name)`` or ``NotDifferentiable(name)``; with
    neither, the backward pass raises ``LookupError`` when it reaches the op.

    Examples
    --------
    >>> cube = tape.primitive(lambda a: a ** 3, name="Cube")
    >>> @tape.RegisterGradient("Cube")
    ... def _cube_grad(op, g):
    ...     return [g * 3 * op.inputs[0] ** 2]
    """
    if fn is None:
        return lambda f: primitive(f, name, multiple_outputs=multiple_outputs)
    if not callable(fn):
        raise TypeError(f"primitive: fn must be callable, got {type(fn).__name__}")
    return Primitive(fn, name or getattr(fn, "__name__", "Primitive"),
                     "many" if multiple_outputs else 1)


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
        _refresh(self._op_type)
        return f


def NotDifferentiable(op_type: str):
    """Declare that an op has no gradient: paths through it contribute nothing (None)."""
    if not isinstance(op_type, str) or not op_type:
        raise TypeError(f"NotDifferentiable: op_type must be a non-empty string, got {op_type!r}")
    _GRADIENTS[op_type] = _NOT_DIFFERENTIABLE
    _FAST_GRADIENTS.pop(op_type, None)
    _refresh(op_type)


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
