"""``tape grade`` as a call, ``tape.grading.grade``: many answers checked over worker processes
(SPEC sections 8 and 9). (The module is not called ``grade``: importing it would then replace
the function ``tape.grading.grade`` with the module.)

>>> rows = [{"expression": "x^2", "answer": "2x"}, {"expression": "sin x", "answer": "-cos x"}]
>>> [g.status for g in grade(rows, workers=1)]
['correct', 'wrong']

Each row is checked by ``homework.check`` in a worker process, so one that crashes the
interpreter or never ends costs that row only: it is ``undecided`` with the reason, the worker
is replaced and grading goes on. Rows come back in input order whatever the number of workers
(a verdict does not depend on which process reached it). A class hands in the same answer
many times ("2x" for d/dx x^2): a text already graded, or being graded, for the same problem is
not sent again but shares its verdict.

Workers are forked once the modules every check needs (NumPy, the engine, mpmath, SymPy) are
loaded, so none of them imports anything; each handles one row at a time, so a row that runs
out of time is known by its worker.
"""
from __future__ import annotations

import dataclasses
import os
import threading
import time
import weakref
from collections import OrderedDict, deque
from dataclasses import dataclass, field
from typing import Iterable, Iterator, Mapping, Optional

from ..calculus.limits import CHECK_MAX_ORDER, DEPENDENT, TIMEOUT
from ..expr.errors import BAD_INPUT, UNDECIDED, CLIError, ExprError
from .verdict import AnswerNameError, Verdict

#: the verdict words of SPEC section 9
STATUSES = ("correct", "wrong", "ambiguous", "undecided", "unreadable")
#: the kinds of exercise a row can be
KINDS = ("derivative", "antiderivative", "work")
#: rows read ahead of the first one not yet graded, per worker (bounds memory on a long input
#: while keeping every worker busy)
WINDOW = 64
#: beyond ``timeout``, seconds a row's whole check may take before its worker is stopped: the
#: numbers, the display work and a diagnosis come on top of the symbolic proof's limit
GRACE = 10.0


@dataclass
class Graded(Verdict):
    """The verdict on one row: a ``Verdict`` and its ``status``, one of ``STATUSES``
    (``unreadable`` and ``undecided`` have the ``reason``); ``row`` is the row as given and
    ``index`` its place in the input (from 0); ``work`` the ``WorkVerdict`` of a derivation
    (kind ``work``), whose lines give its score."""

    status: str = "undecided"
    row: Mapping = field(default_factory=dict)
    index: int = 0
    work: Optional[object] = None


class RowError(ValueError):
    """A row that does not say what to check (no answer column, an order that is not a
    number...): the row's fault, or the file's when a whole file is read (``tape grade``)."""


@dataclass(frozen=True)
class Task:
    """What one row asks: ``check``'s arguments."""

    expression: str
    answer: str
    wrt: Optional[str] = None
    order: int = 1
    implicit: bool = False
    dependent: str = DEPENDENT
    antiderivative: bool = False
    constant: Optional[str] = None
    #: the answer is a derivation, one step per line, checked by ``check_work``
    work: bool = False

    @property
    def kind(self) -> str:
        """The row's ``kind``, one of ``KINDS``."""
        return "work" if self.work else "antiderivative" if self.antiderivative else \
            "derivative"


_TRUE = {"1", "true", "yes", "y", "t", "on", "x"}
_FALSE = {"", "0", "false", "no", "n", "f", "off"}


def _text(row: Mapping, name: str) -> str:
    value = row.get(name)
    if value is None:
        return ""
    if isinstance(value, bool):
        return "true" if value else "false"
    if not isinstance(value, (str, int, float)):
        raise RowError(f"{name}: {value!r} is not text")
    return str(value).strip()


