"""Tensor, Variable and conversion of Python / NumPy values into tensors.

A Tensor is an immutable wrapper around a NumPy array (or NumPy scalar for shape ()).
Operators are attached by ``tape.engine.ops`` once the ops exist, so this module stays free of
op definitions.
"""
from __future__ import annotations

import itertools
import numbers

import numpy as np

from .dtypes import DType, as_dtype, numpy_dtype

_SCALAR_TYPES = (bool, int, float, complex)



class NotDifferentiableError(TypeError):
    """A NumPy call that tape cannot differentiate received a tensor a recording tape tracks.

    Going on would give a constant in its place and a gradient missing that path, so the call
    raises instead; the message names the function and how to take a constant on purpose."""


def not_differentiable(what: str, how: str = "") -> NotDifferentiableError:
    """The error for ``what`` (e.g. ``numpy.sinc``) called on a tracked tensor; ``how`` may
    say how to write it so that tape records it."""
    how = how or ("write it with NumPy functions or tape ops that tape records "
                  "(tape.primitive defines a new one with its gradient)")
    return NotDifferentiableError(
        f"{what} is not differentiable in tape and was given a tensor that a GradientTape "
        f"tracks: its result would be a constant, so the gradient would miss that path. "
        f"To differentiate it, {how}; to use the value as a constant on purpose, pass "
        f"tape.stop_gradient(x) or x.numpy() instead of x.")


class UntrackedConversionWarning(UserWarning):
    """A tensor that a recording tape tracks was turned into a NumPy array or a Python number:
    what is computed from that value has no gradient path back to the tensor."""


def tracked_by_a_tape(tensor) -> bool:
    """Whether a recording tape tracks ``tensor``; the recording layer (``registry``), which
    sits above tensors, puts the real test in place."""
    return False


def _warn_leaving(call: str) -> None:
    import warnings

    warnings.warn(f"{call} on a tensor that a GradientTape is tracking gives a constant: "
                  f"nothing computed from the result gets a gradient. Keep the tensor itself "
                  f"in the computation (NumPy functions and tape ops on it are recorded); "
                  f"tape.stop_gradient(x) takes a constant on purpose without this warning",
                  UntrackedConversionWarning, stacklevel=3)

def _numpy_caller():
    """The NumPy function that is turning a tensor into an array: the outermost NumPy frame
    below the caller's code (``numpy.mean`` for ``np.mean([x, y])``), or ``numpy.array`` /
    ``numpy.asarray`` (which have no Python frame) when the caller converts directly; None
    inside ``numpy.testing``, whose assertions give nothing back to compute with."""
    import sys

    frame, found = sys._getframe(2), None
    while frame is not None and str(frame.f_globals.get("__name__", "")).startswith("numpy"):
        if frame.f_globals["__name__"].startswith("numpy.testing"):
            return None             # an assertion compares values: nothing comes back to compute with
        found, frame = frame, frame.f_back
    if found is None:
        return "numpy.array (or numpy.asarray) of a tracked tensor"
    name = found.f_code.co_name
    owner = found.f_locals.get("self")
    if name == "__getitem__" and owner is not None:
        import numpy

        for spelled in ("r_", "c_", "s_", "index_exp"):
            if owner is getattr(numpy, spelled, None):
                return f"numpy.{spelled}[...] of a tracked tensor"
    module = str(found.f_globals.get("__name__"))
    public = "numpy.linalg" if module.startswith("numpy.linalg") else "numpy"
    return (f"{public}.{name.lstrip('_')} given a tracked tensor that it turns into an array "
            f"(itself or inside a list)")


