"""docs/showing_the_way.md shows real output: every `$ tape ...` example in its console blocks
prints what the page shows (standard error included, as a terminal would show it)."""
from __future__ import annotations


import pytest

from cli_helpers import ROOT, console_examples, run_console
from printed_output import assert_prints

PAGE = ROOT / "docs" / "showing_the_way.md"


def examples():
    return console_examples(PAGE, 70)


def test_the_page_has_examples_of_every_command():
    commands = [p.values[0] for p in examples()]
    assert len(commands) >= 20
    assert commands[0].startswith('tape diff "x^2 sin x" --steps')
    for needed in ('tape diff "x^2 sin x" --steps', "tape tangent", "tape taylor", "--latex",
                   "--check"):
        assert any(needed in c for c in commands), needed


@pytest.mark.parametrize("command, expected", list(examples()))
def test_documented_output_is_real(command, expected):
    assert_prints(run_console(command), expected, command)