def task_of(row: Mapping) -> Task:
    """The check a row asks for (columns of SPEC section 9), or ``RowError`` naming the column
    that is missing or wrong."""
    if not isinstance(row, Mapping):
        raise RowError(f"a row is a mapping of column names to values, not {type(row).__name__}")
    if "expression" not in row or row.get("expression") is None:
        raise RowError("no expression (an 'expression' column, or a --key naming the "
                       "row's problem)")
    if "answer" not in row:
        raise RowError("no 'answer' column")
    order_text = _text(row, "order") or "1"
    try:
        order = int(float(order_text)) if float(order_text).is_integer() else None
    except ValueError:
        order = None
    if order is None or not 1 <= order <= CHECK_MAX_ORDER:
        raise RowError(f"order: {order_text!r} is not a whole number from 1 to "
                       f"{CHECK_MAX_ORDER}")
    implicit_text = _text(row, "implicit").lower()
    if implicit_text not in _TRUE | _FALSE:
        raise RowError(f"implicit: {implicit_text!r} is not yes or no")
    kind = _text(row, "kind").lower() or "derivative"
    if kind not in KINDS:
        raise RowError(f"kind: {kind!r} is not one of {', '.join(KINDS)}")
    if kind == "work" and (order != 1 or implicit_text in _TRUE):
        raise RowError("kind work checks a derivation of a first derivative of an explicit "
                       "function: no order above 1, no implicit")
    raw_answer = row.get("answer")
    answer = "" if raw_answer is None else str(raw_answer)
    return Task(str(row["expression"]), answer, _text(row, "wrt") or None, order,
                implicit_text in _TRUE, _text(row, "dependent") or DEPENDENT,
                kind == "antiderivative", _text(row, "constant") or None, kind == "work")


def _status(verdict: Verdict) -> str:
    if verdict.ambiguous:
        return "ambiguous"
    return {True: "correct", False: "wrong", None: "undecided"}[verdict.correct]


def _refused(task: Task, status: str, reason: str) -> Graded:
    return Graded(None, "", None, reason=reason, status=status, expression=task.expression,
                  answer=task.answer, wrt=task.wrt or "")


def graded(task: Task, timeout: float = TIMEOUT) -> Graded:
    """``task`` checked here and now: what ``tape check`` says, as a row. Bad input (a text
    that cannot be read, a name the expression does not have) is ``unreadable``; SymPy
    running out of time without the numbers deciding is ``undecided``."""
    from .homework import check

    if not task.answer.strip():
        return _refused(task, "unreadable", "no answer")
    if task.work:
        return _graded_work(task, timeout)
    try:
        verdict = check(task.expression, task.answer, wrt=task.wrt, order=task.order,
                        implicit=task.implicit, dependent=task.dependent,
                        antiderivative=task.antiderivative, constant=task.constant,
                        timeout=timeout)
    except ExprError as err:
        return _refused(task, "unreadable", _one_line(err))
    except CLIError as err:
        letters = foreign_letters(err)
        if letters:
            return _refused(task, "wrong", f"uses {', '.join(letters)}, which "
                                           f"{'is' if len(letters) == 1 else 'are'} not in "
                                           f"the expression")
        return _refused(task, "undecided" if err.code == UNDECIDED else "unreadable",
                        err.message)
    values = {f.name: getattr(verdict, f.name) for f in dataclasses.fields(Verdict)}
    return Graded(**values, status=_status(verdict))


#: a derivation's status as a verdict's ``correct`` (others: None)
_WORK_CORRECT = {"correct": True, "wrong": False}


def _graded_work(task: Task, timeout: float) -> Graded:
    """A derivation (kind ``work``) checked line by line by ``check_work``, the row's
    expression its task: the status is the work's; the diagnosis and counterexample are the
    first wrong line's (each with its ``line``), else the last line's against the task; the
    reading is the lines' readings, one per line; ``work`` carries the lines for the score.
    A derivation without a step, or a task that cannot be read, is ``unreadable``."""
    from .derivation import CARRIED, FOLLOWS, WRONG, check_work

    try:
        work = check_work(task.answer, task=task.expression, wrt=task.wrt, timeout=timeout)
    except ExprError as err:
        return _refused(task, "unreadable", _one_line(err))
    except CLIError as err:
        return _refused(task, "undecided" if err.code == UNDECIDED else "unreadable",
                        err.message)
    wrong = next((line for line in work.lines if line.verdict == WRONG), None)
    final = work.final
    diagnosis = counterexample = None
    if wrong is not None:
        diagnosis = dict(wrong.diagnosis, line=wrong.number) if wrong.diagnosis else None
        counterexample = dict(wrong.counterexample, line_number=wrong.number) \
            if wrong.counterexample else None
    elif final is not None and final.correct is False:
        diagnosis, counterexample = final.diagnosis, final.counterexample
    counts = work.credit()
    said = [f"{counts['follows']} of {counts['steps']} "
            f"{'step follows' if counts['steps'] == 1 else 'steps follow'}"]
    if wrong is not None:
        said.append(f"line {wrong.number} is wrong")
    if counts["carried"]:
        said.append(f"{counts['carried']} {'follows' if counts['carried'] == 1 else 'follow'}"
                    f" from a wrong line")
    unread = [line for line in work.lines if line.verdict not in (FOLLOWS, WRONG, CARRIED)]
    reason = None
    if work.status in ("unreadable", "undecided", "ambiguous"):
        if unread:
            said_why = unread[0].reason or unread[0].verdict
            where = f"line {unread[0].number}"
            reason = said_why if said_why.startswith(where) else f"{where}: {said_why}"
        else:
            reason = work.final_reason or (final.reason if final is not None else None)
    elif work.status == "wrong" and wrong is None:
        reason = work.final_reason
    notes = [f"line {line.number}: {note}" for line in work.lines for note in line.notes]
    return Graded(_WORK_CORRECT.get(work.status), "work",
                  final.expected if final is not None else None, counterexample,
                  note="; ".join(said), diagnosis=diagnosis, extra={"kind": "work"},
                  read_as={"expression": work.task.get("read_as"),
                           "answer": "\n".join(line.read_as or "?" for line in work.lines)},
                  reason=reason, expression=task.expression, answer=task.answer,
                  wrt=task.wrt or work.task.get("wrt") or "", notes=notes,
                  ambiguous=work.status == "ambiguous", status=work.status, work=work)


