"""``tape.grading.grade`` (SPEC sections 8 and 9): every row gets one verdict, in input order,
the same whatever the number of workers and the same as ``check`` gives; a row that cannot be
read, crashes or runs out of time is its own row and the rest go on; stopping kills every
worker."""
from __future__ import annotations

import os
import signal
import sys
import threading
import time
from pathlib import Path

import pytest

import tape.grading
from tape.expr.errors import ExprError, CLIError
from tape.grading import batch as G

from .antiderivative_corpus import RIGHT as INTEGRALS_RIGHT, WRONG as INTEGRALS_WRONG

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "cli" / "homework"))
sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "cli" / "notation"))
from corpus import RIGHT, WRONG  # noqa: E402
from notation_corpus import VERDICTS  # noqa: E402


def _corpus_rows() -> list[dict]:
    rows = [{"expression": e, "answer": a, **o} for e, a, o in RIGHT]
    rows += [{"expression": e, "answer": a, **o} for e, a, o, _ in WRONG]
    rows += [{"expression": e, "answer": a} for e, right, wrong in VERDICTS for a in (right, wrong)]
    rows += [{"expression": e, "answer": a, "kind": "antiderivative", **o}
             for e, a, o in INTEGRALS_RIGHT]
    rows += [{"expression": e, "answer": a, "kind": "antiderivative", **o}
             for e, a, o, _ in INTEGRALS_WRONG]
    return rows


def _check_alone(row: dict):
    """What ``check`` says of a row: its verdict, or the word for the error it raises."""
    options = {k: v for k, v in row.items() if k not in ("expression", "answer", "kind")}
    try:
        verdict = tape.grading.check(row["expression"], row["answer"],
                                     antiderivative=row.get("kind") == "antiderivative",
                                     **options)
    except ExprError:
        return "unreadable"
    except CLIError as err:
        return "undecided" if err.code == 3 else "unreadable"
    return verdict


def _decisive(verdict) -> tuple:
    """What decides a verdict: its word, the counterexample, how the texts were read. (The
    diagnosis and the derivative shown are display work with a time budget of their own, on
    a loaded machine sometimes missed: ``_same_polish`` compares them.)"""
    status = getattr(verdict, "status", None) or G._status(verdict)
    if status in ("unreadable",):
        return (status,)
    return (status, verdict.counterexample, verdict.read_as, verdict.extra.get("kind"))


def _same_polish(a, b) -> bool:
    """Equal diagnoses and derivatives shown, where both were made in time."""
    return all(x is None or y is None or x == y
               for x, y in [(a.diagnosis, b.diagnosis), (a.expected, b.expected)])


def test_grade_says_what_check_says_on_every_corpus():
    rows = _corpus_rows()
    graded = list(tape.grading.grade(rows, workers=2))
    assert [g.index for g in graded] == list(range(len(rows)))
    assert [g.row for g in graded] == rows
    missed = 0
    for row, g in zip(rows, graded):
        alone = _check_alone(row)
        if isinstance(alone, str):
            assert g.status == alone and g.reason, row
            continue
        assert _decisive(g) == _decisive(alone), row
        assert _same_polish(g, alone), row
        missed += (g.diagnosis is None) != (alone.diagnosis is None)
    assert missed <= len(rows) // 20     # a budget missed now and then, not a rule


def test_the_same_verdicts_for_any_number_of_workers():
    rows = [{"expression": e, "answer": a, **o} for e, a, o, _ in WRONG[:12]]
    rows += [{"expression": "x^2", "answer": "2x +"}, {"expression": "x^2", "answer": ""}]
    one = list(tape.grading.grade(rows, workers=1))
    three = list(tape.grading.grade(rows, workers=3))
    assert [_decisive(g) + (g.index,) for g in one] == \
        [_decisive(g) + (g.index,) for g in three]
    assert len(one) == len(rows) and all(_same_polish(a, b) for a, b in zip(one, three))


