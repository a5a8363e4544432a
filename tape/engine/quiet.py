"""Silencing NumPy's floating-point warnings cheaply around a backward sweep.

``np.errstate`` costs several microseconds per use, a large share of a small gradient. NumPy 2
keeps the error state in a context variable; setting it directly costs a fraction of that. On
NumPy versions without it, ``np.errstate`` is used.
"""
from __future__ import annotations

import numpy as np

try:  # NumPy >= 2
    from numpy._core.umath import _extobj_contextvar, _make_extobj

    _quiet_for: dict = {}     # current error state -> the same state with warnings ignored

    def silence():
        """Start ignoring divide/invalid/overflow warnings; returns a token for ``restore``."""
        current = _extobj_contextvar.get()
        quiet = _quiet_for.get(current)
        if quiet is None:
            quiet = _make_extobj(divide="ignore", invalid="ignore", over="ignore")
            if len(_quiet_for) < 64:
                _quiet_for[current] = quiet
        return _extobj_contextvar.set(quiet)

    #: ``restore(token)``: back to the error state ``silence`` replaced (the context variable's
    #: own reset: no Python frame of ours)
    restore = _extobj_contextvar.reset
except ImportError:  # pragma: no cover - older NumPy
    def silence():
        state = np.errstate(divide="ignore", invalid="ignore", over="ignore")
        state.__enter__()
        return state

    def restore(token):
        token.__exit__(None, None, None)
