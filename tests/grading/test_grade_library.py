"""``tape.grading.grade`` as a library (SPEC section 11): rows graded as they arrive, two
threads at once, identical readings checked once, and ``executor=`` with any
``concurrent.futures.Executor`` (a Dask local cluster when ``distributed`` is installed)."""
from __future__ import annotations

import threading
import time
from concurrent.futures import ProcessPoolExecutor, ThreadPoolExecutor

import pytest

from tape.grading import batch

ROWS = [{"expression": "x^2 sin x", "answer": "2x sin x + x^2 cos x"},
        {"expression": "x^2 sin x", "answer": "2x cos x"},
        {"expression": "sin(3x)", "answer": "3cos(3x)"},
        {"expression": "x^2", "answer": "2y"},
        {"expression": "x^2", "answer": "2x +"}]
STATUSES = ["correct", "wrong", "correct", "wrong", "unreadable"]


def test_a_row_is_graded_before_the_next_one_arrives():
    arrived = threading.Event()
    seen = []

    def rows():
        yield {"expression": "x^3", "answer": "3x^2"}
        # the generator waits here until the first verdict is out: grading that waited for
        # more input first would never finish
        assert arrived.wait(60), "the first row was not graded before the second arrived"
        yield {"expression": "x^3", "answer": "3x^3"}

    with batch.grade(rows(), workers=1) as grading:
        for graded in grading:
            seen.append(graded.status)
            arrived.set()
    assert seen == ["correct", "wrong"]


def test_an_error_of_the_input_comes_after_the_rows_before_it():
    def rows():
        yield {"expression": "x^3", "answer": "3x^2"}
        raise ValueError("line 3: broken")

    seen = []
    with pytest.raises(ValueError, match="line 3: broken"):
        for graded in batch.grade(rows(), workers=1):
            seen.append(graded.status)
    assert seen == ["correct"]


def test_a_letter_not_in_the_expression_is_wrong_with_the_reason():
    graded = list(batch.grade(ROWS[3:4], workers=1))[0]
    assert graded.status == "wrong"
    assert graded.reason == "uses y, which is not in the expression"


def test_answers_that_read_the_same_are_checked_once(monkeypatch):
    checked = []
    real = batch.graded

    def counting(task, timeout):
        checked.append(task.answer)
        return real(task, timeout)

    monkeypatch.setattr(batch, "graded", counting)
    rows = [{"expression": "x^2", "answer": a} for a in ("2x", "2*x", "2 x", " 2x", "2x")] + \
        [{"expression": "x^3", "answer": "2x"}] + \
        [{"expression": "cos(4x)", "answer": a, "kind": "antiderivative"}
         for a in ("sin(4x)/4 + C", "sin(4x)/4+C", "sin(4x)/4 + c")]
    with ThreadPoolExecutor(2) as pool:      # in this process, so the count is seen here
        graded = list(batch.grade(rows, executor=pool))
    assert [g.status for g in graded] == ["correct"] * 5 + ["wrong"] + ["correct"] * 2 + \
        [graded[-1].status]
    assert [g.answer for g in graded] == [r["answer"] for r in rows]   # each row's own text
    # once for x^2, once for x^3; the constant's other letter reads otherwise: checked again
    assert sorted(checked) == ["2x", "2x", "sin(4x)/4 + C", "sin(4x)/4 + c"]


def test_two_threads_grading_at_once_both_get_the_right_verdicts(monkeypatch):
    monkeypatch.setattr(batch, "_primed", False)    # priming races with the other thread
    results, errors = {}, []

    def run(name):
        try:
            results[name] = [g.status for g in batch.grade(ROWS, workers=1, timeout=20)]
        except Exception as exc:  # noqa: BLE001
            errors.append(exc)

    threads = [threading.Thread(target=run, args=(n,)) for n in ("a", "b")]
    for t in threads:
        t.start()
    for t in threads:
        t.join(240)
    assert not errors
    assert results == {"a": STATUSES, "b": STATUSES}


@pytest.mark.parametrize("pool", [ThreadPoolExecutor, ProcessPoolExecutor])
def test_any_executor_gives_the_same_verdicts_as_the_workers(pool):
    with pool(2) as executor:
        graded = list(batch.grade(ROWS, executor=executor))
    assert [g.status for g in graded] == STATUSES
    own = list(batch.grade(ROWS, workers=2))
    for a, b in zip(graded, own):
        assert (a.status, a.diagnosis, a.counterexample) == (b.status, b.diagnosis,
                                                             b.counterexample)


def test_a_dask_local_cluster_grades_the_rows():
    distributed = pytest.importorskip("distributed")
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True,
                                  dashboard_address=None) as cluster, \
            distributed.Client(cluster) as client:
        graded = list(batch.grade(ROWS, executor=client.get_executor()))
    assert [g.status for g in graded] == STATUSES


def test_an_executor_must_be_one():
    with pytest.raises(TypeError, match="no submit"):
        batch.grade(ROWS, executor=object())


def test_an_endless_input_is_read_a_window_ahead_only():
    import itertools

    pulled = itertools.count()

    def rows():
        for i in pulled:
            yield {"expression": "x^2", "answer": "2x" if i % 2 else "2*x"}

    grading = batch.grade(rows(), workers=1)
    with grading:
        graded = list(itertools.islice(grading, 5000))
    assert [g.status for g in graded] == ["correct"] * 5000
    assert [g.index for g in graded[:3]] == [0, 1, 2]
    # what was read and not yet given is bounded by the window, however long the input
    assert next(pulled) <= 5000 + 2 * batch.WINDOW * 1 + 2


def test_grading_a_generator_leaves_no_descriptor_open():
    import os

    def rows():
        for _ in range(50):
            yield {"expression": "x^2", "answer": "2x"}

    before = len(os.listdir("/proc/self/fd"))
    for _ in range(3):
        with batch.grade(rows(), workers=1) as grading:
            assert sum(1 for _ in grading) == 50
    deadline = time.monotonic() + 10
    while len(os.listdir("/proc/self/fd")) > before and time.monotonic() < deadline:
        time.sleep(0.05)        # the readers' threads close their ends as they finish
    # (at most as many: what earlier tests left may be closing meanwhile)
    assert len(os.listdir("/proc/self/fd")) <= before