class TensorShape(tuple):
    """A tensor's shape: a tuple of ints with TensorFlow's helpers."""

    __slots__ = ()

    @property
    def rank(self) -> int:
        return len(self)

    @property
    def ndims(self) -> int:
        return len(self)

    def as_list(self) -> list:
        return list(self)

    def num_elements(self) -> int:
        return int(np.prod(self, dtype=np.int64))

    def __getitem__(self, key):
        got = tuple.__getitem__(self, key)
        return TensorShape(got) if isinstance(key, slice) else got

    def __repr__(self):
        return f"TensorShape({list(self)})"

    def __str__(self):
        return tuple.__repr__(self)

    def __eq__(self, other):
        if isinstance(other, (list, tuple)):
            return tuple(self) == tuple(other)
        return NotImplemented

    def __ne__(self, other):
        result = self.__eq__(other)
        return result if result is NotImplemented else not result

    __hash__ = tuple.__hash__


def _format_value(value) -> str:
    if np.ndim(value) == 0:
        return repr(value.item()) if hasattr(value, "item") else repr(value)
    return np.array2string(np.asarray(value), separator=" ")


class Tensor:
    """An immutable multi-dimensional array recorded by gradient tapes.

    Create tensors with ``tape.constant`` or the ops; ``Tensor(value)`` also works.

    Examples
    --------
    >>> import tape
    >>> tape.constant([1.0, 2.0]) * 2
    tape.Tensor([2. 4.], shape=(2,), dtype=float64)
    """

    __slots__ = ("_value", "__weakref__")
    __array_priority__ = 100

    def __init__(self, value, dtype=None):
        self._value = _to_array(value, dtype)

    # -- basic properties -------------------------------------------------------------------
    @property
    def shape(self) -> TensorShape:
        return TensorShape(self._value.shape)

    @property
    def dtype(self) -> DType:
        return as_dtype(self._value.dtype)

    @property
    def ndim(self) -> int:
        return self._value.ndim

    @property
    def size(self) -> int:
        return self._value.size

    def numpy(self):
        """The value as a NumPy array (a NumPy scalar for shape ()): a constant, the way to
        take one on purpose while a tape records (nothing computed from it is differentiated).

        Arrays come back as read-only views: tensors are immutable, and writing into the result
        must not change them (``.copy()`` it to modify).
        """
        v = self._value
        if v.ndim:
            v = v.view()
            v.flags.writeable = False
        return v

    def get_shape(self) -> TensorShape:
        return self.shape

    # -- Python protocols -------------------------------------------------------------------
    def __array__(self, dtype=None, copy=None):
        # integers and booleans have no derivative to lose (np.int64(x), as np.argmax)
        if tracked_by_a_tape(self) and (dtype is None or np.dtype(dtype).kind not in "biu"):
            caller = _numpy_caller()
            if caller is not None:
                raise not_differentiable(caller, "build arrays of tensors with np.stack, "
                                         "np.concatenate or tape.stack (recorded), not np.array")
        arr = np.asarray(self._value)
        if dtype is not None and arr.dtype != dtype:
            return arr.astype(dtype)
        if copy:
            return arr.copy()
        view = arr.view()             # tensors are immutable (and may share buffers): read-only
        view.flags.writeable = False
        return view

    def __float__(self):
        value = float(self._scalar("float"))
        if tracked_by_a_tape(self):
            _warn_leaving("float()")
        return value

    def __int__(self):
        value = int(self._scalar("int"))
        if tracked_by_a_tape(self):
            _warn_leaving("int()")
        return value

    def __index__(self):
        if self._value.dtype.kind not in "iu":
            raise TypeError(f"only integer tensors can be used as an index, not {self.dtype.name}")
        return int(self._scalar("index"))

    def __bool__(self):
        return bool(self._scalar("bool"))

    def __complex__(self):
        return complex(self._scalar("complex"))

    def _scalar(self, what):
        if self._value.size != 1:
            raise ValueError(f"{what}() needs a tensor with one element, got shape "
                             f"{tuple(self._value.shape)}")
        return self._value.reshape(()).item() if self._value.ndim else self._value

    def __len__(self):
        if self._value.ndim == 0:
            raise TypeError("len() of a scalar tensor (shape ()) is not defined")
        return self._value.shape[0]

    def __iter__(self):
        if self._value.ndim == 0:
            raise TypeError("iteration over a scalar tensor (shape ()) is not possible")
        for i in range(self._value.shape[0]):
            yield self[i]

    def __repr__(self):
        text = _format_value(self._value)
        sep = "\n" if "\n" in text else ""
        return f"tape.Tensor({sep}{text}, shape={tuple(self._value.shape)}, " \
               f"dtype={self._value.dtype.name})"

    __str__ = __repr__

    # identity hashing in C: tensors are dict keys on the tape's hot path (see tape.py), and
    # equal hashes never occur between live tensors, so == (elementwise here) is never consulted
    __hash__ = object.__hash__

    def __format__(self, spec):
        if self._value.ndim == 0:
            return format(self._value.item(), spec)
        return format(str(self), spec)

    def __reduce__(self):
        return (Tensor, (np.asarray(self._value),))

    def __copy__(self):
        return self

    def __deepcopy__(self, memo):
        return self


