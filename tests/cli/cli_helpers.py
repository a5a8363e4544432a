"""Helpers for the CLI tests: run ``tape`` in-process (CliRunner) or as a subprocess.

A plain module (not conftest.py) so that ``from cli_helpers import ...`` is unambiguous when the
whole suite runs next to tests/engine/conftest.py.
"""
from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from typer.testing import CliRunner

from tape.cli.app import app

ROOT = Path(__file__).resolve().parents[2]
SAMPLES = ROOT / "samples"


def tape_cli(*args: str, input: str | None = None):
    """Invoke the app in-process; returns a Result with exit_code, stdout, stderr."""
    runner = CliRunner()
    return runner.invoke(app, list(args), input=input, catch_exceptions=False)


def tape_process(*args: str, input: str | None = None, env=None):
    """Run ``python -m tape`` as a subprocess (a real pipe: not a terminal)."""
    return subprocess.run([sys.executable, "-m", "tape", *args], input=input,
                          capture_output=True, text=True, cwd=ROOT,
                          env={**os.environ, **(env or {})}, timeout=120)


def tape_capped(*args: str, memory_mb: int, input: str | bytes | None = None,
                timeout: float = 120, env=None) -> subprocess.CompletedProcess:
    """Run ``python -m tape`` with its address space capped at ``memory_mb`` (RLIMIT_AS, set in
    the child before exec): a size limit checked after allocating shows up as a MemoryError,
    exit 70 or a kill instead of the limit's own exit-2 message."""
    import resource

    limit = memory_mb * 2**20

    def cap() -> None:
        resource.setrlimit(resource.RLIMIT_AS, (limit, limit))

    return subprocess.run([sys.executable, "-m", "tape", *args], input=input,
                          capture_output=True, text=not isinstance(input, bytes), cwd=ROOT,
                          env={**os.environ, **(env or {})}, timeout=timeout,
                          preexec_fn=cap)


def numbers(text: str) -> list[list[float]]:
    """Plain output as rows of floats."""
    return [[float(v) for v in line.split()] for line in text.strip().splitlines()]


def central_difference(f, point: list[float], i: int, h: float = 1e-6) -> float:
    """∂f/∂x_i at ``point`` by central differences (the tests' independent reference)."""
    up = list(point)
    down = list(point)
    up[i] += h
    down[i] -= h
    return (f(*up) - f(*down)) / (2 * h)



def console_examples(page: Path, id_width: int = 60):
    """``(command, expected output)`` for every ``$ tape ...`` example in the console blocks of
    a docs page (an example ends at a blank line before the next ``$``), as pytest params."""
    import re

    import pytest

    text = page.read_text()
    for block in re.findall(r"```console\n(.*?)```", text, flags=re.S):
        for chunk in re.split(r"\n\n(?=\$ )", block.strip("\n")):
            command, _, expected = chunk.partition("\n")
            yield pytest.param(command[2:], expected.rstrip(), id=command[2:2 + id_width])


def run_console(command: str) -> str:
    """What a documented shell line prints (standard error included, as a terminal shows it),
    with ``tape`` run as this interpreter's ``python -m tape``; trailing blanks dropped."""
    import re
    import shlex

    tape = f"{shlex.quote(sys.executable)} -m tape"
    shell = re.sub(r"(^|\| )tape ", lambda m: m.group(1) + tape + " ", command)
    result = subprocess.run(["bash", "-c", f"{{ {shell}; }} 2>&1"], capture_output=True,
                            text=True, cwd=ROOT, timeout=120)
    return "\n".join(line.rstrip() for line in result.stdout.rstrip().splitlines())