def foreign_letters(err: Exception) -> list[str]:
    """The names an answer uses that its expression does not have, when ``err`` says so (the
    answer is then wrong, not unreadable: it is a function of something else), else []."""
    return list(err.names) if isinstance(err, AnswerNameError) else []


def _one_line(err: ExprError) -> str:
    """A reading error without its caret lines (a table cell has no room for them)."""
    lines = err.lines()
    # the option's name means nothing in a file of answers (and a cell starting with - would
    # be a formula to a spreadsheet)
    first = lines[0].removeprefix("--answer: ")
    return "; ".join([first] + ([err.hint] if err.hint else []))


# --------------------------------------------------------------------------- the workers

def _serve(conn, parent: int, timeout: float) -> None:
    """A worker: grade each task received until told to stop (None)."""
    from ..calculus.timelimit import _tie_to_parent
    from ..expr import notes

    _tie_to_parent(parent)      # Ctrl-C is the parent's to handle; die with it
    notes.listener = None       # notes travel with the verdict, not to the terminal
    _silence_descriptors()
    while True:
        try:
            task = conn.recv()
        except EOFError:
            return
        if task is None:
            return
        try:
            result = graded(task, timeout)
        except Exception as exc:  # noqa: BLE001  (a bug on one row must not stop the rest)
            result = _refused(task, "undecided", f"internal error: {type(exc).__name__}: "
                                                 f"{exc}")
        conn.send(result)


#: checked here once before the workers are forked: a right answer, a wrong one and its
#: diagnosis load and prime what every check uses; SymPy is loaded too, for the answers tape's
#: rules do not decide (a proof, a function without a rule), whose SymPy work runs in a child
#: forked from a worker that would otherwise start it cold
PRIMERS = [("x^2 sin x", "2x sin x + x^2 cos x"), ("x^2 sin x", "2x cos x")]


def _silence_descriptors() -> None:
    """Point descriptors 1 and 2 at /dev/null: a worker has nothing to say there, a library's
    warning must not land in the middle of the caller's output, and output the caller had
    buffered when the worker was forked (copied with it) must not be written a second time
    when the worker's SymPy child flushes on its way."""
    null = os.open(os.devnull, os.O_WRONLY)
    for fd in (1, 2):
        try:
            os.dup2(null, fd)
        except OSError:
            pass
    os.close(null)


_primed = False
#: held while priming and while forking: a worker forked while another thread is half way
#: through an import (SymPy's, during priming) would inherit that module half loaded, locked
#: by a thread the worker does not have, and wait for it forever
_FORK_LOCK = threading.RLock()


def warm_up() -> None:
    """Load and prime what every check needs, before the workers are forked (once per
    process; a thread arriving while another primes waits for it to finish)."""
    global _primed
    if _primed:
        return
    with _FORK_LOCK:
        if _primed:
            return
        from ..expr.parse import read
        from .diagnosis import diagnose
        from .homework import check

        check(*PRIMERS[0])
        tree, answer = read(PRIMERS[1][0]).tree, read(PRIMERS[1][1]).tree
        try:
            diagnose(tree, answer, ["x"], ["x"], [(0.5,), (1.5,), (2.0,)])
        except Exception:  # noqa: BLE001  (priming only: a failure here costs nothing)
            pass
        from . import antiderivative, derivation, slips  # noqa: F401
        from ..expr.symbolic import sympy

        sympy()
        _primed = True