def test_unreadable_rows_say_why_and_grading_goes_on():
    rows = [{"expression": "x^2", "answer": "2x +"},
            {"expression": "x^2", "answer": "   "},
            {"answer": "2x"},
            {"expression": "x^2", "answer": "2x", "order": "two"},
            {"expression": "x^2", "answer": "2y"},
            {"expression": "x^2", "answer": "2x"}]
    graded = list(tape.grading.grade(rows, workers=2))
    # a letter the expression does not have makes a function of something else: wrong
    assert [g.status for g in graded] == ["unreadable"] * 4 + ["wrong", "correct"]
    reasons = [g.reason for g in graded[:5]]
    assert "column 5" in reasons[0] and reasons[1] == "no answer"
    assert "no expression" in reasons[2] and "order: 'two'" in reasons[3]
    assert reasons[4] == "uses y, which is not in the expression"
    assert graded[5].reason is None


def test_the_same_answer_is_graded_once(patch_workers, tmp_path):
    log = tmp_path / "graded.txt"

    def behaviour(task):
        with open(log, "a") as handle:
            handle.write(task.answer + "\n")

    patch_workers(behaviour)
    rows = [{"expression": "x^3", "answer": a} for a in ["3x^2", "3x^3", "3x^2", "3x^2"]]
    rows.append({"expression": "x^4", "answer": "3x^2"})
    graded = list(G.grade(rows, workers=2))
    assert [g.status for g in graded] == ["correct", "wrong", "correct", "correct", "wrong"]
    assert [g.index for g in graded] == [0, 1, 2, 3, 4]
    assert [g.row for g in graded] == rows
    assert sorted(log.read_text().split()) == ["3x^2", "3x^2", "3x^3"]


def _patched(behaviour):
    """Make the workers (forked from here) do ``behaviour(task)`` before grading."""
    real = G.graded

    def graded(task, timeout):
        behaviour(task)
        return real(task, timeout)

    return real, graded


@pytest.fixture
def patch_workers(monkeypatch):
    def apply(behaviour):
        monkeypatch.setattr(G, "graded", _patched(behaviour)[1])
    return apply


def test_a_row_that_crashes_its_worker_is_undecided_and_the_rest_are_graded(patch_workers):
    def behaviour(task):
        if task.answer == "crash":
            os._exit(9)

    patch_workers(behaviour)
    rows = [{"expression": "x^2", "answer": a} for a in ["2x", "crash", "x", "2x"]]
    graded = list(G.grade(rows, workers=2))
    assert [g.status for g in graded] == ["correct", "undecided", "wrong", "correct"]
    assert "ended with code 9" in graded[1].reason


def test_a_row_that_never_ends_is_stopped_at_its_limit(patch_workers):
    def behaviour(task):
        if task.answer == "slow":
            time.sleep(60)

    patch_workers(behaviour)
    rows = [{"expression": "x^2", "answer": a} for a in ["slow", "2x", "x"]]
    start = time.monotonic()
    graded = list(G.grade(rows, workers=2, row_limit=1.5))
    assert time.monotonic() - start < 30
    assert [g.status for g in graded] == ["undecided", "correct", "wrong"]
    assert "did not finish in 1.5 s" in graded[0].reason


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    return True


def test_ctrl_c_stops_every_worker_and_keeps_the_graded_rows(patch_workers):
    def behaviour(task):
        if task.answer == "slow":
            time.sleep(60)

    patch_workers(behaviour)
    rows = [{"expression": "x^2", "answer": a} for a in ["2x", "slow", "x", "2x + 1"]]
    grading = G.grade(rows, workers=2)
    first = next(grading)
    pids = [w.pid for w in grading.workers]
    assert first.status == "correct" and pids
    timer = threading.Timer(3.0, os.kill, (os.getpid(), signal.SIGINT))
    timer.start()
    with pytest.raises(KeyboardInterrupt):
        next(grading)
    left = grading.stop()
    timer.cancel()
    assert [g.index for g in left] == sorted(g.index for g in left)
    assert {g.index for g in left} <= {2, 3} and 1 not in {g.index for g in left}
    assert not any(_alive(pid) for pid in pids)


def test_bad_arguments_are_errors():
    with pytest.raises(CLIError, match="--workers"):
        G.grade([], workers=0)
    with pytest.raises(CLIError, match="--timeout"):
        G.grade([], timeout=0)
    assert list(G.grade([])) == []


def test_grade_is_in_the_package_and_loads_nothing_heavy():
    import subprocess

    code = ("import sys, tape.grading; tape.grading.grade; "
            "print('sympy' in sys.modules, 'mpmath' in sys.modules)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True).stdout.split()
    assert out == ["False", "False"]
