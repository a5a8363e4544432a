"""Run symbolic work under a time limit.

SymPy cannot be interrupted from inside its own thread (a ``simplify`` may run for minutes in
pure Python, and signals are unreliable inside C extensions and unavailable off the main
thread). So the work runs in a forked child process, which is killed when the limit passes.
The child inherits everything already imported (SymPy included: ``run_limited`` imports it in
the parent first, so the limit measures the work and not the import) and sends back a picklable
result through a pipe.

Where ``fork`` is unavailable (Windows) the work runs in-process without a limit.
"""
from __future__ import annotations

import os
import sys
import time
import traceback
from typing import Any, Callable

from ..expr.errors import UNDECIDED, CLIError
from .limits import TIMEOUT as DEFAULT_TIMEOUT  # the default --timeout, in seconds


class SymbolicTimeout(CLIError):
    """The symbolic work did not finish in time (exit 3, undecided)."""

    def __init__(self, seconds: float, what: str = "symbolic check",
                 consequence: str = "numeric result stands"):
        text = f"{what} did not finish in {seconds:g} s"
        if consequence:
            text += f"; {consequence}"
        super().__init__(text, UNDECIDED)
        self.seconds = seconds


class SymbolicFailure(CLIError):
    """SymPy itself failed (an internal error or an unsupported construct): exit 3."""

    def __init__(self, message: str):
        super().__init__(message, UNDECIDED)


def run_limited(fn: Callable[..., Any], *args: Any, timeout: float = DEFAULT_TIMEOUT,
                what: str = "symbolic check",
                consequence: str = "numeric result stands", sympy: bool = True) -> Any:
    """``fn(*args)`` in a forked child, killed after ``timeout`` seconds.

    Returns what ``fn`` returns (it must be picklable). A ``CLIError`` raised by ``fn`` is
    re-raised here as is; any other exception becomes ``SymbolicFailure``; running out of time
    raises ``SymbolicTimeout(timeout, what, consequence)``. ``sympy=False``: work that does not
    use SymPy (mpmath's) does not load it first.
    """
    if timeout is None or timeout <= 0:
        raise CLIError(f"--timeout must be a positive number of seconds, got {timeout}")
    import multiprocessing

    if sympy:
        import sympy as _  # noqa: F401  (loaded before the fork, so the child starts warm)

    if "fork" not in multiprocessing.get_all_start_methods():
        return fn(*args)
    context = multiprocessing.get_context("fork")
    reader, writer = context.Pipe(duplex=False)
    child = context.Process(target=_child, args=(writer, os.getpid(), fn, args), daemon=True)
    # the limit counts from the start of the work, not from when this process gets to wait
    # (a fast child and a busy machine would otherwise let a result through late)
    deadline = time.monotonic() + timeout
    child.start()
    writer.close()
    try:
        left = deadline - time.monotonic()
        if left <= 0 or not reader.poll(left):
            raise SymbolicTimeout(timeout, what, consequence)
        try:
            status, payload = reader.recv()
        except EOFError:
            raise SymbolicFailure(f"{what} failed: the SymPy worker ended unexpectedly "
                                  f"(exit code {child.exitcode})") from None
    finally:
        if child.is_alive():
            child.kill()
        child.join()
        reader.close()
    if status == "ok":
        return payload
    if status == "cli":
        message, code = payload
        raise CLIError(message, code)
    raise SymbolicFailure(f"{what} failed inside SymPy: {payload}")


def run_optional(deadline: float, fn: Callable[..., Any], *args: Any,
                 sympy: bool = True) -> Any:
    """``fn(*args)`` under what is left until ``deadline`` (``time.monotonic()``), for
    optional polish such as simplifying for display: None when time runs out."""
    left = deadline - time.monotonic()
    if left <= 0.05:
        return None
    try:
        return run_limited(fn, *args, timeout=left, sympy=sympy)
    except SymbolicTimeout:
        return None


def _tie_to_parent(parent: int) -> None:
    """Make this worker die with the process that forked it, however that one ends.

    A daemon child is reaped only when its parent exits normally; SIGKILL, SIGTERM or SIGHUP
    on the parent would leave SymPy running under init. Linux's PR_SET_PDEATHSIG has the kernel
    send SIGKILL instead; the parent may already be gone by the time it is set, hence the check
    after it. Ctrl-C reaches the whole process group: the worker ignores it and the parent, which
    gets KeyboardInterrupt, kills the worker on its way out.
    """
    import signal

    signal.signal(signal.SIGINT, signal.SIG_IGN)
    if sys.platform.startswith("linux"):
        import ctypes

        try:
            ctypes.CDLL(None, use_errno=True).prctl(_PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0)
        except (OSError, AttributeError):
            pass
    if os.getppid() != parent:
        os._exit(0)


_PR_SET_PDEATHSIG = 1


#: the memory a worker may add to what it inherits, in MiB: SymPy expanding (x+1)^(10^10)
#: ends in a MemoryError (a failure reported to the parent) rather than in swap
WORKER_MEMORY_MB = 2048


def _bound_memory() -> None:
    """Limit this worker's address space to what it inherited plus ``WORKER_MEMORY_MB``."""
    try:
        import resource

        with open("/proc/self/statm") as statm:
            inherited = int(statm.read().split()[0]) * os.sysconf("SC_PAGE_SIZE")
        limit = inherited + (WORKER_MEMORY_MB << 20)
        _, hard = resource.getrlimit(resource.RLIMIT_AS)
        if hard != resource.RLIM_INFINITY:
            limit = min(limit, hard)
        resource.setrlimit(resource.RLIMIT_AS, (limit, hard))
    except (ImportError, OSError, ValueError):
        pass        # no /proc or no rlimits: the time limit still ends the worker


def _child(writer, parent, fn, args) -> None:
    _tie_to_parent(parent)
    _bound_memory()
    try:
        try:
            outcome = ("ok", fn(*args))
        except CLIError as exc:
            outcome = ("cli", (exc.message, exc.code))
        except RecursionError:
            outcome = ("error", "the expression is nested too deeply for SymPy")
        except MemoryError:
            outcome = ("error", f"it needed more than {WORKER_MEMORY_MB:,} MiB of memory")
        except Exception as exc:  # reported to the parent as one line, not a traceback
            last = traceback.extract_tb(exc.__traceback__)[-1:]
            where = f" ({os.path.basename(last[0].filename)}:{last[0].lineno})" if last else ""
            outcome = ("error", f"{type(exc).__name__}: {exc}{where}")
        writer.send(outcome)
    finally:
        writer.close()
