"""The ``tape`` process: its standard streams, Ctrl-C and the user's script code, made safe
against whatever the user or the environment does to them.

``run`` is the process's entry (``app.main``, for the console script and ``python -m tape``).
Start-up leaves SIGINT at its default action (``tape_launch``, ``tape/__init__``): Ctrl-C while
NumPy and Typer import just ends the process, which a shell reports as 130. ``run`` then
hands Ctrl-C to the app (KeyboardInterrupt: ``error: interrupted``, exit 130) and, once the
result is out, back to the default action, so an interrupted shutdown is quiet too.

``guard_standard_streams`` runs first:

* a standard descriptor that was closed (``>&-``, ``<&-``, ``2>&-``) is reopened on /dev/null, so
  that no file tape opens later takes its number; reading a closed standard input or writing a
  closed standard output is then an ``error:`` (exit 2), and a closed standard error swallows
  the warnings quietly;
* standard output writes to a private copy of descriptor 1, and its failures become tape's own
  errors: the reader gone (``| head``) is ``OutputClosed`` (a quiet end), any other failure
  (``>/dev/full``) is ``OutputFailed`` (exit 2) instead of an internal error;
* standard error never fails: what cannot be written there is dropped.

``script_code`` is the fence around a user's script (its import and each call): whatever the
script writes to descriptor 1 goes to standard error, and the working directory, the signal
handlers and the process it leaves behind are tape's again afterwards. Descriptor 1 comes back
for tape's own use (``--dot /dev/stdout``) unless the script left a thread running, which
could write at any moment.

A thread the script leaves running writes through ``sys.stdout`` whenever it likes, tape's
result included: from then on ``sys.stdout`` sends what other threads write to standard error
(``_MainThreadOnly``).

``finish`` ends the process's output: it flushes standard output (reporting a failure as above)
and then points descriptor 1 and ``sys.stdout`` at standard error, where a script's ``atexit``
handler or a thread still running can no longer spoil the result.
"""
from __future__ import annotations

import contextlib
import errno
import io
import os
import sys
from threading import active_count, get_ident     # loaded at start-up anyway (Typer, rich)

# the C module behind ``signal``: its getsignal returns plain values, without building an enum
# per call (a script's every call saves and restores handlers)
import _signal as signal

from ..expr.errors import BAD_INPUT, INTERRUPTED, CLIError, OutputClosed

STDIN, STDOUT, STDERR = 0, 1, 2


class OutputFailed(CLIError):
    """Standard output refused the result (a full disk, a descriptor not open for writing)."""

    def __init__(self, exc: OSError):
        reason = exc.strerror or type(exc).__name__
        super().__init__(f"cannot write the result to standard output: {reason}", BAD_INPUT)


class StandardOutputClosed(CLIError):
    def __init__(self) -> None:
        super().__init__("standard output is closed (>&-): tape has nowhere to print the result; "
                         "redirect it to a file or a pipe instead", BAD_INPUT)


class ScriptReadsStandardInput(CLIError):
    def __init__(self) -> None:
        super().__init__("the script reads standard input, which is tape's (points come from "
                         "it with --at - / --points -); give the script its data another way",
                         BAD_INPUT)


class StandardInputClosed(CLIError):
    def __init__(self) -> None:
        super().__init__("standard input is closed (<&-), and '--at -' / '--points -' read the "
                         "points from it; give the points with --at or --points FILE instead",
                         BAD_INPUT)


class _Forgiving(io.RawIOBase):
    """Descriptor ``fd`` for messages: what cannot be written is dropped, never an error, and
    making one never fails either (a script may have closed descriptor 2, or put a directory
    there, before tape makes the script's stream on it)."""

    def __init__(self, fd: int) -> None:
        super().__init__()
        self._fd = fd

    def writable(self) -> bool:
        return True

    def fileno(self) -> int:
        return self._fd

    def isatty(self) -> bool:
        try:
            return os.isatty(self._fd)
        except OSError:
            return False

    def write(self, data) -> int:
        try:
            return os.write(self._fd, data)
        except OSError:
            return len(data)


