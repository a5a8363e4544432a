"""The memory budget of a run: how many points (or cotangent rows) go into one vectorized pass.

A pass keeps every recorded op's value for all its points, so its memory is the number of
points times what one point costs, and that cost grows with the target (a 14,000-character
expression records thousands of ops). The first pass runs on ``PROBE_POINTS`` points with
``tracemalloc`` on (NumPy reports its buffers to it), which measures the cost of a point; the
passes after it take as many points as half of what is left of the budget holds. Sizes that
the budget can never hold (one point alone, or a result that must exist whole) are refused
before the work with exit 2, naming the budget and how to change it.

The budget is ``--memory MB`` or else the ``TAPE_MEMORY`` environment variable (MB), else
``DEFAULT_MEMORY_MB``. The engine knows nothing of it: the CLI sizes what it hands over.
"""
from __future__ import annotations

import os
from typing import Callable, Optional, TypeVar

from ..expr.errors import CLIError
from ..expr.record import Frozen

#: the memory budget of a run, in MiB, unless --memory or TAPE_MEMORY says otherwise
DEFAULT_MEMORY_MB = 1024
#: the smallest and largest budgets accepted (MiB)
MIN_MEMORY_MB = 128
MAX_MEMORY_MB = 1 << 20
#: the environment variable that sets the budget when --memory is not given
MEMORY_ENV = "TAPE_MEMORY"
#: points in the first, measured pass
PROBE_POINTS = 64
#: the share of the budget still free that one pass may take: the results gathered so far,
#: the output text and NumPy's temporaries need the rest
PASS_SHARE = 0.5

T = TypeVar("T")


class Budget(Frozen):
    """A memory budget of ``bytes`` for the whole process."""

    _fields = ("bytes",)

    def __init__(self, bytes: int) -> None:
        object.__setattr__(self, "bytes", int(bytes))
        # bytes per point measured by this run's first pass of each kind of work (not a
        # field: a memo of the run, so the blocks of a long input are measured once)
        object.__setattr__(self, "measured_costs", {})

    @property
    def mb(self) -> int:
        return self.bytes >> 20

    def free(self) -> int:
        """Bytes of the budget not yet resident (never below a tenth of it: the resident
        size includes pages NumPy has freed but the allocator keeps)."""
        return max(self.bytes - resident_bytes(), self.bytes // 10)

    def per_pass(self, cost_per_item: float, most: int, reserved: float = 0) -> int:
        """How many items of ``cost_per_item`` bytes one pass may take (1 to ``most``), when
        ``reserved`` bytes of what is free will be taken by something else meanwhile."""
        if cost_per_item <= 0:
            return most
        share = (self.free() - reserved) * PASS_SHARE
        return int(max(1, min(most, share // cost_per_item)))

    def require(self, needed: float, what: str, advice: str) -> None:
        """Refuse (exit 2) work that needs ``needed`` bytes at once when the budget cannot
        hold it."""
        if needed > self.bytes * PASS_SHARE:
            raise CLIError(f"{what} needs about {needed / 2**20:,.0f} MB at once; the memory "
                           f"budget is {self.mb:,} MB (--memory MB or {MEMORY_ENV}); {advice}")

    def __str__(self) -> str:
        return f"{self.mb:,} MB"


def from_option(memory_mb: Optional[int]) -> Budget:
    """The budget: ``--memory`` if given, else ``TAPE_MEMORY``, else the default."""
    if memory_mb is None:
        text = os.environ.get(MEMORY_ENV, "").strip()
        if not text:
            return Budget(DEFAULT_MEMORY_MB << 20)
        try:
            memory_mb = int(text)
        except ValueError:
            raise CLIError(f"{MEMORY_ENV}={text[:40]!r} is not a whole number of MB "
                           f"(from {MIN_MEMORY_MB} to {MAX_MEMORY_MB})") from None
        if not MIN_MEMORY_MB <= memory_mb <= MAX_MEMORY_MB:
            raise CLIError(f"{MEMORY_ENV}={memory_mb} is out of range: give {MIN_MEMORY_MB} "
                           f"to {MAX_MEMORY_MB} MB")
    return Budget(memory_mb << 20)


def resident_bytes() -> int:
    """The process's resident set size now (Linux ``/proc``; elsewhere its peak so far)."""
    try:
        with open("/proc/self/statm", "rb") as f:
            return int(f.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")
    except (OSError, ValueError, IndexError):
        import resource
        import sys

        peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
        return peak if sys.platform == "darwin" else peak * 1024


def measured_resident(fn: Callable[[], T]) -> tuple[T, int]:
    """``fn()`` and how far the resident size rose above where it was while ``fn`` ran. On
    Linux the kernel's peak is reset first (``/proc/self/clear_refs``), which costs nothing
    while ``fn`` runs: ``tracemalloc`` keeps a record of every allocation, gigabytes for a
    script that records millions of ops. Elsewhere, ``measured``."""
    try:
        with open("/proc/self/clear_refs", "w") as f:
            f.write("5")
        before = resident_bytes()
    except OSError:
        return measured(fn)
    result = fn()
    return result, max(0, _peak_resident_bytes() - before)


def _peak_resident_bytes() -> int:
    """The highest resident size since the peak was last reset (``VmHWM``)."""
    with open("/proc/self/status", "rb") as f:
        for line in f:
            if line.startswith(b"VmHWM:"):
                return int(line.split()[1]) * 1024
    return resident_bytes()


def measured(fn: Callable[[], T]) -> tuple[T, int]:
    """``fn()`` and the peak bytes it allocated (Python objects and NumPy buffers), by
    ``tracemalloc`` (when it is on already, its peak restarts here)."""
    import tracemalloc

    if tracemalloc.is_tracing():
        before = tracemalloc.get_traced_memory()[0]
        tracemalloc.reset_peak()
        result = fn()
        return result, max(0, tracemalloc.get_traced_memory()[1] - before)
    tracemalloc.start()
    try:
        result = fn()
        return result, tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