class Variable(Tensor):
    """A mutable tensor whose reads inside a ``GradientTape`` are watched automatically.

    Examples
    --------
    >>> v = tape.Variable(3.0, name="x0")
    >>> v
    tape.Variable('x0:0', shape=(), dtype=float64, numpy=3.0)
    """

    __slots__ = ("_name", "_trainable", "_serial")
    _serials = itertools.count()      # creation order, as TF lists watched variables

    def __init__(self, initial_value=None, trainable=True, name=None, dtype=None):
        if initial_value is None:
            raise ValueError("Variable: initial_value must be given")
        if callable(initial_value):
            initial_value = initial_value()
        value = _to_array(initial_value, dtype)
        if value.ndim:
            value = value.copy()      # our own storage: later changes to the caller's array don't leak in
        self._value = value
        self._trainable = bool(trainable)
        self._serial = next(Variable._serials)
        base = "Variable" if name is None else str(name)
        self._name = base if ":" in base else base + ":0"

    @property
    def name(self) -> str:
        return self._name

    @property
    def trainable(self) -> bool:
        return self._trainable

    def _new_value(self, value, what):
        for hook in _assign_hooks:
            hook(self)
        value = _to_array(value, self._value.dtype)
        if value.shape != self._value.shape:
            raise ValueError(f"{what}: shape {tuple(value.shape)} does not match the variable "
                             f"{self._name!r} of shape {tuple(self._value.shape)}")
        return value.copy() if value.ndim else value

    def assign(self, value, use_locking=False, name=None, read_value=True):
        """Replace the variable's value (not recorded: state stops gradients)."""
        self._value = self._new_value(value, "assign")
        return self

    def assign_add(self, delta, use_locking=False, name=None, read_value=True):
        self._value = self._new_value(self._value + _to_array(delta, self._value.dtype), "assign_add")
        return self

    def assign_sub(self, delta, use_locking=False, name=None, read_value=True):
        self._value = self._new_value(self._value - _to_array(delta, self._value.dtype), "assign_sub")
        return self

    def __repr__(self):
        return f"tape.Variable({self._name!r}, shape={tuple(self._value.shape)}, " \
               f"dtype={self._value.dtype.name}, numpy={_format_value(self._value)})"

    __str__ = __repr__


#: Called with a Variable just before its value is replaced (tapes use it to keep old reads).
_assign_hooks: list = []


# -- conversion -------------------------------------------------------------------------------
def _to_array(value, dtype=None):
    """NumPy array (or NumPy scalar for shape ()) for a value; float64 for Python floats."""
    npd = numpy_dtype(dtype)
    if isinstance(value, Tensor):
        value = value._value
        return value if npd is None or value.dtype == npd else value.astype(npd)
    if isinstance(value, (np.ndarray, np.generic)):
        if npd is not None and value.dtype != npd:
            _check_cast(value, npd)
            value = value.astype(npd)
        return value
    if isinstance(value, _SCALAR_TYPES) or isinstance(value, numbers.Number):
        if npd is None:
            return np.asarray(value)[()]
        return npd.type(value)
    if isinstance(value, str) or value is None:
        raise TypeError(f"cannot convert {value!r} ({type(value).__name__}) to a tensor; "
                        "expected a number, a nested list of numbers, a NumPy array or a Tensor")
    try:
        arr = np.asarray(_unwrap_nested(value), dtype=npd)
    except (ValueError, TypeError) as exc:
        raise ValueError(f"cannot convert {_short(value)} to a tensor: {exc}") from None
    if arr.dtype == object or arr.dtype.kind in "USV":
        raise TypeError(f"cannot convert {_short(value)} to a tensor: elements must be numbers "
                        f"(got dtype {arr.dtype})")
    return arr[()] if arr.ndim == 0 else arr