class _ResultOutput(io.FileIO):
    """Descriptor ``fd`` (tape's own copy of standard output), its failures turned into
    tape's. Only the first failure is raised: what follows is dropped, so it is reported once.
    The file object's own ``fileno``, ``writable`` and ``isatty`` answer for the descriptor
    (``closefd=False``: tape keeps it)."""

    def __init__(self, fd: int) -> None:
        super().__init__(fd, "w", closefd=False)
        self._fd = fd
        self._failed = False

    def write(self, data) -> int:
        if self._failed:
            return len(data)
        try:
            return os.write(self._fd, data)
        except OSError as exc:
            self._failed = True
            if isinstance(exc, BrokenPipeError):
                raise OutputClosed() from None
            raise OutputFailed(exc) from None


class _Closed(io.TextIOBase):
    """A standard stream that was closed when tape started: using it raises ``error``."""

    def __init__(self, error: type[CLIError]) -> None:
        super().__init__()
        self._error = error

    def isatty(self) -> bool:
        return False

    def _refuse(self, *args, **kwargs):
        raise self._error()

    read = readline = readlines = write = writelines = _refuse

    def fileno(self) -> int:
        raise io.UnsupportedOperation("the stream was closed when tape started")

    def __next__(self):
        raise self._error()

    def flush(self) -> None:
        pass

    @property
    def buffer(self):
        raise self._error()


class _MainThreadOnly:
    """``result`` (tape's standard output) for the thread that made it; what any other thread
    writes (a script's, still running) goes to ``other`` (standard error) instead."""

    def __init__(self, result, other) -> None:
        self._result = result
        self._other = other
        self._owner = get_ident()

    def write(self, text: str) -> int:
        if get_ident() == self._owner:
            return self._result.write(text)
        return self._other.write(text)

    def writelines(self, lines) -> None:
        for line in lines:
            self.write(line)

    def flush(self) -> None:
        (self._result if get_ident() == self._owner else self._other).flush()

    def __getattr__(self, name: str):
        return getattr(self._result, name)


def _is_open(fd: int) -> bool:
    try:
        os.fstat(fd)
    except OSError:
        return False
    return True


def _text(raw: io.RawIOBase, like, line_buffering: bool) -> io.TextIOWrapper:
    """A text stream on ``raw`` with ``like``'s encoding. A character the encoding lacks (a
    table's ∂ under PYTHONIOENCODING=ascii or the C locale), or a lone surrogate standing for
    an undecodable byte, is written as an escape, not raised: the result's numbers are ASCII."""
    errors = getattr(like, "errors", None) or "strict"
    return io.TextIOWrapper(io.BufferedWriter(raw), encoding=getattr(like, "encoding", None)
                            or "utf-8", errors="backslashreplace"
                            if errors in ("strict", "surrogateescape") else errors,
                            line_buffering=line_buffering)


#: tape's own copy of standard output, once ``guard_standard_streams`` has made it (its result
#: goes there, not through descriptor 1); None before, or when standard output was closed
_stdout_copy: int | None = None
#: tape's own copy of standard error (its messages go there), likewise
_stderr_copy: int | None = None
#: whether a script has left a thread running (descriptor 1 then stays on standard error)
_script_threads = False


def guard_standard_streams() -> None:
    """Set up standard input, output and error as the module docstring says (once, at start)."""
    global _stdout_copy, _stderr_copy
    closed = [fd for fd in (STDIN, STDOUT, STDERR) if not _is_open(fd)]
    for fd in closed:
        null = os.open(os.devnull, os.O_RDWR)
        if null != fd:
            os.dup2(null, fd)
            os.close(null)
    if STDIN in closed:
        sys.stdin = _Closed(StandardInputClosed)
    if STDOUT in closed:
        sys.stdout = _Closed(StandardOutputClosed)
    else:
        old = sys.stdout
        with contextlib.suppress(Exception):
            old.flush()
        _stdout_copy = os.dup(STDOUT)   # close-on-exec: the SymPy worker does not inherit it
        sys.stdout = _text(_ResultOutput(_stdout_copy), old,
                           line_buffering=os.isatty(_stdout_copy))
    _stderr_copy = os.dup(STDERR)       # tape's messages, whatever a script does to descriptor 2
    sys.stderr = _text(_Forgiving(_stderr_copy), sys.stderr, line_buffering=True)
    if sys.__stderr__ is None:
        sys.__stderr__ = sys.stderr


