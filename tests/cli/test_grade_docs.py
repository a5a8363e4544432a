"""docs/grading.md shows real output: every `$ command` in it prints exactly what it shows."""
from __future__ import annotations

import re
import shlex
import subprocess
import sys

import pytest

from cli_helpers import ROOT


def examples():
    text = (ROOT / "docs" / "grading.md").read_text()
    for block in re.findall(r"```console\n(.*?)```", text, flags=re.S):
        for chunk in re.split(r"\n\n(?=\$ )", block.strip("\n")):
            command, _, expected = chunk.partition("\n")
            yield pytest.param(command[2:], expected.rstrip(), id=command[2:60])


@pytest.mark.parametrize("command, expected", list(examples()))
def test_documented_output_is_real(command, expected):
    tape = f"{shlex.quote(sys.executable)} -m tape"
    shell = re.sub(r"(^|\| )tape ", lambda m: m.group(1) + tape + " ", command)
    result = subprocess.run(["bash", "-c", f"{{ {shell}; }} 2>&1"], capture_output=True,
                            text=True, cwd=ROOT, timeout=120)
    got = "\n".join(line.rstrip() for line in result.stdout.rstrip().splitlines())
    assert got == expected


def test_the_library_example_prints_what_the_page_says():
    text = (ROOT / "docs" / "grading.md").read_text()
    code = re.search(r"```python\n(.*?)```", text, flags=re.S).group(1)
    shown = [line[2:] for line in code.splitlines() if line.startswith("# ")]
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         cwd=ROOT, timeout=120).stdout.splitlines()
    assert len(out) == len(shown)
    for got, want in zip(out, shown):
        assert got.startswith(want.removesuffix("...'}")), (got, want)
