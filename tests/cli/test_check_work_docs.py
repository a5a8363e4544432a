"""docs/check_work.md shows real output: every `$ command` in it prints exactly what it shows,
and its library example prints what its comments say."""
from __future__ import annotations

import re
import subprocess
import sys

import pytest

from cli_helpers import ROOT, console_examples, run_console

PAGE = ROOT / "docs" / "check_work.md"


@pytest.mark.parametrize("command, expected", list(console_examples(PAGE, 60)))
def test_documented_output_is_real(command, expected):
    assert run_console(command) == expected


def test_the_library_example_prints_what_the_page_says():
    code = re.search(r"```python\n(.*?)```", PAGE.read_text(), flags=re.S).group(1)
    shown = [line[2:] for line in code.splitlines() if line.startswith("# ")]
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         cwd=ROOT, timeout=120).stdout.splitlines()
    assert out == shown