class _Worker:
    """A forked process grading the tasks sent down its pipe. Forked by hand rather than as a
    ``multiprocessing.Process``: multiprocessing waits at exit for its non-daemonic children
    (a worker must not be daemonic: its SymPy work forks children), and a worker only ends
    when told to; this one ends when its parent does (``_tie_to_parent``, and its pipe
    closing)."""

    def __init__(self, timeout: float) -> None:
        from multiprocessing.connection import Pipe

        self.conn, theirs = Pipe()
        parent = os.getpid()
        with _FORK_LOCK:
            self.pid = os.fork()
        if self.pid == 0:       # the worker: never back into the caller's code
            code = 0
            try:
                self.conn.close()
                _serve(theirs, parent, timeout)
            except BaseException:  # noqa: BLE001  (the parent sees the end of the pipe)
                code = 1
            finally:
                os._exit(code)
        theirs.close()
        self.task: Optional[Task] = None
        self.key = None
        self.since = 0.0
        self.exitcode: Optional[int] = None

    def give(self, task: Task) -> None:
        self.task, self.since = task, time.monotonic()
        self.conn.send(task)

    def stop(self) -> None:
        """Kill the process (if still running) and collect its exit code."""
        if self.exitcode is None:
            try:
                os.kill(self.pid, 9)
            except ProcessLookupError:
                pass
            self._reap(block=True)
        self.conn.close()

    def _reap(self, block: bool) -> None:
        try:
            pid, status = os.waitpid(self.pid, 0 if block else os.WNOHANG)
        except ChildProcessError:
            self.exitcode = self.exitcode if self.exitcode is not None else -1
            return
        if pid:
            self.exitcode = os.waitstatus_to_exitcode(status)

    def ended_with(self, wait: float = 1.0) -> Optional[int]:
        """The exit code of a worker whose pipe closed (waiting up to ``wait`` seconds)."""
        deadline = time.monotonic() + wait
        while self.exitcode is None and time.monotonic() < deadline:
            self._reap(block=False)
            if self.exitcode is None:
                time.sleep(0.01)
        return self.exitcode


class _Rows:
    """The input rows, taken as they arrive. A sequence is walked here; any other iterable
    (standard input, a generator) is read by a thread into a bounded queue, so that rows
    already read are graded while the next one is still on its way and a slow or endless
    source holds at most ``ahead`` rows in memory. A row's ``(index, row)``; an exception the
    iterable raised comes out in its place, after the rows before it."""

    def __init__(self, rows: Iterable[Mapping], ahead: int) -> None:
        import queue

        self.sequence = isinstance(rows, (list, tuple))
        if self.sequence:
            self.items = iter(rows)
            return
        self.queue: "queue.Queue" = queue.Queue(maxsize=max(1, ahead))
        self.signal_r, self.signal_w = os.pipe()
        os.set_blocking(self.signal_r, False)
        self.closed = False
        self.ended = False              # the thread is done with the pipe
        self.lock = threading.Lock()
        self.thread = threading.Thread(target=self._read, args=(iter(rows),), daemon=True,
                                       name="tape-grade-rows")
        self.thread.start()

    def _read(self, items) -> None:
        try:
            for row in items:
                if self.closed:
                    return
                self._put(("row", row))
            self._put(("end", None))
        except BaseException as exc:  # noqa: BLE001  (handed to the consumer, in its place)
            self._put(("error", exc))
            self._put(("end", None))
        finally:
            # the write end is this thread's to close: closed by the consumer, its number
            # could be given to a file opened meanwhile and a signal written into that file;
            # the read end is closed by whichever of the two is done last (a source that
            # never ends keeps both: two descriptors)
            os.close(self.signal_w)
            with self.lock:
                self.ended = True
                if self.closed:
                    os.close(self.signal_r)

    def _put(self, item) -> None:
        import queue

        while not self.closed:
            try:
                self.queue.put(item, timeout=0.2)
            except queue.Full:
                continue
            try:
                os.write(self.signal_w, b".")
            except OSError:
                pass        # full of signals already (the consumer will look), or closed
            return

    def fileno(self) -> Optional[int]:
        """A descriptor readable when a row has arrived (None for a sequence)."""
        return None if self.sequence else self.signal_r

    def take(self, block: bool):
        """The next ``("row", row)``, ``("error", exc)`` or ``("end", None)``; None when
        nothing has arrived and ``block`` is false."""
        import queue

        if self.sequence:
            try:
                return ("row", next(self.items))
            except StopIteration:
                return ("end", None)
        try:
            item = self.queue.get(block=block)
        except queue.Empty:
            return None
        try:
            os.read(self.signal_r, 1)
        except (BlockingIOError, OSError):
            pass
        return item

    def close(self) -> None:
        """Stop taking rows (a reader still waiting for one ends when it comes)."""
        if self.sequence or self.closed:
            return
        with self.lock:
            self.closed = True
            if self.ended:
                os.close(self.signal_r)


