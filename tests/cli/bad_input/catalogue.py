"""The bad-input catalogue: every kind of bad input, run through the real ``tape`` command.

``ROWS`` lists (kind, command). ``python tests/cli/bad_input/catalogue.py`` runs each command
as a real process (``python -m tape``, from the repository root, standard input from
``printf '...' |`` when the command starts with one) and writes ``docs/bad-input.md`` with the
exit code and the first line of standard error that were *measured*. The test
(``tests/cli/test_bad_input.py``) reads that table back and checks every row against the CLI,
plus the rules that hold for all of them (exit codes by kind, no traceback, ``error:`` lines).

After a deliberate change of a message: rerun this script, review the diff of the table.
"""
from __future__ import annotations

import os
import re
import shlex
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[3]
DOC = ROOT / "docs" / "bad-input.md"
D = "tests/cli/bad_input"

ROWS: list[tuple[str, str, str]] = [
    # (section, kind, command)
    ("expression", "syntax error (dangling operator)", 'tape grad "x^" --at 1'),
    ("expression", "unclosed bracket", 'tape grad "2*(x+1" --at 1'),
    ("expression", "unmatched closing bracket", 'tape grad "x+)" --at 1'),
    ("expression", "empty expression", 'tape grad "" --at 1'),
    ("expression", "LaTeX fraction with an empty part", "tape grad '\\frac{}{x}' --at 1"),
    ("expression", "character outside the language", 'tape grad "x $ y" --at 1'),
    ("expression", "decimal comma", 'tape grad "2,5x" --at 1'),
    ("expression", "control character", "tape grad $'x\\x07' --at 1"),
    ("expression", "comment character (would hide the rest)", 'tape grad "x#+y" --at 1'),
    ("expression", "integer literal over 4300 digits",
     "tape grad \"$(python -c 'print(\"1\"*5000)')\" --at 1"),
    ("expression", "unknown function", 'tape grad "foo(x)" --at 1'),
    ("expression", "wrong number of arguments", 'tape grad "sin(x, y)" --at 1,2'),
    ("expression", "function used as a variable", 'tape grad "sin" --at 1'),
    ("expression", "keyword argument", 'tape grad "sin(x=1)" --at 1'),
    ("expression", "dunder name / import", "tape grad \"__import__('os')\" --at 1"),
    ("expression", "attribute access", 'tape grad "x.real" --at 1'),
    ("expression", "attribute chain", 'tape grad "().__class__.__bases__" --at 1'),
    ("expression", "lambda", 'tape grad "lambda: 1" --at 1'),
    ("expression", "the Greek letter lambda spelled out", 'tape grad "lambda x" --at 1,2'),
    ("expression", "f-string", "tape grad \"f'{x}'\" --at 1"),
    ("expression", "string literal", "tape grad \"'abc'\" --at 1"),
    ("expression", "walrus assignment", 'tape grad "(y := 2)" --at 1'),
    ("expression", "conditional expression", 'tape grad "x if x else y" --at 1'),
    ("expression", "comparison", 'tape grad "x < y" --at 1,2'),
    ("expression", "operator outside the language", 'tape grad "x % 2" --at 1'),
    ("expression", "complex literal: 2j is 2*j, j a variable (no complex numbers)",
     'tape grad "2j*x" --at 1'),
    ("expression", "slice", 'tape grad "x[1:2]" --at "x=[1,2]"'),
    ("expression", "non-integer index", 'tape grad "x[y]" --at "x=[1,2],y=1"'),
    ("expression", "list where a scalar is expected", 'tape grad "[x, y]" --at 1,2'),
    ("expression", "empty list (jacobian)", 'tape jacobian "[]" --at 1'),
    ("expression", "look-alike names from two scripts (Latin x, Cyrillic х)",
     'tape grad "x + х" --at 1,2'),
    ("expression", "a word mixing scripts through a look-alike (Cyrillic о in cos)",
     'tape grad "cоs(x)" --at 1'),
    ("expression", "a line break inside the text", "tape grad $'x\\nx' --at 1"),
    ("expression", "a sentence instead of a formula",
     'tape diff "Find the third derivative of 367*j**4 + 299*j**2 + 6."'),
    ("expression", "e, digits, letters: a ^ left out (e2x)", 'tape grad "e2x" --at 1'),
    ("expression", "d/dx and d/dy in one text (a mixed partial)", 'tape diff "d/dx d/dy x*y"'),
    ("expression", "an operator whose order differs above and below",
     'tape diff "d^2/dx^3 x^5"'),
    ("shape", "index on a scalar", 'tape grad "x[0]" --at 1'),
    ("shape", "index out of range", 'tape grad "x[5]" --at "x=[1,2]"'),
    ("shape", "vectors of different lengths", 'tape grad "x + y" --at "x=[1,2],y=[1,2,3]"'),
    ("shape", "vector function on a scalar", 'tape grad "sum(x)" --at 1'),
    ("shape", "dot of different lengths", 'tape grad "dot(x, y)" --at "x=[1,2],y=[1,2,3]"'),
    ("shape", "grad of a vector", 'tape grad "x" --at "x=[1,2]"'),
    ("shape", "hessian of a vector", 'tape hessian "x" --at "x=[1,2]"'),
    ("shape", "a variable's shape differs between points",
     'tape grad "sum(x)" --at "x=[1,2]" --at "x=[1,2,3]"'),
    ("points", "no --at / --points at all", 'tape grad "x*y"'),
    ("points", "too many positional values", 'tape grad "x" --at 1,2'),
    ("points", "too few positional values", 'tape grad "x*y" --at 1'),
    ("points", "missing value for a variable", 'tape grad "x*y" --at x=1'),
    ("points", "--at name not in the expression", 'tape grad "x*y" --at x=1,z=2'),
    ("points", "variable given twice", 'tape grad "x" --at x=1,x=2'),
    ("points", "value is not a number", 'tape grad "x" --at abc'),
    ("points", "value is a bad expression", 'tape grad "x" --at "2*"'),
    ("points", "empty value", 'tape grad "x*y" --at "x=,y=1"'),
    ("points", "unclosed vector bracket", 'tape grad "x" --at "x=[1,2"'),
    ("points", "empty vector", 'tape grad "x" --at "x=[]"'),
    ("points", "nested vector", 'tape grad "x" --at "x=[1,[2]]"'),
    ("points", "named and positional mixed", 'tape grad "x*y" --at "x=1,2"'),
    ("points", "empty point", 'tape grad "x" --at ""'),
    ("points", "both --at and --points", f'tape grad "x" --at 1 --points {D}/ragged.csv'),
    ("points", "stdin: a bad line", "printf '1\\nabc\\n' | tape grad x --at -"),
    ("points", "stdin: no points", "printf '# only a comment\\n' | tape grad x --at -"),
    ("points", "stdin: a blank line", "printf '1\\n\\n2\\n' | tape grad x --at -"),
    ("points", "stdin: wrong number of values", "printf '1 2 3\\n' | tape grad x*y --at -"),
    ("points", "stdin: an empty field (never dropped: the values after it would shift)",
     "printf '1,,2\\n' | tape grad x*y --at -"),
    ("points", "nan / inf given as a point", 'tape grad "x" --at nan'),
    ("points", "number too large for a float", 'tape grad "x" --at 1e999'),
    ("points", "a value with no finite real value", 'tape grad "x" --at "x=sqrt(-1)"'),
    ("points", "a value that is infinite", 'tape grad "x" --at "x=1/0"'),
    ("points", "--at name in a look-alike script (Cyrillic х for x)",
     'tape grad "x^2" --at "х=1"'),
    ("wrt", "--wrt name not in the target", 'tape grad "x" --wrt y --at 1'),
    ("wrt", "--wrt name repeated", 'tape grad "x" --wrt x,x --at 1'),
    ("wrt", "--wrt with an empty name", 'tape grad "x" --wrt "x," --at 1'),
    ("wrt", "--wrt x,y (order 2) with another --order",
     'tape check "x^3*y^2" --wrt x,y --order 3 --answer 1'),
    ("wrt", "an operator's order (d^2/dx^2) with another --order",
     'tape diff "d^2/dx^2 x^3" --order 3'),
    ("wrt", "an answer's label (y\'\') with another --order",
     "tape check \"x^3\" --answer \"y'' = 6x\" --order 3"),
    ("csv", "file does not exist", f'tape grad "x" --points {D}/nope.csv'),
    ("csv", "a directory", f'tape grad "x" --points {D}'),
    ("csv", "empty file", f'tape grad "x" --points {D}/empty.csv'),
    ("csv", "header only", f'tape grad "x" --points {D}/header_only.csv'),
    ("csv", "missing column", f'tape grad "x*y" --points {D}/missing_column.csv'),
    ("csv", "non-numeric cell", f'tape grad "x*y" --points {D}/non_numeric.csv'),
    ("csv", "ragged rows (a cell missing)", f'tape grad "x*y" --points {D}/ragged.csv'),
    ("csv", "not UTF-8", f'tape grad "x" --points {D}/latin1.csv'),
    ("csv", "CSV on standard input without the column", "printf 'a\\n1\\n' | tape grad x --points -"),
    ("csv", "a line without end (a binary file, /dev/zero)", 'tape grad "x" --points /dev/zero'),
    ("csv", "a cell that is not a finite number", "printf 'x\\n1\\nnan\\n' | tape grad x --points -"),
    ("csv", "error with --format json (errors stay plain lines)",
     f'tape grad "x*y" --points {D}/ragged.csv --format json'),
    ("script", "script does not exist", "tape grad nope.py --at 1"),
    ("script", "syntax error in the script", f"tape grad {D}/broken.py --at 1"),
    ("script", "script raises when called", f"tape grad {D}/raises.py --at 1"),
    ("script", "script fails to import a module", f"tape grad {D}/bad_import.py --at 1"),
    ("script", "several public functions and no :function",
     f"tape grad {D}/two_functions.py --at 1"),
    ("script", "no public function", f"tape grad {D}/no_functions.py --at 1"),
    ("script", ":function that does not exist", f"tape grad {D}/two_functions.py:h --at 1"),
    ("script", "function with *args", f"tape grad {D}/varargs.py --at 1"),
    ("script", "function returns a string", f"tape grad {D}/returns_string.py --at 1"),
    ("script", "vector result given to grad", f"tape grad {D}/vector_out.py --at 1"),
    ("script", "script and expressions mixed", f'tape jacobian {D}/vector_out.py "x" --at 1'),
    ("script", "script updates a NumPy array in place (a += x: the derivative would be wrong)",
     f'tape grad {D}/in_place.py --at "x=[1,2]"'),
    ("script", "script calls a NumPy function tape cannot differentiate (it would be a constant)",
     f"tape grad {D}/no_rule.py --at 0.5"),
    ("options", "--order 0", 'tape grad "x" --at 1 --order 0'),
    ("options", "--order -1", 'tape grad "x" --at 1 --order -1'),
    ("options", "--order not an integer", 'tape grad "x" --at 1 --order 1.5'),
    ("options", "--order too large", 'tape grad "x" --at 1 --order 31'),
    ("options", "unknown --format", 'tape grad "x" --at 1 --format xml'),
    ("options", "unknown option", 'tape grad "x" --at 1 --bogus'),
    ("options", "missing TARGET", "tape grad --at 1"),
    ("options", "unknown command", "tape frobnicate x"),
    ("options", "--precision out of range", 'tape grad "x" --at 1 --precision 0'),
    ("options", "negative --rtol", 'tape grad "x^2" --at 1 --check --rtol -1'),
    ("symbolic", "diff: --wrt not a variable", 'tape diff "x*y" --wrt z'),
    ("symbolic", "diff: timeout", 'tape diff "x*y" --timeout 0.0001'),
    ("symbolic", "diff: whole-vector function", 'tape diff "sum(x)"'),
    ("symbolic", "check: --answer missing", 'tape check "x^2"'),
    ("symbolic", "check: several variables without --wrt", 'tape check "x*y" --answer "y"'),
    ("symbolic", "check: answer does not parse", 'tape check "x^2" --answer "2*"'),
    ("symbolic", "check: answer that asks for the derivative",
     'tape check "x^2" --answer "d/dx x^2"'),
    ("symbolic", "check: wrong answer (not bad input: exit 1)",
     'tape check "x^2" --answer "3x"'),
    ("symbolic", "diff: a constant at a pole", 'tape diff "x*tan(pi/2)"'),
    ("symbolic", "diff: a constant that is not real", 'tape diff "x*acos(2)"'),
    ("symbolic", "diff: an imaginary factor", 'tape diff "sqrt(-1)*x^2"'),
    ("symbolic", "--check timeout (numbers printed, exit 3)",
     'tape grad "x^2" --at 1 --check --timeout 0.0001'),
    ("non-finite", "division by zero", 'tape grad "1/x" --at 0'),
    ("non-finite", "log of a negative number", 'tape grad "log(x)" --at -1'),
    ("non-finite", "sqrt at 0 (infinite slope)", 'tape grad "sqrt(x)" --at 0'),
    ("non-finite", "overflow", 'tape grad "exp(x)" --at 1000'),
    ("limits", "brackets nested too deeply (limit 150)",
     "tape grad \"$(python -c 'print(\"(\"*151+\"x\"+\")\"*151)')\" --at 1"),
    ("limits", "vector variable too long (limit 10,000)",
     "tape grad \"sum(x)\" --at \"x=[$(python -c 'print(\",\".join([\"1\"]*10001))')]\""),
    ("limits", "too many partials for --order (limit 10,000)",
     "tape grad \"sum(x)\" --at \"x=[$(python -c 'print(\",\".join([\"1\"]*200))')]\" "
     "--order 2"),
    ("limits", "a Hessian beyond the memory budget (--memory; plain, csv and json stream it, "
               "keeping a quarter of it to mirror)",
     "tape hessian \"sum(x)\" --at \"x=[$(python -c 'print(\",\".join([\"1\"]*10000))')]\" "
     "--memory 256"),
    ("limits", "diff: an index past the vector limit (limit 10,000)", 'tape diff "x[999999999]"'),
    ("limits", "diff: too many partials (limit 200)", 'tape diff "x[199]" --order 20'),
    ("limits", "a Jacobian table beyond the memory budget (--memory, default 1024 MB; "
               "plain, csv and json stream it)",
     "tape jacobian \"x\" --at \"x=[$(python -c 'print(\",\".join([\"1\"]*10000))')]\" "
     "--format table"),
    ("limits", "a Jacobian of more than 10^9 entries (a script's matrix output)",
     f"tape jacobian {D}/outer_out.py --at \"x=[$(python -c 'print(\",\".join([\"1\"]*1100))')]\""),
    ("limits", "plot --out image pixels (limit 4096 x 4096)",
     'tape plot "sin(x)" --out chart.png --width 20000 --height 20000'),
    ("limits", "--at with 60,001 values (the message quotes the start of it)",
     "tape grad \"x*y\" --at \"$(python -c 'print(\",\".join([\"1\"]*60001))')\""),
    ("limits", "check: --wrt naming more than 10 differentiations",
     'tape check "x^2" --answer 0 --wrt x,x,x,x,x,x,x,x,x,x,x'),
    ("process", "standard output closed", 'tape grad "x^2" --at 1 >&-'),
    ("process", "standard output on a full disk", 'tape grad "x^2" --at 1 >/dev/full'),
    ("process", "standard input closed, points from it (--at -)", 'tape grad "x^2" --at - <&-'),
    ("process", "standard input closed, points from it (--points -)",
     'tape grad "x^2" --points - <&-'),
    ("process", "standard error closed: the result stands, warnings go nowhere",
     'tape grad "cbrt(x)" --at 0 2>&-'),
    ("process", "script writes to descriptor 1 (the JSON stays intact)",
     f"tape grad {D}/writes_fd1.py --at 3 --format json"),
    ("process", "script prints at exit (the JSON stays intact)",
     f"tape grad {D}/prints_at_exit.py --at 3 --format json"),
    ("process", "script forks (one result, from tape)", f"tape grad {D}/forks.py --at 3"),
    ("process", "script calls os._exit (not a silent exit 0)", f"tape grad {D}/exits.py --at 1"),
    ("process", "script reads standard input (tape's points)",
     f"printf '1\\n2\\n' | tape grad {D}/reads_stdin.py --at -"),
]

