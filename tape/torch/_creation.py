"""Tensor creation: ``tensor``, ``arange``, ``zeros`` ... and the seeded random generator."""
from __future__ import annotations

import warnings

import numpy as np

from . import _dtypes
from . import _engine as E
from ._tensor import _NO_ATTRS, P, Tensor, _apply, _new


def _view(t):
    """A torch tensor for an engine tensor, recorded (Identity) by any tape that watches it."""
    return _apply(P["Identity"], (t,), _NO_ATTRS, "AliasBackward0")


def _finish(value, dtype=None, requires_grad=False):
    npd = _dtypes.to_numpy(dtype)
    if npd is not None and value.dtype != npd:
        value = value.astype(npd)
    t = _new(value[()] if isinstance(value, np.ndarray) and value.ndim == 0 else value)
    if requires_grad:
        t.requires_grad_(True)
    return t


def tensor(data, dtype=None, device=None, requires_grad=False, pin_memory=False):
    """A new leaf tensor holding a copy of ``data`` (Python floats become float64).

    A copy of a tensor is cut from every graph and tape, as in PyTorch (which warns the same).
    """
    if isinstance(data, E.EngineTensor):
        warnings.warn("To copy construct from a tensor, it is recommended to use "
                      "sourceTensor.clone().detach() or sourceTensor.clone().detach()."
                      "requires_grad_(True), rather than torch.tensor(sourceTensor).",
                      UserWarning, stacklevel=2)
    return Tensor(data, dtype=dtype, requires_grad=requires_grad)


def as_tensor(data, dtype=None, device=None):
    """``data`` as a tensor without copying; a tensor stays in its graph (and on any engine
    tape recording it, so a CLI script may start with ``x = torch.as_tensor(x)``)."""
    if isinstance(data, E.EngineTensor):
        t = data if isinstance(data, Tensor) else _view(data)
        return t if dtype is None else t.type(dtype)
    return _finish(np.asarray(E.to_array(data)), dtype)


def from_numpy(ndarray):
    return _new(ndarray[()] if ndarray.ndim == 0 else ndarray)


def _shape(size):
    if len(size) == 1 and isinstance(size[0], (tuple, list, _dtypes.Size)):
        size = tuple(size[0])
    return tuple(int(s) for s in size)


def _float_dtype(dtype):
    return _dtypes.DEFAULT._np if dtype is None else _dtypes.to_numpy(dtype)


def zeros(*size, dtype=None, device=None, requires_grad=False):
    return _finish(np.zeros(_shape(size), _float_dtype(dtype)), None, requires_grad)


def ones(*size, dtype=None, device=None, requires_grad=False):
    return _finish(np.ones(_shape(size), _float_dtype(dtype)), None, requires_grad)


def empty(*size, dtype=None, device=None, requires_grad=False):
    return zeros(*size, dtype=dtype, requires_grad=requires_grad)


def full(size, fill_value, dtype=None, device=None, requires_grad=False):
    value = np.full(_shape((size,)), fill_value, dtype=_dtypes.to_numpy(dtype))
    if dtype is None and isinstance(fill_value, float):
        value = value.astype(_dtypes.DEFAULT._np)
    return _finish(value, None, requires_grad)


def _like(input, dtype):
    v = np.asarray(input._value if isinstance(input, E.EngineTensor) else input)
    return v, (_dtypes.to_numpy(dtype) or v.dtype)


def zeros_like(input, dtype=None, device=None, requires_grad=False):
    v, npd = _like(input, dtype)
    return _finish(np.zeros(v.shape, npd), None, requires_grad)


def ones_like(input, dtype=None, device=None, requires_grad=False):
    v, npd = _like(input, dtype)
    return _finish(np.ones(v.shape, npd), None, requires_grad)


def full_like(input, fill_value, dtype=None, device=None, requires_grad=False):
    v, npd = _like(input, dtype)
    return _finish(np.full(v.shape, fill_value, npd), None, requires_grad)


def empty_like(input, dtype=None, device=None, requires_grad=False):
    return zeros_like(input, dtype, requires_grad=requires_grad)


def arange(start=0, end=None, step=1, dtype=None, device=None, requires_grad=False):
    """``[start, end)`` by ``step``; float64 when any bound is a float, else int64."""
    if end is None:
        start, end = 0, start
    bounds = [b.item() if isinstance(b, Tensor) else b for b in (start, end, step)]
    floating = any(isinstance(b, float) for b in bounds)
    npd = _dtypes.to_numpy(dtype) or (_dtypes.DEFAULT._np if floating else np.int64)
    n = int(np.ceil((bounds[1] - bounds[0]) / bounds[2]))
    value = (bounds[0] + bounds[2] * np.arange(max(n, 0), dtype=np.float64)).astype(npd) if floating \
        else np.arange(*bounds, dtype=npd)
    return _finish(value, None, requires_grad)


def linspace(start, end, steps, dtype=None, device=None, requires_grad=False):
    return _finish(np.linspace(start, end, int(steps), dtype=_float_dtype(dtype)), None, requires_grad)


def eye(n, m=None, dtype=None, device=None, requires_grad=False):
    return _finish(np.eye(n, m, dtype=_float_dtype(dtype)), None, requires_grad)


# -- random ---------------------------------------------------------------------------------
_rng = [np.random.default_rng()]


def manual_seed(seed):
    """Seed the generator of ``rand``, ``randn``, ``randint`` ...: the same seed, the same numbers."""
    _rng[0] = np.random.default_rng(int(seed))
    return _Generator(int(seed))


def seed():
    s = int(np.random.SeedSequence().entropy % (2 ** 63))
    manual_seed(s)
    return s


class _Generator:
    def __init__(self, seed):
        self._seed = seed

    def initial_seed(self):
        return self._seed


def rand(*size, dtype=None, device=None, requires_grad=False, generator=None):
    return _finish(_rng[0].random(_shape(size)).astype(_float_dtype(dtype)), None, requires_grad)


def randn(*size, dtype=None, device=None, requires_grad=False, generator=None):
    return _finish(_rng[0].standard_normal(_shape(size)).astype(_float_dtype(dtype)), None,
                   requires_grad)


def randint(low=0, high=None, size=(), dtype=None, device=None, requires_grad=False):
    if high is None or isinstance(high, (tuple, list, _dtypes.Size)):
        if high is not None:            # randint(high, size), as PyTorch's overload
            size = high
        low, high = 0, low
    return _finish(_rng[0].integers(low, high, _shape((size,)), dtype=np.int64), dtype, requires_grad)


def rand_like(input, dtype=None, requires_grad=False):
    v, npd = _like(input, dtype)
    return _finish(_rng[0].random(v.shape).astype(npd), None, requires_grad)


def randn_like(input, dtype=None, requires_grad=False):
    v, npd = _like(input, dtype)
    return _finish(_rng[0].standard_normal(v.shape).astype(npd), None, requires_grad)


def randperm(n, dtype=None, requires_grad=False):
    return _finish(_rng[0].permutation(int(n)).astype(np.int64), dtype, requires_grad)
