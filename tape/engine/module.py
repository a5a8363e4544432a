"""Modules and layers: containers that collect their variables, and ``layers.Dense``.

``Module`` finds every Variable reachable from its attributes (through lists, tuples, dicts
and other modules) without duplicates, in a deterministic order: attributes in the order they
were first set (so a layer's kernel comes before its bias, as in Keras), dict values in key
insertion order, a module's own variables before those of its submodules. The walk is
iterative, so deep or cyclic structures are fine.

The layers use the engine's ops directly (the public ``tape`` package sits above this module).
"""
from __future__ import annotations

import math
import re

from .dtypes import float64
from .ops import creation, nn
from .ops.cast import cast
from .ops.linalg import matmul, tensordot
from .ops.math import tanh
from .tensor import Tensor, Variable, convert_to_tensor

__all__ = ["Module", "Layer", "Dense", "clear_session"]

# Attributes a Module keeps for itself; never searched for variables.
_INTERNAL = frozenset({"_module_name", "_layer_trainable", "built"})


def _snake_case(name: str) -> str:
    name = re.sub(r"(.)([A-Z][a-z]+)", r"\1_\2", name)
    return re.sub(r"([a-z0-9])([A-Z])", r"\1_\2", name).lower()


def _leaves(value):
    """Tensors, Variables and Modules inside ``value`` (lists, tuples, dicts), in order."""
    stack = [iter((value,))]
    while stack:
        for item in stack[-1]:
            if isinstance(item, (Tensor, Module)):
                yield item
            elif isinstance(item, dict):
                stack.append(iter(list(item.values())))
                break
            elif isinstance(item, (list, tuple)):
                stack.append(iter(list(item)))
                break
        else:
            stack.pop()


class Module:
    """A named container of variables and other modules, as ``tf.Module``.

    Examples
    --------
    >>> class Linear(tape.Module):
    ...     def __init__(self):
    ...         super().__init__()
    ...         self.w = tape.Variable([[1.0], [2.0]], name="w")
    ...         self.b = tape.Variable([0.0], name="b", trainable=False)
    >>> [v.name for v in Linear().variables]
    ['w:0', 'b:0']
    >>> [v.name for v in Linear().trainable_variables]
    ['w:0']
    """

    def __init__(self, name: str | None = None):
        if name is not None and not isinstance(name, str):
            raise TypeError(f"Module: name must be a string or None, got {type(name).__name__}")
        self._module_name = name if name else _snake_case(type(self).__name__)

    @property
    def name(self) -> str:
        return self.__dict__.get("_module_name") or _snake_case(type(self).__name__)

    # -- the walk -----------------------------------------------------------------------------
    def _own_attributes(self):
        for key, value in vars(self).items():
            if key not in _INTERNAL:
                yield value

    def _walk(self):
        """(variables, submodules) reachable from this module, each once, in walk order."""
        variables, submodules = [], []
        seen_vars, seen_modules = set(), {id(self)}
        stack = [self]
        while stack:
            module = stack.pop()
            children = []
            for attr in module._own_attributes():
                for leaf in _leaves(attr):
                    if isinstance(leaf, Module):
                        if id(leaf) not in seen_modules:
                            seen_modules.add(id(leaf))
                            children.append(leaf)
                    elif isinstance(leaf, Variable) and id(leaf) not in seen_vars:
                        seen_vars.add(id(leaf))
                        variables.append(leaf)
            submodules.extend(children)
            stack.extend(reversed(children))     # depth first, in attribute order
        return variables, submodules

    @property
    def variables(self) -> tuple:
        """Every Variable of this module and its submodules (each once)."""
        return tuple(self._walk()[0])

    @property
    def trainable_variables(self) -> tuple:
        """The trainable Variables of this module and its submodules (each once)."""
        return tuple(v for v in self._walk()[0] if v.trainable)

    @property
    def non_trainable_variables(self) -> tuple:
        return tuple(v for v in self._walk()[0] if not v.trainable)

    @property
    def submodules(self) -> tuple:
        """Every Module reachable from this one (not itself), each once."""
        return tuple(self._walk()[1])

    def __repr__(self):
        return f"<{type(self).__name__} name={self.name!r}>"


# -- layers ---------------------------------------------------------------------------------
_NAME_UIDS: dict = {}


def clear_session():
    """Restart layer naming: the next Dense is "dense" again (as ``tf.keras.backend.clear_session``)."""
    _NAME_UIDS.clear()


def _unique_name(base: str) -> str:
    n = _NAME_UIDS.get(base, 0)
    _NAME_UIDS[base] = n + 1
    return base if n == 0 else f"{base}_{n}"


class Layer(Module):
    """A Module that creates its variables on first call (``build``) and is called on tensors.

    Subclasses implement ``build(input_shape)`` (optional) and ``call(inputs)``. Unnamed layers
    are named after their class, made unique: ``dense``, ``dense_1``, ...
    """

    def __init__(self, name: str | None = None, trainable: bool = True, dtype=None):
        super().__init__(name if name else _unique_name(_snake_case(type(self).__name__)))
        self._layer_trainable = bool(trainable)
        self.built = False
        self.dtype = dtype

    @property
    def trainable(self) -> bool:
        return self._layer_trainable

    @trainable.setter
    def trainable(self, value):
        self._layer_trainable = bool(value)

    @property
    def trainable_variables(self) -> tuple:
        return super().trainable_variables if self._layer_trainable else ()

    @property
    def non_trainable_variables(self) -> tuple:
        if self._layer_trainable:
            return super().non_trainable_variables
        return self.variables

    # Keras spellings
    @property
    def weights(self) -> list:
        return list(self.variables)

    @property
    def trainable_weights(self) -> list:
        return list(self.trainable_variables)

    def build(self, input_shape):
        self.built = True

    def call(self, inputs):
        raise NotImplementedError(f"{type(self).__name__} must implement call(inputs)")

    def __call__(self, inputs, *args, **kwargs):
        if not isinstance(inputs, Tensor):
            inputs = convert_to_tensor(inputs)
        if not self.built:
            if self.dtype is None:
                self.dtype = inputs.dtype if inputs.dtype.is_floating else float64
            self.build(tuple(inputs.shape))
            self.built = True
        if inputs.dtype != self.dtype:
            inputs = cast(inputs, self.dtype)
        return self.call(inputs, *args, **kwargs)


