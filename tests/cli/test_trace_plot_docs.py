"""docs/trace_plot.md shows real output: every `$ command` in its console blocks still prints
what it shows (an image written with --out goes to a temporary directory and is checked)."""
from __future__ import annotations

import re
import shlex
import subprocess
import sys
from pathlib import Path

import pytest

from printed_output import assert_prints

ROOT = Path(__file__).resolve().parents[2]
DOC = ROOT / "docs" / "trace_plot.md"


def examples():
    for block in re.findall(r"```console\n(.*?)```", DOC.read_text(), flags=re.S):
        for chunk in re.split(r"\n\n(?=\$ )", block.strip("\n")):
            command, _, expected = chunk.partition("\n")
            yield command[2:], expected.rstrip()


def test_the_doc_has_examples():
    assert len(list(examples())) >= 8


@pytest.mark.parametrize("command, expected", list(examples()))
def test_documented_output_is_real(command, expected, tmp_path):
    tape = f"{shlex.quote(sys.executable)} -m tape"
    shell = re.sub(r"(^|\| )tape ", lambda m: m.group(1) + tape + " ", command)
    image = re.search(r"--out (\S+)", shell)
    if image:
        target = tmp_path / Path(image.group(1)).name
        shell = shell.replace(image.group(0), f"--out {shlex.quote(str(target))}")
    result = subprocess.run(["bash", "-c", shell + " 2>&1"], capture_output=True, text=True,
                            cwd=ROOT, timeout=120, env={"PATH": "/usr/bin:/bin",
                                                        "COLUMNS": "100"})
    got = "\n".join(line.rstrip() for line in result.stdout.rstrip().splitlines())
    assert_prints(got, expected, command)
    if image:
        assert target.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
        assert (ROOT / "docs" / image.group(1).split("docs/", 1)[-1]).exists()