def utf8_arguments(argv: list[str]) -> list[str]:
    """The command-line arguments as UTF-8 text. Under a locale that is not UTF-8 (``LC_ALL=C``
    with ``PYTHONUTF8=0``) Python stands in for each byte above 127 with a lone surrogate, so
    ``x²`` arrives as ``'x\\udcc2\\udcb2'``: such an argument is decoded from its bytes as
    UTF-8, and one whose bytes are not UTF-8 is bad input that names it."""
    out = []
    for number, arg in enumerate(argv, 1):
        if arg.isascii():
            out.append(arg)
            continue
        try:
            arg.encode("utf-8")
        except UnicodeEncodeError:
            raw = os.fsencode(arg)
            try:
                arg = raw.decode("utf-8")
            except UnicodeDecodeError as exc:
                raise CLIError(f"argument {number} is not UTF-8 text (byte 0x{raw[exc.start]:02x} "
                               f"at position {exc.start + 1}); tape reads its arguments as "
                               f"UTF-8", BAD_INPUT) from None
        out.append(arg)
    return out


def run(app) -> None:
    """Run the Typer ``app`` as the ``tape`` process and exit with its code."""
    guard_standard_streams()
    _sane_terminal_size()
    try:
        sys.argv[1:] = utf8_arguments(sys.argv[1:])
    except CLIError as exc:
        sys.stderr.write(f"error: {exc.message}\n")
        sys.stderr.flush()
        sys.exit(exc.code)
    if signal.getsignal(signal.SIGINT) == signal.SIG_DFL:     # left so by start-up
        signal.signal(signal.SIGINT, signal.default_int_handler)
    try:
        app()
        code = 0
    except SystemExit as exc:
        code = exc.code
    except KeyboardInterrupt:
        sys.stderr.write("error: interrupted\n")
        code = INTERRUPTED
    if signal.getsignal(signal.SIGINT) is signal.default_int_handler:
        signal.signal(signal.SIGINT, signal.SIG_DFL)
    failed = finish()
    if failed and code != INTERRUPTED:
        code = failed
    sys.exit(code)


def finish() -> int | None:
    """Flush the result to standard output and fence descriptor 1 off (module docstring).
    Returns the exit code a failure calls for (None: written)."""
    code = None
    try:
        sys.stdout.flush()
    except OutputClosed:
        code = 0
    except CLIError as exc:
        sys.stderr.write("".join(f"error: {line}\n" for line in exc.lines()))
        code = exc.code
    with contextlib.suppress(OSError):
        sys.stderr.flush()
        os.dup2(STDERR if _stderr_copy is None else _stderr_copy, STDOUT)
    # the result is whole: a script's atexit handler, or its thread, prints to standard error
    sys.stdout = _script_output()
    return code


def _sane_terminal_size() -> None:
    """Drop a COLUMNS or LINES that is not a positive number (COLUMNS=0 makes rich print an
    empty table): the terminal's own size, or 80 columns, is used instead."""
    for name in ("COLUMNS", "LINES"):
        value = os.environ.get(name)
        if value is not None and not (value.strip().isdigit() and int(value) > 0):
            del os.environ[name]


_SIGNALS = [signal.SIGINT, signal.SIGTERM, signal.SIGPIPE, signal.SIGHUP]