#: shell redirections a catalogue command may end with: descriptor -> what it becomes (None:
#: closed). Commands with one run only as real processes.
REDIRECTIONS = {">&-": (1, None), "<&-": (0, None), "2>&-": (2, None),
                ">/dev/full": (1, "/dev/full")}


# --------------------------------------------------------------------------- running

def expand(command: str) -> tuple[list[str], str | None]:
    """(argv after ``tape``, standard input) for a catalogue command.

    Understands ``printf '...' | tape ...``, ``$'...'`` strings and ``$(python -c '...')``
    (evaluated here, so the catalogue shows what a shell user types).
    """
    stdin = None
    if command.startswith("printf "):
        left, _, command = command.partition(" | ")
        stdin = shlex.split(left)[1].encode().decode("unicode_escape")
    command = re.sub(r"\$\(python -c '([^']*)'\)", lambda m: _python(m.group(1)), command)
    command = re.sub(r"\$'([^']*)'", lambda m: shlex.quote(
        m.group(1).encode().decode("unicode_escape")), command)
    argv = [a for a in shlex.split(command) if a not in REDIRECTIONS]
    assert argv[0] == "tape", command
    return argv[1:], stdin


def redirections(command: str) -> dict[int, str | None]:
    """The standard descriptors a command redirects (``REDIRECTIONS``)."""
    return dict(REDIRECTIONS[a] for a in shlex.split(command) if a in REDIRECTIONS)


