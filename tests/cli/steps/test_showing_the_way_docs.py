"""docs/showing_the_way.md shows real output: every `$ tape ...` example in its console blocks
prints exactly what the page shows (standard error included, as a terminal would show it)."""
from __future__ import annotations

import re
import shlex
import subprocess
import sys

import pytest

from cli_helpers import ROOT

PAGE = ROOT / "docs" / "showing_the_way.md"


def examples():
    text = PAGE.read_text()
    for block in re.findall(r"```console\n(.*?)```", text, flags=re.S):
        for chunk in re.split(r"\n\n(?=\$ )", block.strip("\n")):
            command, _, expected = chunk.partition("\n")
            yield pytest.param(command[2:], expected.rstrip(), id=command[2:70])


def test_the_page_has_examples_of_every_command():
    commands = [p.values[0] for p in examples()]
    assert len(commands) >= 20
    assert commands[0].startswith('tape diff "x^2 sin x" --steps')
    for needed in ('tape diff "x^2 sin x" --steps', "tape tangent", "tape taylor", "--latex",
                   "--check"):
        assert any(needed in c for c in commands), needed


@pytest.mark.parametrize("command, expected", list(examples()))
def test_documented_output_is_real(command, expected):
    tape = f"{shlex.quote(sys.executable)} -m tape"
    shell = re.sub(r"(^|\| )tape ", lambda m: m.group(1) + tape + " ", command)
    result = subprocess.run(["bash", "-c", f"{{ {shell}; }} 2>&1"], capture_output=True,
                            text=True, cwd=ROOT, timeout=120)
    got = "\n".join(line.rstrip() for line in result.stdout.rstrip().splitlines())
    assert got == expected