class script_code:
    """The fence around a user's script code (module docstring): descriptor 1 and
    ``sys.stdout`` lead to standard error while it runs; afterwards descriptor 1 (unless the
    script left a thread running), the working directory and the handlers of the signals tape
    relies on are restored, and a process the script forked ends there instead of carrying on
    as a second tape. Scripts that cannot take a whole batch are called once per point, with
    this around every call: it is kept to a few system calls."""

    __slots__ = ("_owner", "_threads", "_cwd", "_handlers", "_saved", "_streams")

    def __enter__(self) -> None:
        global _script_owner
        self._owner = _script_owner = os.getpid()
        self._threads = active_count()
        self._cwd = _getcwd()
        self._handlers = [signal.getsignal(s) for s in _SIGNALS]
        self._saved = _redirect(STDOUT, STDERR) if _stdout_copy is None else None
        if _stdout_copy is not None:
            _dup2(STDERR if _stderr_copy is None else _stderr_copy, STDOUT)
        self._streams = sys.stdin, sys.stdout, sys.stderr
        sys.stdin = _SCRIPT_INPUT
        sys.stdout = sys.stderr = _script_output()
        os._exit = _script_exit

    def __exit__(self, *exc_info) -> None:
        if os.getpid() != self._owner:
            _real_exit(0)
        os._exit = _real_exit
        sys.stdin, sys.stdout, sys.stderr = self._streams
        try:
            sys.__stdout__.flush()      # what the script left in Python's own buffer
        except Exception:               # closed by the script, or None: nothing to keep
            pass
        global _script_threads
        if _stdout_copy is None:
            _restore(STDOUT, self._saved)
        elif _script_threads or active_count() > self._threads:
            # a thread the script started may write at any moment, tape's output included:
            # descriptor 1 stays on standard error (tape writes through its own copy), and so
            # does what the thread prints
            _script_threads = True
            if not isinstance(sys.stdout, _MainThreadOnly):
                sys.stdout = _MainThreadOnly(sys.stdout, _script_output())
        else:
            _dup2(_stdout_copy, STDOUT)
        _sane_terminal_size()
        if self._cwd is not None and _getcwd() != self._cwd:
            try:
                os.chdir(self._cwd)
            except OSError:
                pass
        for s, handler in zip(_SIGNALS, self._handlers):
            if handler is not None and signal.getsignal(s) != handler:
                try:
                    signal.signal(s, handler)
                except ValueError:      # only the main thread may set them
                    pass


_real_exit = os._exit
_script_owner = 0
#: what a script reads as ``sys.stdin``: the points may come from standard input
_SCRIPT_INPUT = _Closed(ScriptReadsStandardInput)
_script_stream: io.TextIOWrapper | None = None


def _script_exit(status: int) -> None:
    """``os._exit`` while a script runs: ending tape without its result would look like
    success; a process the script forked may end that way."""
    if os.getpid() != _script_owner:
        _real_exit(status)
    raise SystemExit(f"os._exit({status})")


def _script_output():
    """What a script's ``sys.stdout`` and ``sys.stderr`` are: standard error, through a stream
    of the script's own (it may close it: tape's ``sys.stderr`` is another one). Unguarded (tape
    run in-process by tests), tape's ``sys.stderr`` itself."""
    global _script_stream
    if _stderr_copy is None:
        return sys.stderr
    if _script_stream is None or _script_stream.closed:
        _script_stream = _text(_Forgiving(STDERR), sys.stderr, line_buffering=True)
    return _script_stream


def _getcwd() -> str | None:
    try:
        return os.getcwd()
    except OSError:
        return None


#: ``_redirect``'s answer when ``fd`` could not be saved (no descriptor left): left alone
_UNTOUCHED = -1


def _redirect(fd: int, to: int) -> int | None:
    """Point ``fd`` at ``to``; returns a copy of what ``fd`` was (None: it was not open)."""
    try:
        saved = os.dup(fd)
    except OSError as exc:
        if exc.errno != errno.EBADF:
            return _UNTOUCHED
        saved = None
    try:
        os.dup2(to, fd)
    except OSError:         # ``to`` is not open: ``fd`` stays as it was
        pass
    return saved


def _dup2(fd: int, to: int) -> None:
    try:
        os.dup2(fd, to)
    except OSError:
        pass


def _restore(fd: int, saved: int | None) -> None:
    if saved == _UNTOUCHED:
        return
    try:
        if saved is None:
            os.close(fd)
        else:
            os.dup2(saved, fd)
            os.close(saved)
    except OSError:
        pass