def _python(code: str) -> str:
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True).stdout.rstrip("\n")
    return out


def run_process(command: str, timeout: float = 120):
    """Run a catalogue command as a real process; returns the CompletedProcess."""
    argv, stdin = expand(command)
    redirected = redirections(command)

    def redirect() -> None:     # in the child, before tape starts
        for fd, target in redirected.items():
            if target is None:
                os.close(fd)
            else:
                os.dup2(os.open(target, os.O_WRONLY), fd)

    p = subprocess.run([sys.executable, "-m", "tape", *argv], input=stdin,
                       stdin=subprocess.DEVNULL if stdin is None else None,
                       capture_output=True, text=True, cwd=ROOT, timeout=timeout,
                       preexec_fn=redirect if redirected else None)
    return p


def first_line(text: str) -> str:
    return (text.splitlines() or [""])[0]


# --------------------------------------------------------------------------- the document

HEADER = """# Bad input: what `tape` says and how it exits

Every kind of bad input we know of, with the exit code and the first line `tape` prints on
standard error, as measured by running the real command (`python
tests/cli/bad_input/catalogue.py` regenerates this table; `tests/cli/test_bad_input.py` checks
every row). Exit codes: 0 success, 1 a check failed, 2 bad input, 3 undecided (symbolic
timeout). Bad input never prints a Python traceback (`--debug` shows one); a non-finite result
is printed (`inf`, `nan`; the strings `"inf"`, `"nan"` in JSON) with a `warning:` line and exit 0. A point value
that is not a finite real number (`nan`, `inf`, `1e999`, `sqrt(-1)`, `1/0`), in `--at`, on a
`--at -` line or in a `--points` cell, is bad input (exit 2): the derivative there means
nothing, and a `nan` in a data file is more often a slip than a wish. A symbolic result with no
real value (SymPy's `zoo`, `nan`, `oo`, `I`, or a constant such as `acos(2)` or `sqrt(-1)`)
is bad input (exit 2), never printed as a formula. An empty comma-separated field is never
dropped. A message quotes at most the first 40 characters of what it refuses, with its length,
and no diagnostic line is longer than 1000 characters. Files used below are in
`tests/cli/bad_input/`.

| kind | command | exit | first line of standard error |
|---|---|---|---|
"""