def _check_cast(value, npd):
    if value.dtype.kind == "c" and npd.kind != "c":
        raise TypeError(f"cannot convert a complex value to {npd.name} without losing the "
                        "imaginary part; use tape.math.real / tape.cast")


def _unwrap_nested(value):
    if isinstance(value, (list, tuple)):
        return [_unwrap_nested(v) for v in value]
    if isinstance(value, Tensor):
        return value._value
    return value


def _short(value, limit=60):
    text = repr(value)
    return text if len(text) <= limit else text[:limit] + "..."


def _wrap(value) -> Tensor:
    """Fast Tensor construction from a NumPy value (no checks): the ops' hot path."""
    t = object.__new__(Tensor)
    t._value = value
    return t


def differentiable_input(value, what):
    """A floating (or complex) tensor for an argument a function transform differentiates with
    respect to: tensors pass through unchanged, NumPy values are wrapped, Python numbers and
    nested lists become float64; ``what`` names the argument in the TypeError otherwise."""
    if isinstance(value, Tensor):
        if value._value.dtype.kind not in "fc":
            raise TypeError(f"{what} has dtype {value.dtype.name}; differentiation needs a floating "
                            "dtype: pass floats or tape.cast(x, tape.float64)")
        return value
    if isinstance(value, (np.ndarray, np.generic)):
        if value.dtype.kind not in "fc":
            raise TypeError(f"{what} has dtype {value.dtype}; differentiation needs a floating "
                            "dtype: pass floats or x.astype(float)")
        return _wrap(value)
    if isinstance(value, bool):
        raise TypeError(f"{what} is a bool; differentiation needs a floating value")
    try:
        arr = np.asarray(value, dtype=np.float64)    # Python numbers and nested lists
    except (TypeError, ValueError):
        raise TypeError(f"{what} must be a number, array or Tensor, got {type(value).__name__}") \
            from None
    return _wrap(arr[()] if arr.ndim == 0 else arr)


def constant(value, dtype=None, shape=None, name=None) -> Tensor:
    """A constant tensor from a number, nested list, NumPy array or Tensor.

    Python floats become float64 and Python ints int64 unless ``dtype`` says otherwise.

    Examples
    --------
    >>> tape.constant(8.0)
    tape.Tensor(8.0, shape=(), dtype=float64)
    """
    value = _to_array(value, dtype)
    if shape is not None:
        shape = tuple(int(s) for s in shape)
        if value.size == 1 and shape != value.shape:
            value = np.full(shape, value.reshape(()) if value.ndim else value, dtype=value.dtype)
        elif value.size == int(np.prod(shape)):
            value = np.reshape(value, shape)
        else:
            raise ValueError(f"constant: {value.size} elements cannot take shape {shape}")
    return _wrap(value)


def convert_to_tensor(value, dtype=None, dtype_hint=None, name=None) -> Tensor:
    """``value`` itself if it is already a Tensor of the right dtype, else a new constant."""
    if isinstance(value, Tensor):
        if dtype is None or value._value.dtype == numpy_dtype(dtype):
            return value
        raise ValueError(f"convert_to_tensor: tensor has dtype {value.dtype.name}, "
                         f"requested {as_dtype(dtype).name}; use tape.cast to convert")
    if dtype is None and dtype_hint is not None and isinstance(value, (float, int)):
        dtype = dtype_hint
    return _wrap(_to_array(value, dtype))
