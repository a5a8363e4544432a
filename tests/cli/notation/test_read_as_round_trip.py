"""``read_as`` round trip over every expression in the test suite: each string literal in the
tests' source that reads as an expression gives a ``read_as`` that reads back to the same tree
(the literals are read as data by ``ast``, never run)."""
from __future__ import annotations

import ast
from pathlib import Path

import pytest

from notation_corpus import DECLARED, NOTED, READINGS, UNNOTED
from tape.expr import parse as E
from tape.expr.errors import ExprError

TESTS = Path(__file__).resolve().parents[2]


def suite_strings() -> list[str]:
    found: set[str] = set()
    for path in sorted(TESTS.rglob("*.py")):
        try:
            tree = ast.parse(path.read_text(encoding="utf-8"))
        except (SyntaxError, UnicodeDecodeError):
            continue
        for node in ast.walk(tree):
            if isinstance(node, ast.Constant) and isinstance(node.value, str) \
                    and 0 < len(node.value) <= 400:
                found.add(node.value)
    found.update(c[0] for c in READINGS + NOTED)
    found.update(UNNOTED)
    return sorted(found)


def readings():
    out = []
    for text in suite_strings():
        try:
            out.append((text, E.read(text, relation=True)))
        except ExprError:
            pass
    return out


READ = readings()


def test_the_suite_has_many_expressions():
    assert len(READ) > 500


@pytest.mark.parametrize("chunk", range(8))
def test_read_as_reads_back_to_the_same_tree(chunk):
    for text, reading in READ[chunk::8]:
        again = E.read(reading.read_as, relation=True)
        assert again.tree == reading.tree, (text, reading.read_as)
        assert again.read_as == reading.read_as


@pytest.mark.parametrize("typed, declared, meaning", DECLARED)
def test_read_as_round_trips_with_declared_names(typed, declared, meaning):
    reading = E.read(typed, names=declared)
    assert E.read(reading.read_as, names=declared).tree == reading.tree
