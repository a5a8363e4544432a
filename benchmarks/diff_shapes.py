#!/usr/bin/env python3
"""How ``tape diff`` writes derivatives, against SymPy, on the suite's corpora.

For every expression of the diff, steps and homework corpora under ``tests/cli`` and every
variable of it, the derivative ``tape diff`` prints (its plain text, as the command computes
it) is compared with SymPy's:

* numerically: the two agree at random points in 30-digit arithmetic (every case must);
* by length: the printed text has no more characters than ``str(sympy.simplify(d))``.

    python benchmarks/diff_shapes.py            # the figures, and the cases that are longer
    python benchmarks/diff_shapes.py --all      # every case

``tests/cli/test_diff_shapes.py`` asserts the same figures.
"""
from __future__ import annotations

import argparse
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT), str(ROOT / "tests" / "cli")]


def corpus() -> list[str]:
    """The expressions of the suite's diff, steps and homework corpora (equations and
    vector expressions left out: ``tape diff`` takes them with other options)."""
    from tests.cli.homework.corpus import RIGHT, WRONG
    from tests.cli.homework.test_treediff import test_textbook_forms
    from tests.cli.steps.test_steps_rules import CORPUS
    from tests.cli.test_diff import test_plain_derivative_is_equivalent

    texts = [row[0] for row in RIGHT + WRONG] + list(CORPUS)
    for test in (test_plain_derivative_is_equivalent, test_textbook_forms):
        texts += [args.values[0] for args in test.pytestmark[0].args[1]] \
            if hasattr(test.pytestmark[0].args[1][0], "values") else \
            [args[0] for args in test.pytestmark[0].args[1]]
    texts += ["x^2*y + sin(y)", "x^2*y", "x^3", "x*y^2", "x^5", "x^2*y^3", "sec(x)", "tan(x)",
              "sin(x)*cos(y)", "atan(x)/x", "x*y"]
    return list(dict.fromkeys(t for t in texts if "=" not in t and "[" not in t))


def measure(texts: list[str]) -> list[dict]:
    """One row per (expression, variable): the printed derivative, SymPy's simplified one,
    whether they agree and their lengths."""
    import sympy as sp

    from tape.calculus.targets import expression_target
    from tape.cli.commands.diff import differentiate
    from tape.expr import highprec as H
    from tape.expr import symbolic as S

    rows = []
    for text in texts:
        if VERBOSE:
            print("...", text, file=sys.stderr, flush=True)
        target = expression_target(text)
        names = target.ordered([]) or ["x"]
        if not target.ordered([]):
            continue
        result = differentiate(text, None, 1, "plain", 10.0)
        sizes = {n: None for n in names}
        f = S.as_scalar(S.to_sympy(target.trees[0], sizes))
        symbols = [S.symbol(n) for n in names]
        for name, printed in zip(result.wrt, result.texts):
            reference = S.derivative(f, [S.symbol(name)])
            simplified = _simplified(reference)
            mine = H.compile_sympy(sp.sympify(printed, locals={n: s for n, s in zip(
                names, symbols)} | _FUNCTIONS), symbols)
            theirs = H.compile_sympy(reference, symbols)
            agree, defined = True, 0
            for k in range(40):
                point = H.at([(-1) ** (k + j) * (0.1 + 0.13 * ((k * 7 + j * 3) % 11))
                              for j in range(len(names))])
                a, b = H.value_at(mine, point), H.value_at(theirs, point)
                if a is None or b is None:
                    continue
                defined += 1
                agree = agree and not H.differ(a, b, 1)
            rows.append({"expression": text, "wrt": name, "printed": printed,
                         "simplified": simplified, "agree": agree and defined >= 3,
                         "defined": defined, "no_longer": len(printed) <= len(simplified)})
    return rows


#: seconds SymPy's simplify may take on one derivative (x^x^x^x^x^x: minutes); past them the
#: derivative as SymPy differentiated it stands for its simplest form
SIMPLIFY_SECONDS = 10.0


def _simplified(expr) -> str:
    import sympy as sp

    from tape.calculus.timelimit import SymbolicTimeout, run_limited

    try:
        return run_limited(lambda e: str(sp.simplify(e)), expr, timeout=SIMPLIFY_SECONDS)
    except SymbolicTimeout:
        return str(expr)


_FUNCTIONS: dict = {}
VERBOSE = "--verbose" in sys.argv


def _setup() -> None:
    import sympy as sp

    _FUNCTIONS.update({"sigmoid": lambda a: 1 / (1 + sp.exp(-a)),
                       "softplus": lambda a: sp.log(1 + sp.exp(a)),
                       "cbrt": lambda a: sp.real_root(a, 3),
                       "log2": lambda a: sp.log(a, 2), "log10": lambda a: sp.log(a, 10)})


def figures(rows: list[dict]) -> dict:
    n = len(rows)
    return {"cases": n, "agree": sum(r["agree"] for r in rows),
            "no_longer": sum(r["no_longer"] for r in rows),
            "no_longer_percent": round(100.0 * sum(r["no_longer"] for r in rows) / n, 1)}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--all", action="store_true", help="print every case")
    parser.add_argument("--verbose", action="store_true", help="name each case as it starts")
    args = parser.parse_args()
    _setup()
    rows = measure(corpus())
    for r in rows:
        if args.all or not r["no_longer"] or not r["agree"]:
            mark = ("" if r["agree"] else "DIFFERENT ") + ("" if r["no_longer"] else "longer")
            print(f"{r['expression']:32} d/d{r['wrt']}: {r['printed']}\n{'':32} SymPy: "
                  f"{r['simplified']}   {mark}")
    print(figures(rows))


if __name__ == "__main__":
    main()