#: verdicts remembered for answers met again (beyond it the oldest is forgotten: memory stays
#: flat however long the input)
KNOWN = 4096


class Grading(Iterator[Graded]):
    """The rows' verdicts, in input order (``grade``). ``stop()`` ends the work at once (the
    workers are killed) and returns the rows already graded that were waiting for an earlier
    one; leaving a ``with`` block stops it too."""

    def __init__(self, rows: Iterable[Mapping], workers: Optional[int], timeout: float,
                 row_limit: Optional[float], executor=None) -> None:
        if timeout is None or not timeout > 0:
            raise CLIError(f"--timeout must be a positive number of seconds, got {timeout}")
        if workers is not None and workers < 1:
            raise CLIError(f"--workers must be at least 1, got {workers}")
        if executor is not None and not callable(getattr(executor, "submit", None)):
            raise TypeError(f"executor: {type(executor).__name__} has no submit(); give a "
                           f"concurrent.futures.Executor (a Dask client's get_executor())")
        self.most = workers or (_executor_width(executor) if executor else _cores())
        self.ahead = WINDOW * self.most
        self.rows = _Rows(rows, self.ahead)
        self.timeout = timeout
        self.row_limit = row_limit if row_limit is not None else 2 * timeout + GRACE
        self.executor = executor
        self.futures: dict = {}             # future -> task (executor=)
        self.workers: list[_Worker] = []
        self.exhausted = False
        self.failure: Optional[tuple[int, BaseException]] = None
        self.read = 0                       # rows taken from the input
        self.next = 0                       # the index to give next
        self.done: dict[int, Graded] = {}   # graded, waiting for an earlier row
        self.rows_of: dict = {}             # key -> (task, [(index, row)]) waiting for it
        self.known: "OrderedDict" = OrderedDict()   # key -> its verdict (the latest KNOWN)
        self.queue: deque = deque()         # keys for the next free worker
        self.expressions: dict = {}         # (expression, wrt) -> its names, for keys
        self.keys: dict = {}                # task -> its key (the latest KNOWN)
        self.stopped = False
        # an iteration left unfinished still ends its workers (when the Grading is collected)
        self._finalizer = weakref.finalize(self, _stop_all, self.workers)

    def __enter__(self) -> "Grading":
        return self

    def __exit__(self, *exc) -> None:
        self.stop()

    def __next__(self) -> Graded:
        if self.stopped:
            raise StopIteration
        try:
            while self.next not in self.done:
                self._take_rows(block=not self._busy() and not self.queue)
                if self.next in self.done:
                    break
                if self.failure is not None and self.next == self.failure[0]:
                    exc = self.failure[1]
                    self.stop()
                    raise exc
                if self.exhausted and self.next >= self.read:
                    self.stop()
                    raise StopIteration
                self._work()
        except BaseException:
            self._kill()    # Ctrl-C included: no worker outlives the error
            raise
        self.next += 1
        return self.done.pop(self.next - 1)

    def stop(self) -> list[Graded]:
        """Stop now; the rows graded but not yet given, in input order."""
        self.stopped = True
        self._kill()
        self.rows.close()
        left = [self.done[i] for i in sorted(self.done)]
        self.done.clear()
        return left

    # ------------------------------------------------------------------ the input
    def _take_rows(self, block: bool) -> None:
        """Take the rows that have arrived, up to ``ahead`` past the next one to give; with
        ``block``, wait for one when none has."""
        while not self.exhausted and self.read - self.next < self.ahead:
            item = self.rows.take(block)
            if item is None:
                return
            block = False
            what, value = item
            if what == "end":
                self.exhausted = True
                return
            if what == "error":
                self.exhausted = True
                self.failure = (self.read, value)
                return
            index, row = self.read, value
            self.read += 1
            self._admit(index, row)

    def _admit(self, index: int, row: Mapping) -> None:
        try:
            task = task_of(row)
        except RowError as err:
            self.done[index] = Graded(None, "", None, reason=str(err), status="unreadable",
                                      row=row, index=index,
                                      answer=str(row.get("answer") or "")
                                      if isinstance(row, Mapping) else "")
            return
        key = self.keys.get(task)
        if key is None:
            key = self.keys[task] = self._key(task)
            if len(self.keys) > KNOWN:
                self.keys.pop(next(iter(self.keys)))
        if key in self.known:
            self.known.move_to_end(key)
            self.done[index] = self._for(self.known[key], index, row, task)
        elif key in self.rows_of:
            self.rows_of[key][1].append((index, row))
        else:
            self.rows_of[key] = (task, [(index, row)])
            self.queue.append(key)

    def _key(self, task: Task):
        """What makes two rows one check: the task, with the answer as tape reads it (``2x``,
        ``2*x`` and ``2 x`` are one check); the text itself for an implicit derivative (read
        with its equation's names), for LaTeX (whose notes depend on the text) and for a
        derivation (a text of many lines, not one reading)."""
        if task.implicit or task.work or "\\" in task.answer:
            return task
        names = self._names(task)
        if names is None:
            return task
        from ..expr.parse import read
        try:
            reading = read(task.answer, names=names, label="--answer")
        except Exception:  # noqa: BLE001  (an answer tape cannot read is keyed by its text)
            return task
        return (dataclasses.replace(task, answer=""), reading.read_as, tuple(reading.notes),
                reading.asks, repr((reading.derivative_order, reading.order, reading.wrt)))

    def _names(self, task: Task) -> Optional[tuple]:
        """The names the answer is read with in ``check`` (the expression's), or None."""
        found = self.expressions.get((task.expression, task.wrt), False)
        if found is not False:
            return found
        from ..calculus.targets import declared_names
        from ..expr.parse import read
        try:
            names = tuple(sorted(read(task.expression,
                                      names=declared_names(wrt=task.wrt)).variables))
        except Exception:  # noqa: BLE001  (the check says why; this is only a key)
            names = None
        if len(self.expressions) > KNOWN:
            self.expressions.clear()
        self.expressions[(task.expression, task.wrt)] = names
        return names

    def _for(self, verdict: Graded, index: int, row: Mapping, task: Task) -> Graded:
        return dataclasses.replace(verdict, row=row, index=index, answer=task.answer)

    def _settle(self, key, verdict: Graded) -> None:
        self.known[key] = verdict
        if len(self.known) > KNOWN:
            self.known.popitem(last=False)
        task, waiting = self.rows_of.pop(key, (None, []))
        for index, row in waiting:
            self.done[index] = self._for(verdict, index, row, task_of(row))

    # ------------------------------------------------------------------ the workers
    def _busy(self) -> bool:
        return bool(self.futures) or any(w.task is not None for w in self.workers)

    def _work(self) -> None:
        """Hand out waiting tasks, then wait for a verdict, a crash, a row's time limit or
        the next row of the input."""
        if self.executor is not None:
            return self._work_elsewhere()
        from multiprocessing.connection import wait

        if not hasattr(os, "fork"):     # (Windows) here, one row at a time, no time limit
            if self.queue:
                key = self.queue.popleft()
                self._settle(key, graded(self.rows_of[key][0], self.timeout))
            return
        idle = [w for w in self.workers if w.task is None]
        while self.queue and (idle or len(self.workers) < self.most):
            worker = idle.pop() if idle else self._start()
            key = self.queue.popleft()
            worker.key = key
            worker.give(self.rows_of[key][0])
        busy = [w for w in self.workers if w.task is not None]
        if not busy:
            return
        now = time.monotonic()
        soonest = min(w.since for w in busy) + self.row_limit
        more = self.rows.fileno()
        waiting = [w.conn for w in busy]
        if more is not None and not self.exhausted and self.read - self.next < self.ahead:
            waiting.append(more)
        ready = wait(waiting, timeout=max(0.0, soonest - now))
        for worker in busy:
            if worker.conn in ready:        # a verdict, or the end of the pipe: a crash
                self._collect(worker)
        now = time.monotonic()
        for worker in [w for w in self.workers if w.task is not None]:
            if now - worker.since > self.row_limit:
                self._replace(worker, f"the check did not finish in {self.row_limit:g} s "
                                      f"and was stopped")

    def _work_elsewhere(self) -> None:
        """``executor=``: tasks submitted to it (as many at once as rows are read ahead);
        a task that raises is ``undecided`` with the error."""
        from concurrent.futures import FIRST_COMPLETED, wait

        while self.queue and len(self.futures) < self.ahead:
            key = self.queue.popleft()
            future = self.executor.submit(graded, self.rows_of[key][0], self.timeout)
            self.futures[future] = key
        if not self.futures:
            return
        streaming = self.rows.fileno() is not None and not self.exhausted
        finished, _ = wait(list(self.futures), timeout=0.05 if streaming else None,
                           return_when=FIRST_COMPLETED)
        for future in finished:
            key = self.futures.pop(future)
            try:
                verdict = future.result()
            except Exception as exc:  # noqa: BLE001  (one row's failure, not the file's)
                verdict = _refused(self.rows_of[key][0], "undecided",
                                   f"the check failed where it ran: {type(exc).__name__}: "
                                   f"{exc}")
            self._settle(key, verdict)

    def _collect(self, worker: _Worker) -> None:
        key = worker.key
        try:
            if worker.conn.poll():
                verdict = worker.conn.recv()
                worker.task = None
                self._settle(key, verdict)
                return
        except (EOFError, OSError):
            pass
        code = worker.ended_with()
        self._replace(worker, f"the check stopped unexpectedly (its process ended with code "
                              f"{code}) and was not retried")

    def _replace(self, worker: _Worker, reason: str) -> None:
        task, key = worker.task, worker.key
        worker.stop()
        self.workers.remove(worker)
        self._settle(key, _refused(task, "undecided", reason))

    def _start(self) -> _Worker:
        warm_up()
        worker = _Worker(self.timeout)
        self.workers.append(worker)
        return worker

    def _kill(self) -> None:
        _stop_all(self.workers)
        for future in self.futures:
            future.cancel()
        self.futures.clear()


