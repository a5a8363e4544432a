"""Grad mode: ``no_grad``, ``enable_grad``, ``set_grad_enabled``, ``inference_mode``.

Each is a context manager and a decorator, as in PyTorch; the mode is per thread. A decorated
generator function runs each of its steps under the mode and gives the caller's mode back at
every ``yield``.
"""
from __future__ import annotations

import functools
import inspect
import sys

from ._graph import _grad_mode


class _Mode:
    """Sets grad mode to ``enabled`` inside its block (and inside the functions it decorates)."""

    enabled = True
    inference = None        # None: leave inference mode as it is

    def __new__(cls, *args, **kwargs):
        if cls is not set_grad_enabled and len(args) == 1 and not kwargs and callable(args[0]) \
                and not isinstance(args[0], bool):
            return cls()(args[0])      # used bare, as ``@torch.no_grad``
        return super().__new__(cls)

    def __enter__(self):
        state = _grad_mode
        self._prev = (state.on, state.inference)
        state.on = self.enabled
        if self.inference is not None:
            state.inference = self.inference
        return None

    def __exit__(self, *exc):
        _grad_mode.on, _grad_mode.inference = self._prev
        return False

    def clone(self):
        return type(self)()

    def __call__(self, fn):
        if inspect.isgeneratorfunction(fn):
            return _wrap_generator(self.clone, fn)

        @functools.wraps(fn)
        def wrapper(*args, **kwargs):
            with self.clone():
                return fn(*args, **kwargs)
        return wrapper


def _wrap_generator(make_mode, fn):
    """``fn`` (a generator function) with every step of its generators run under the mode."""
    @functools.wraps(fn)
    def wrapper(*args, **kwargs):
        gen = fn(*args, **kwargs)
        try:
            with make_mode():
                response = gen.send(None)
            while True:
                try:
                    request = yield response
                except GeneratorExit:
                    with make_mode():
                        gen.close()
                    raise
                except BaseException:
                    with make_mode():
                        response = gen.throw(*sys.exc_info()[1:2])
                else:
                    with make_mode():
                        response = gen.send(request)
        except StopIteration as stop:
            return stop.value
    return wrapper


class no_grad(_Mode):  # noqa: N801
    """Ops run inside make no graph nodes (their results do not require grad)."""

    enabled = False


class enable_grad(_Mode):  # noqa: N801
    """Grad mode on again inside a ``no_grad`` block."""

    enabled = True


class set_grad_enabled(_Mode):  # noqa: N801
    """Grad mode on or off, as a context manager, a decorator or a plain call."""

    def __init__(self, mode: bool):
        self.enabled = bool(mode)
        self._prev = (_grad_mode.on, _grad_mode.inference)
        _grad_mode.on = self.enabled        # a plain call sets the mode at once, as PyTorch's

    def __enter__(self):
        return None

    def clone(self):
        return set_grad_enabled.__new__(set_grad_enabled)._set(self.enabled)

    def _set(self, mode):
        self.enabled = mode
        return self

    def __call__(self, fn):
        _grad_mode.on, _grad_mode.inference = self._prev     # decorating changes nothing now
        mode = self.enabled
        make = lambda: _Scoped(mode)  # noqa: E731
        if inspect.isgeneratorfunction(fn):
            return _wrap_generator(make, fn)

        @functools.wraps(fn)
        def wrapper(*args, **kwargs):
            with make():
                return fn(*args, **kwargs)
        return wrapper


class _Scoped(_Mode):
    def __new__(cls, mode):
        return object.__new__(cls)

    def __init__(self, mode):
        self.enabled = mode


def is_grad_enabled() -> bool:
    return _grad_mode.on


class inference_mode(_Mode):  # noqa: N801
    """``inference_mode(mode=True)``: grad mode off, as ``no_grad``, and the tensors made inside
    are inference tensors (``torch.is_inference``), as are views of them made later;
    ``mode=False`` leaves inference mode and keeps the grad mode."""

    def __init__(self, mode=True):
        self.mode = bool(mode)
        self.inference = self.mode

    def __enter__(self):
        self.enabled = False if self.mode else _grad_mode.on
        return super().__enter__()

    def clone(self):
        return inference_mode(self.mode)


def is_inference_mode_enabled() -> bool:
    return _grad_mode.inference


def is_inference(input) -> bool:
    """Whether ``input`` is an inference tensor (made inside ``inference_mode``)."""
    return getattr(input, "_inference", False)
