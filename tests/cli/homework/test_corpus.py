"""The corpus (corpus.py): every verdict right, every classic mistake named."""
from __future__ import annotations

import pytest

from tape.grading.homework import check

from .corpus import RIGHT, WRONG

TIMEOUT = 10.0


def _label(row) -> str:
    return f"{row[0]} | {row[1]} | {row[2]}"


@pytest.mark.parametrize("expression, answer, options", RIGHT, ids=map(_label, RIGHT))
def test_right_answers_are_correct(expression, answer, options):
    decision = check(expression, answer, timeout=TIMEOUT, **options)
    assert decision.correct is True, decision
    assert decision.diagnosis is None and decision.counterexample is None


@pytest.mark.parametrize("expression, answer, options, kind", WRONG, ids=map(_label, WRONG))
def test_wrong_answers_are_wrong_and_diagnosed(expression, answer, options, kind):
    decision = check(expression, answer, timeout=TIMEOUT, **options)
    variables = decision.variables
    assert decision.correct is False, decision
    c = decision.counterexample
    assert list(c["at"]) == variables and c["answer"] != c["expected"]
    if kind is None:
        assert decision.diagnosis is None
    else:
        assert decision.diagnosis is not None and decision.diagnosis["kind"] == kind, \
            decision.diagnosis
        assert decision.diagnosis["detail"].count(".") <= 3   # one sentence
