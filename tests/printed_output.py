"""Printed output compared as a reader compares it: the words to the letter, the numbers within
the accuracy tape promises for them.

The last bits of a computed float depend on the CPU: OpenBLAS picks its kernels per CPU
(OPENBLAS_CORETYPE), and NumPy picks per CPU the SIMD loops of exp, log, sin and power
(NPY_DISABLE_CPU_FEATURES). A documented example is the output of one machine, so its
numbers are compared within a tolerance, never digit for digit. Integers (orders, counts,
exit codes, indices) are exact by construction and compared as text.
"""
from __future__ import annotations

import math
import re
import shlex

# a decimal literal standing on its own: not the digit of a name such as x0 or e1
NUMBER = re.compile(r"(?<![\w.])[-+]?(?:\d+\.\d*|\.\d+|\d+)(?:[eE][-+]?\d+)?(?![\w.])")
# runs of blanks and of box-drawing characters, whose length follows the width of the numbers
PADDING = re.compile(r"[ \t]+|[\u2500-\u257f]+")

PLAIN_GRADIENT = 1e-12          # reverse mode: a handful of roundings per operation
TAYLOR_MODE = 1e-8              # tape.engine.taylor.TRUSTED_RELATIVE_ERROR


def promised_accuracy(command: str) -> float:
    """The relative accuracy tape promises for the numbers a command prints: Taylor mode's
    1e-8 for higher derivatives, Taylor polynomials and plots, 1e-12 otherwise."""
    words = shlex.split(command, comments=False) if command else []
    if any(w in ("taylor", "plot", "partials") for w in words):
        return TAYLOR_MODE
    for flag, value in zip(words, words[1:]):
        if flag == "--order" and value.isdigit() and int(value) >= 2:
            return TAYLOR_MODE
    return PLAIN_GRADIENT


def _is_integer(token: str) -> bool:
    return token.lstrip("+-").isdigit()


def _skeleton(line: str) -> tuple[str, list[str]]:
    numbers = NUMBER.findall(line)
    text = NUMBER.sub("#", line)
    text = PADDING.sub(lambda m: m.group(0)[0], text).strip()
    return text, numbers


def differences(got: str, expected: str, rel: float) -> list[str]:
    """What differs between two printed outputs, line by line (empty when they agree): a word,
    an integer, or a float further apart than ``rel`` times the larger number on its line."""
    got_lines, want_lines = got.splitlines(), expected.splitlines()
    if len(got_lines) != len(want_lines):
        return [f"{len(got_lines)} lines printed, {len(want_lines)} expected"]
    found = []
    for n, (g, w) in enumerate(zip(got_lines, want_lines), 1):
        g_text, g_numbers = _skeleton(g)
        w_text, w_numbers = _skeleton(w)
        if g_text != w_text or len(g_numbers) != len(w_numbers):
            found.append(f"line {n}: {g!r} is not {w!r}")
            continue
        floats = [abs(float(v)) for v in w_numbers if not _is_integer(v)]
        scale = max((v for v in floats if math.isfinite(v)), default=0.0)
        for a, b in zip(g_numbers, w_numbers):
            if _is_integer(a) and _is_integer(b):
                same = a == b
            else:
                x, y = float(a), float(b)
                same = x == y or abs(x - y) <= rel * max(abs(x), abs(y), scale)
            if not same:
                found.append(f"line {n}: {a} is not {b} within {rel:g} relative ({g!r})")
    return found


def assert_prints(got: str, expected: str, command: str = "", rel: float | None = None) -> None:
    """``got`` says what ``expected`` says, numbers within the accuracy promised for ``command``."""
    rel = promised_accuracy(command) if rel is None else rel
    wrong = differences(got, expected, rel)
    assert not wrong, "\n".join(wrong) + f"\n--- printed:\n{got}\n--- expected:\n{expected}"