FOOTER = """
## Limits

| limit | value | where | beyond it |
|---|---|---|---|
| expression length | 250,000 characters (SPEC: at least 100,000) | `expr.MAX_LENGTH` | exit 2, `error: expression is N characters long; the limit is 250000 characters` |
| bracket nesting | 150 levels (SPEC: at least 100) | `expr.MAX_NESTING` | exit 2, `error: brackets nested more than 150 levels deep (the nesting limit)` with the column |
| chained operators (`x**x**...`, `---x`) | a few thousand (Python's parser) | `expr._ast_parse` | exit 2, `error: expression is nested too deeply for the parser (...)` |
| a number's digits | 4,300 (Python's int limit) | `expr._syntax_error` | exit 2, `error: cannot parse the expression: a number of N digits is too long` |
| components of one vector variable | 10,000 | `points.MAX_VECTOR_LENGTH` | exit 2, `error: --at x: a vector of N components; the limit is 10,000 ...` |
| distinct partials per point (`grad --order`) | 10,000 | `commands.derive.MAX_PARTIALS` | exit 2, `error: --order N with K components asks for M distinct partial derivatives; the limit is 10000` |
| `--order` | 30 (grad, plot; scripts and vector variables with several components 10), 20 (diff) | the options | exit 2, usage error |
| points per run with a terminal table or `--check` (plain, CSV and JSON read `--at -` and `--points` as a stream, without a limit) | 10,000,000 | `points.MAX_POINTS` | exit 2, `error: --points FILE: more than 10,000,000 points (the limit on points per run); split the input` |
| an index in symbolic work (`tape diff`, `--steps`, no points) | 10,000 components | `symbolic.infer_sizes` (`points.MAX_VECTOR_LENGTH`) | exit 2, `error: x[N] needs a vector of N+1 components; the limit is 10,000 ...` |
| distinct partials of `tape diff` | 200 (counted before they are listed) | `commands.diff.MAX_PARTIALS` | exit 2, `error: --order N with K variables asks for M distinct partial derivatives; the limit for tape diff is 200` |
| `tape check --wrt x,x,...` | 10 differentiations (as `--order`) | `options.CHECK_MAX_ORDER` | exit 2, `error: --wrt names N differentiations ...` |
| Jacobian entries at once | what the memory budget holds (`--memory`, `TAPE_MEMORY`; default 1024 MB), at about 64 bytes an entry | `derivatives` (`budget.Budget`) | exit 2, before any derivative is taken |
| `plot --out` image | 16,777,216 pixels (4096 x 4096), checked before drawing | `charts.MAX_IMAGE_PIXELS` | exit 2, `error: --out: an image of W x H pixels (N); the limit is 16,777,216 pixels (4096 x 4096)` |
| `plot --points`, `--order`; `--width`, `--height` | 100,000 grid points, order 30; 20,000 each | the options | exit 2, usage error |
| `taylor --order`, `diff --steps --order` | 30; 4 | the options; `limits.STEPS_MAX_ORDER` | exit 2 |

Each size above is checked before the work it sizes: `tests/cli/test_size_limits.py` runs the
cases in a process whose address space is capped at 400 MB, so a check made after allocating
fails there.

From a shell, one argument is also limited by the operating system (131,072 bytes on Linux),
so expressions longer than that cannot reach `tape` as an argument at all.

Parsing time is bounded: the slowest inputs at the length limit (a flat 250,000-character sum)
parse in about 5 s; everything else in under 2 s (`tests/cli/test_fuzz_parser.py`).

## Memory for many points

`--points` CSV files are read in blocks of 65,536 rows and plain, csv and json output is
written in blocks (JSON: the `"points"` list a block of points at a time), so memory grows by
the numbers only. Measured peak RSS of
`tape grad "x^2*sin(y)+exp(x*y)" --points big.csv` with 1,000,000 rows (two columns):

| format | peak RSS | before streaming |
|---|---|---|
| plain | 172 MB | 467 MB |
| csv | 240 MB | 656 MB |
| json | 149 MB | 1.2 GB (one document, built whole) |

(`tests/cli/test_limits_memory.py`; the 1e6-row run is under `pytest -m slow`.)

## Differential testing against SymPy

`python benchmarks/differential.py --n 20000` (seeded random expressions over the whole
function table, depth up to 6; value, gradient, Hessian, N-th derivative by Taylor mode,
Jacobians by the CLI path and by `GradientTape.jacobian`; SymPy derivatives evaluated at 30
digits):

```
417697/417809 agree within 1e-09 relative (20000 expressions, depth <= 6, seed 1), worst relative
error 1.61e-06 on well-conditioned inputs; 14 unexplained disagreements, 98 at ill-conditioned
points (worst 0.00037); 0 crashes; 19 expressions skipped (SymPy over 60 s); 1786 s
```

Every disagreement seen involves `tanh` or `sigmoid` in saturation: their gradient rules
(`1 - y^2`, `y*(1 - y)`, as in TensorFlow) cancel when |tanh| or sigmoid is near 1, so a
derivative of size 1e-14 comes out as 0 (absolute error below 1e-16 times the scale). The
"ill-conditioned" ones are those where SymPy's own formula evaluated in float64 misses too; the
14 "unexplained" are where SymPy's formula happens to be accurate. Pinned by
`tests/differential/test_differential.py::test_saturated_tails_*` (an xfail until the rules
use `sech^2` / `sigmoid(x)*sigmoid(-x)`). The quick version (260 expressions) runs in pytest.
"""


