"""docs/torch.md and README's "PyTorch style" section show real output: their Python blocks run
and print what the comments say, and their `$ tape` examples print what they show."""
import contextlib
import io
import pathlib
import re
import shlex
import subprocess
import sys

import pytest

from printed_output import assert_prints, differences

ROOT = pathlib.Path(__file__).resolve().parents[2]
PAGES = [ROOT / "docs" / "torch.md", ROOT / "README.md"]


def _python_blocks(path):
    text = path.read_text(encoding="utf-8")
    if path.name == "README.md":
        match = re.search(r"### PyTorch style\n(.*?)(?=\n#)", text, flags=re.S)
        text = match.group(1) if match else ""
    return [b for b in re.findall(r"```python\n(.*?)```", text, flags=re.S)
            if "tape.torch" in b]


def _expected_prints(block):
    """The comment after each print(...) line: what it should print (``0x...`` = any address)."""
    out = []
    for line in block.splitlines():
        if line.startswith("print(") and "#" in line:
            out.append(line.split("#", 1)[1].strip())
    return out


def _matches(expected, got):
    """The printed line says what the comment says, numbers within a gradient's accuracy."""
    return not differences(re.sub(r"0x[0-9a-f]+", "0x...", got), expected, rel=1e-12)


@pytest.mark.parametrize("path", PAGES, ids=lambda p: p.name)
def test_python_blocks_print_what_they_say(path):
    blocks = _python_blocks(path)
    assert blocks, f"no tape.torch example in {path.name}"
    for block in blocks:
        out = io.StringIO()
        with contextlib.redirect_stdout(out):
            exec(compile(block, str(path), "exec"), {})  # noqa: S102 - the project's own docs
        printed = out.getvalue().splitlines()
        expected = _expected_prints(block)
        assert len(printed) == len(expected)
        for want, got in zip(expected, printed):
            assert _matches(want, got), f"{path.name}: printed {got!r}, the comment says {want!r}"


def _console_examples():
    text = (ROOT / "docs" / "torch.md").read_text(encoding="utf-8")
    for block in re.findall(r"```console\n(.*?)```", text, flags=re.S):
        for chunk in re.split(r"\n\n(?=\$ )", block.strip("\n")):
            command, _, expected = chunk.partition("\n")
            yield pytest.param(command[2:], expected.rstrip(), id=command[2:60])


@pytest.mark.parametrize("command, expected", list(_console_examples()))
def test_console_examples_are_real(command, expected):
    tape = f"{shlex.quote(sys.executable)} -m tape"
    shell = re.sub(r"^tape ", tape + " ", command)
    result = subprocess.run(["bash", "-c", shell + " 2>&1"], capture_output=True, text=True,
                            cwd=ROOT, timeout=120)
    assert_prints(result.stdout.rstrip(), expected, command)
