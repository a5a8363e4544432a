"""Grad mode: ``no_grad``, ``enable_grad``, ``set_grad_enabled`` (context managers and decorators)."""
from __future__ import annotations

import functools

from ._graph import _grad_mode


class _Mode:
    enabled = True

    def __new__(cls, *args):
        if cls is not set_grad_enabled and len(args) == 1 and callable(args[0]):
            return cls()(args[0])      # used bare, as ``@torch.no_grad``
        return super().__new__(cls)

    def __enter__(self):
        self._prev = _grad_mode[0]
        _grad_mode[0] = self.enabled
        return None

    def __exit__(self, *exc):
        _grad_mode[0] = self._prev
        return False

    def __call__(self, fn):
        @functools.wraps(fn)
        def wrapper(*args, **kwargs):
            with type(self)():
                return fn(*args, **kwargs)
        return wrapper


class no_grad(_Mode):  # noqa: N801
    """Ops run inside make no graph nodes (their results do not require grad)."""

    enabled = False


class enable_grad(_Mode):  # noqa: N801
    """Grad mode on again inside a ``no_grad`` block."""

    enabled = True


class set_grad_enabled(_Mode):  # noqa: N801
    """Grad mode on or off, as a context manager or a plain call."""

    def __init__(self, mode: bool):
        self.enabled = bool(mode)
        self._prev = _grad_mode[0]
        _grad_mode[0] = self.enabled

    def __enter__(self):
        return None

    def __call__(self, fn):
        mode = self.enabled
        _grad_mode[0] = self._prev

        @functools.wraps(fn)
        def wrapper(*args, **kwargs):
            with set_grad_enabled(mode):
                return fn(*args, **kwargs)
        return wrapper


def is_grad_enabled() -> bool:
    return _grad_mode[0]


class inference_mode(no_grad):  # noqa: N801
    """As ``no_grad`` here."""

    def __init__(self, mode=True):
        self.enabled = not mode if isinstance(mode, bool) else False