def _cell(text: str) -> str:
    return text.replace("|", "\\|")


def render(rows, footer: str = FOOTER) -> str:
    out = [HEADER]
    section = None
    for (sec, kind, command), (code, line) in rows:
        if sec != section:
            out.append(f"| **{sec}** | | | |\n")
            section = sec
        out.append(f"| {kind} | `{_cell(command)}` | {code} | `{_cell(line)}` |\n")
    out.append(footer)
    return "".join(out)


def hand_written_footer() -> str:
    """The document's sections after the table, as they are now (edited by hand, kept)."""
    if not DOC.exists():
        return FOOTER
    _, sep, rest = DOC.read_text(encoding="utf-8").partition("\n## ")
    return "\n## " + rest if sep else FOOTER


def parse_doc(text: str) -> list[tuple[str, str, int, str]]:
    """(kind, command, exit code, first line) for every row of the table in the document."""
    rows = []
    for line in text.split("\n## ")[0].splitlines():   # the catalogue table, not the footer
        if not line.startswith("| ") or line.startswith("| **") or line.startswith("| kind"):
            continue
        cells = [c.strip().replace("\\|", "|") for c in re.split(r"(?<!\\)\|", line)[1:-1]]
        kind, command, code, first = cells
        rows.append((kind, command.strip("`"), int(code), first[1:-1]))
    return rows


def main() -> int:
    measured = []
    for row in ROWS:
        p = run_process(row[2])
        if "Traceback" in p.stderr:
            print(f"TRACEBACK from {row[2]}:\n{p.stderr}", file=sys.stderr)
        measured.append((row, (p.returncode, first_line(p.stderr))))
        print(f"{p.returncode} {row[2][:70]:70} {first_line(p.stderr)[:80]}")
    DOC.parent.mkdir(exist_ok=True)
    DOC.write_text(render(measured, hand_written_footer()), encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
