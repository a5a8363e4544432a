"""The seeds of vectorized Jacobians: rows of an identity, pushed back in one backward sweep
(``GradientTape.jacobian`` / ``batch_jacobian``), in chunks of ``parallel_iterations`` rows."""
from __future__ import annotations

import numpy as np

from .structural import mark
from .tensor import _wrap


def chunks(n, parallel_iterations):
    if parallel_iterations is None or parallel_iterations >= n:
        return [(0, n)]
    step = int(parallel_iterations)
    if step <= 0:
        raise ValueError(f"parallel_iterations must be a positive int, got {parallel_iterations}")
    return [(i, min(i + step, n)) for i in range(0, n, step)]


class IdentityRows:
    """Rows ``start:stop`` of the identity over a target's elements, shaped like the target."""

    def __init__(self, target):
        self.n = int(target._value.size)
        self.shape = tuple(target._value.shape)
        self.dtype = target._value.dtype

    def __call__(self, start, stop):
        rows = np.zeros((stop - start, self.n), self.dtype)
        rows[np.arange(stop - start), np.arange(start, stop)] = 1
        # its zeros are structural: another output's infinite slope times 0 is 0 (structural.py)
        return _wrap(mark(rows.reshape((stop - start,) + self.shape)))


class BatchIdentityRows:
    """Row j: ones over the batch axis times a one-hot over the per-example axes."""

    def __init__(self, target):
        self.b = target._value.shape[0]
        self.inner = tuple(target._value.shape[1:])
        self.n = int(np.prod(self.inner, dtype=np.int64))
        self.dtype = target._value.dtype

    def __call__(self, start, stop):
        rows = np.zeros((stop - start, self.b, self.n), self.dtype)
        rows[np.arange(stop - start), :, np.arange(start, stop)] = 1
        return _wrap(mark(rows.reshape((stop - start, self.b) + self.inner)))
