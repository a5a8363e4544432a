"""docs/symbolic.md shows real output: every `$ command` in it still prints what it shows."""
from __future__ import annotations

import re
import shlex
import subprocess
import sys

import pytest

from cli_helpers import ROOT

DOC = ROOT / "docs" / "symbolic.md"


def examples():
    text = DOC.read_text()
    for block in re.findall(r"```console\n(.*?)```", text, flags=re.S):
        for chunk in re.split(r"\n\n(?=\$ )", block.strip("\n")):
            command, _, expected = chunk.partition("\n")
            yield command[2:], expected.rstrip()


@pytest.mark.parametrize("command, expected", list(examples()))
def test_documented_output_is_real(command, expected):
    tape = f"{shlex.quote(sys.executable)} -m tape"
    shell = re.sub(r"(^|\| )tape ", lambda m: m.group(1) + tape + " ", command)
    result = subprocess.run(["bash", "-c", "{ " + shell + "; } 2>&1"], capture_output=True,
                            text=True, cwd=ROOT, timeout=120)
    got = "\n".join(line.rstrip() for line in result.stdout.rstrip().splitlines())
    assert got == expected
