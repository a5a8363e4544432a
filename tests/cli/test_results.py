"""The small bases of the commands' results (tape/cli/output.py): fields stored by the
constructor, the reading shown from the field that holds it, a dict result's JSON keys."""
from __future__ import annotations

import pytest

from tape.cli import output
from tape.cli.commands.check import CheckResult
from tape.cli.commands.derive import SlopeReport
from tape.cli.commands.taylor import TaylorResult


class _Read:
    read_as = "x**2 (read from x^2)"


def test_fields_are_taken_in_order_or_by_name():
    a = CheckResult("decision", "x^2", "2*x", "x", 1)
    b = CheckResult("decision", "x^2", answer="2*x", order=1, wrt="x")
    for r in (a, b):
        assert (r.decision, r.expression, r.answer, r.wrt, r.order) == \
            ("decision", "x^2", "2*x", "x", 1)


@pytest.mark.parametrize("args, named", [
    (("d", "e", "a", "x"), {}),                       # one missing
    (("d", "e", "a", "x", 1, 2), {}),                 # one too many
    (("d", "e", "a", "x"), {"wrt": "y"}),             # twice
    (("d", "e", "a", "x", 1), {"colour": "red"}),     # not a field
])
def test_wrong_fields_are_refused(args, named):
    with pytest.raises(TypeError, match="CheckResult takes decision, expression"):
        CheckResult(*args, **named)


def test_the_reading_comes_from_the_field_that_holds_it():
    assert SlopeReport("x^2+y^2=1", _Read(), 1, [], []).read_as == _Read.read_as
    assert TaylorResult(_Read(), {}).read_as == _Read.read_as
    assert TaylorResult(None, {}).read_as is None


def test_a_dict_result_documents_its_json_keys_in_order():
    result = {"polynomial": "1 + x", "order": 1, "expression": "exp(x)", "extra": 0}
    doc = TaylorResult(None, result).document()
    assert list(doc) == ["expression", "order", "polynomial"]
    assert isinstance(TaylorResult(None, result), output.DictResult)
