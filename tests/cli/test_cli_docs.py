"""docs/cli.md and docs/symbolic.md show real output: every `$ command` in them still prints
what they show (numbers within
the accuracy tape promises for them: tests/printed_output.py)."""
from __future__ import annotations

import re
import shlex
import subprocess
import sys

import pytest

from cli_helpers import ROOT
from printed_output import assert_prints

# how each page's examples merge standard error into what they show: docs/cli.md appends
# `2>&1` to the last command of a line, docs/symbolic.md shows every command's errors
DOCS = {"cli.md": "{} 2>&1", "symbolic.md": "{{ {}; }} 2>&1"}


def examples():
    for name, wrap in DOCS.items():
        text = (ROOT / "docs" / name).read_text()
        for block in re.findall(r"```console\n(.*?)```", text, flags=re.S):
            for chunk in re.split(r"\n\n(?=\$ )", block.strip("\n")):
                command, _, expected = chunk.partition("\n")
                yield pytest.param(command[2:], expected.rstrip(), wrap,
                                   id=f"{name}: {command[2:60]}")


@pytest.mark.parametrize("command, expected, wrap", list(examples()))
def test_documented_output_is_real(command, expected, wrap):
    tape = f"{shlex.quote(sys.executable)} -m tape"
    shell = re.sub(r"(^|\| )tape ", lambda m: m.group(1) + tape + " ", command)
    result = subprocess.run(["bash", "-c", wrap.format(shell)], capture_output=True,
                            text=True, cwd=ROOT, timeout=120)
    got = "\n".join(line.rstrip() for line in result.stdout.rstrip().splitlines())
    assert_prints(got, expected, command)