def _executor_width(executor) -> int:
    """How many tasks an executor runs at once, where it says (else the cores here)."""
    for name in ("_max_workers", "max_workers"):
        value = getattr(executor, name, None)
        if isinstance(value, int) and value > 0:
            return value
    return _cores()


def _stop_all(workers: list) -> None:
    for worker in workers:
        worker.stop()
    workers.clear()


def _cores() -> int:
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except (AttributeError, OSError):
        return os.cpu_count() or 1


def grade(rows: Iterable[Mapping], *, workers: Optional[int] = None,
          timeout: float = TIMEOUT, row_limit: Optional[float] = None,
          executor=None) -> Grading:
    """Check every row's answer (SPEC sections 8 and 9): an iterator of ``Graded`` verdicts,
    one per row, in input order.

    A row is a mapping with ``expression`` and ``answer`` and optionally ``wrt``, ``order``,
    ``implicit``, ``dependent``, ``kind`` (``derivative``, ``antiderivative`` or ``work``:
    the answer a derivation, one step per line, checked by ``check_work``) and
    ``constant`` (values as text or numbers; other columns are carried along in ``.row``).
    ``workers`` processes share the work (default: one per core); ``timeout`` bounds each
    row's symbolic work (seconds) and ``row_limit`` its whole check (default ``2 * timeout +
    10``). Nothing raises for one row: a row that cannot be read is ``unreadable``, one that
    runs out of time or crashes ``undecided``, each with the ``reason``.

    ``rows`` may be any iterable, endless too: rows are graded as they arrive, at most a
    window of them held at once. Rows whose answers read the same for one problem are checked
    once. ``executor`` (any ``concurrent.futures.Executor``: a process pool, a Dask client's
    ``get_executor()``) runs the checks instead of tape's own worker processes; ``workers``
    then bounds nothing but the rows sent ahead, and ``row_limit`` does not apply (an
    executor's task cannot be stopped from here).

    >>> [g.status for g in grade([{"expression": "x^3", "answer": "3x^2"}], workers=1)]
    ['correct']
    """
    return Grading(rows, workers, timeout, row_limit, executor)