def _glorot_uniform(shape, dtype):
    fan_in, fan_out = (shape[0], shape[1]) if len(shape) == 2 else (1, 1)
    limit = math.sqrt(6.0 / (fan_in + fan_out))
    return creation.uniform(shape, minval=-limit, maxval=limit, dtype=dtype)


def _glorot_normal(shape, dtype):
    fan_in, fan_out = (shape[0], shape[1]) if len(shape) == 2 else (1, 1)
    return creation.normal(shape, stddev=math.sqrt(2.0 / (fan_in + fan_out)), dtype=dtype)


def _zeros(shape, dtype):
    return creation.zeros(shape, dtype=dtype)


def _ones(shape, dtype):
    return creation.ones(shape, dtype=dtype)


def _random_normal(shape, dtype):
    return creation.normal(shape, stddev=0.05, dtype=dtype)


def _random_uniform(shape, dtype):
    return creation.uniform(shape, minval=-0.05, maxval=0.05, dtype=dtype)


_INITIALIZERS = {
    "glorot_uniform": _glorot_uniform,
    "glorot_normal": _glorot_normal,
    "zeros": _zeros,
    "ones": _ones,
    "random_normal": _random_normal,
    "random_uniform": _random_uniform,
}


def _initializer(spec, what):
    if callable(spec):
        return spec
    if isinstance(spec, str) and spec in _INITIALIZERS:
        return _INITIALIZERS[spec]
    raise ValueError(f"Dense: unknown {what} {spec!r}; use one of {sorted(_INITIALIZERS)} or a "
                     "callable (shape, dtype) -> values")


def _activation(spec):
    if spec is None or callable(spec):
        return spec
    table = {
        "linear": None,
        "relu": nn.relu,
        "tanh": tanh,
        "sigmoid": nn.sigmoid,
        "softmax": nn.softmax,
        "softplus": nn.softplus,
    }
    if not isinstance(spec, str) or spec not in table:
        raise ValueError(f"Dense: unknown activation {spec!r}; use one of "
                         f"{sorted(table)}, None, or a callable")
    return table[spec]


class Dense(Layer):
    """A densely connected layer: ``activation(inputs @ kernel + bias)``, as ``tf.keras.layers.Dense``.

    The kernel (glorot-uniform, drawn from ``tape.random``) and bias (zeros) are created on the
    first call, when the input's last dimension is known; they are named
    ``"<layer name>/kernel:0"`` and ``"<layer name>/bias:0"``.

    Examples
    --------
    >>> layer = tape.layers.Dense(2, activation="relu")
    >>> y = layer(tape.constant([[1.0, 2.0, 3.0]]))
    >>> [v.name for v in layer.trainable_variables]
    ['dense/kernel:0', 'dense/bias:0']
    """

    def __init__(self, units, activation=None, use_bias=True, kernel_initializer="glorot_uniform",
                 bias_initializer="zeros", name=None, trainable=True, dtype=None):
        if isinstance(units, bool) or not isinstance(units, int) or units <= 0:
            raise ValueError(f"Dense: units must be a positive integer, got {units!r}")
        super().__init__(name=name, trainable=trainable, dtype=dtype)
        self.kernel = None
        self.bias = None
        self.units = units
        self.activation = _activation(activation)
        self.use_bias = bool(use_bias)
        self.kernel_initializer = _initializer(kernel_initializer, "kernel_initializer")
        self.bias_initializer = _initializer(bias_initializer, "bias_initializer")

    def build(self, input_shape):
        if len(input_shape) < 1 or input_shape[-1] is None:
            raise ValueError(f"Dense {self.name!r}: inputs need a known last dimension, got shape "
                             f"{tuple(input_shape)}")
        fan_in = int(input_shape[-1])
        self.kernel = Variable(self.kernel_initializer((fan_in, self.units), self.dtype),
                               name=f"{self.name}/kernel", dtype=self.dtype)
        if self.use_bias:
            self.bias = Variable(self.bias_initializer((self.units,), self.dtype),
                                 name=f"{self.name}/bias", dtype=self.dtype)
        self.built = True

    def call(self, inputs):
        if inputs.ndim < 1 or inputs.shape[-1] != self.kernel.shape[0]:
            raise ValueError(f"Dense {self.name!r}: inputs of shape {tuple(inputs.shape)} do not "
                             f"match the kernel of shape {tuple(self.kernel.shape)} (last "
                             f"dimension must be {self.kernel.shape[0]})")
        if inputs.ndim == 2:
            y = matmul(inputs, self.kernel)
        else:
            y = tensordot(inputs, self.kernel, axes=[[inputs.ndim - 1], [0]])
        if self.use_bias:
            y = y + self.bias
        if self.activation is not None:
            y = self.activation(y)
        return y
