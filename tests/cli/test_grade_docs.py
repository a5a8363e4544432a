"""docs/grading.md shows real output: every `$ command` in it prints what it shows (numbers
within the accuracy tape promises for them: tests/printed_output.py)."""
from __future__ import annotations

import re
import subprocess
import sys

import pytest

from cli_helpers import ROOT, console_examples, run_console
from printed_output import assert_prints

PAGE = ROOT / "docs" / "grading.md"


def examples():
    return console_examples(PAGE, 60)


@pytest.mark.parametrize("command, expected", list(examples()))
def test_documented_output_is_real(command, expected):
    assert_prints(run_console(command), expected, command)


def test_the_library_example_prints_what_the_page_says():
    text = (ROOT / "docs" / "grading.md").read_text()
    code = re.search(r"```python\n(.*?)```", text, flags=re.S).group(1)
    shown = [line[2:] for line in code.splitlines() if line.startswith("# ")]
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         cwd=ROOT, timeout=120).stdout.splitlines()
    assert len(out) == len(shown)
    for got, want in zip(out, shown):
        assert got.startswith(want.removesuffix("...'}")), (got, want)
