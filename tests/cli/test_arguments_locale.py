"""Arguments are UTF-8 text whatever the locale: under ``LC_ALL=C`` without Python's UTF-8 mode
``x²`` reaches Python as ``x`` and two lone surrogates; tape decodes their bytes, and an
argument whose bytes are not UTF-8 is bad input that says so."""
from __future__ import annotations

import subprocess
import sys

from cli_helpers import ROOT, tape_process

from tape.cli.process import utf8_arguments

C_LOCALE = {"PYTHONUTF8": "0", "LC_ALL": "C", "PYTHONIOENCODING": ""}


def test_a_superscript_under_the_c_locale_is_read_as_typed():
    p = tape_process("grad", "x²", "--at", "3", env=C_LOCALE)
    assert (p.returncode, p.stdout, p.stderr) == (0, "6.0\n", "")


def test_an_argument_that_is_not_utf8_is_named():
    p = subprocess.run([sys.executable.encode(), b"-m", b"tape", b"grad", b"x\xb2", b"--at",
                        b"3"], capture_output=True, cwd=ROOT,
                       env={**__import__("os").environ, **C_LOCALE})
    assert p.returncode == 2 and p.stdout == b""
    assert p.stderr.decode() == ("error: argument 2 is not UTF-8 text (byte 0xb2 at position "
                                 "2); tape reads its arguments as UTF-8\n")


def test_arguments_already_text_are_kept():
    assert utf8_arguments(["grad", "x²", "--at", "3"]) == ["grad", "x²", "--at", "3"]
    assert utf8_arguments(["x\udcc2\udcb2"]) == ["x²"]
