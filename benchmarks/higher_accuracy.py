"""Accuracy of ``tape.partials`` per order and number of variables, against 30-digit references.

    python benchmarks/higher_accuracy.py            # the table of docs/higher.md (a few minutes)
    python benchmarks/higher_accuracy.py --quick    # fewer cases and partials
    python benchmarks/higher_accuracy.py --issue-expression   # issue 17's expression vs sympy.diff

Two test functions of n variables, with random coefficients and point (fixed seeds):

* positive: ``exp(a.x) / (1 - b.x)`` with a, b > 0. Every partial is a sum of positive terms, so
  each one is compared with itself: the column is the worst ``|got - ref| / |ref|``.
* oscillating: ``sin(a.x + 0.3) exp(b.x)`` with signs mixed. Partials of every size, some near
  zero: the column is the worst ``|got - ref|`` over the largest ``|ref|`` (normwise).

Both are products of ridge functions g(a.x) h(b.x), whose partials have the closed form
``d^i = sum_{k <= i} binom(i, k) a^k b^(i-k) g^(|k|)(a.x) h^(|i-k|)(b.x)``, evaluated by mpmath at
30 digits; the script first checks that closed form against ``sympy.diff`` on a few partials.
Up to ``--sample`` partials per case are compared (all of them when there are fewer).
"""
from __future__ import annotations

import argparse
import itertools
import math
import sys
import time

import mpmath
import numpy as np

import tape
from tape.engine.higher import multi_indices

POSITIVE = (lambda u, m: mpmath.exp(u), lambda v, m: mpmath.factorial(m) / (1 - v) ** (m + 1))
OSCILLATING = (lambda u, m: mpmath.sin(u + mpmath.mpf(3) / 10 + m * mpmath.pi / 2),
               lambda v, m: mpmath.exp(v))

#: (variables, orders): every order from 2 to 10, and beyond where the partial count allows
CASES = [(1, list(range(2, 11)) + [15, 20, 25, 30]), (2, list(range(2, 11)) + [12, 15, 20]),
         (3, list(range(2, 11)) + [12, 15]), (4, list(range(2, 11)) + [12]),
         (6, list(range(2, 11))), (10, list(range(2, 11)))]
QUICK_CASES = [(1, [2, 10, 20, 30]), (2, [2, 10, 20]), (3, [4, 10]), (6, [6, 10]), (10, [6])]


def exponents(multiset, n):
    e = [0] * n
    for v in multiset:
        e[v] += 1
    return tuple(e)


def ridge_product_partials(point, a, b, g_derivative, h_derivative, wanted):
    """The partials ``wanted`` (multisets) of g(a.x) h(b.x) at ``point``, mpmath at 30 digits."""
    n = len(point)
    with mpmath.workdps(30):
        x = [mpmath.mpf(v) for v in point]
        u = mpmath.fsum(mpmath.mpf(p) * q for p, q in zip(a, x))
        v = mpmath.fsum(mpmath.mpf(p) * q for p, q in zip(b, x))
        order = len(wanted[0])
        gd = [g_derivative(u, m) for m in range(order + 1)]
        hd = [h_derivative(v, m) for m in range(order + 1)]
        out = []
        for multiset in wanted:
            i = exponents(multiset, n)
            total = mpmath.mpf(0)
            for k in itertools.product(*[range(e + 1) for e in i]):
                term = gd[sum(k)] * hd[sum(i) - sum(k)]
                for il, kl, al, bl in zip(i, k, a, b):
                    term *= math.comb(il, kl) * mpmath.mpf(al) ** kl * mpmath.mpf(bl) ** (il - kl)
                total += term
            out.append(total)
        return out


def coefficients(n, order, positive):
    rng = np.random.default_rng(1000 * n + order + (0 if positive else 7))
    if positive:
        return rng.uniform(0.2, 1.0, n), rng.uniform(0.05, 0.15, n), rng.uniform(-0.5, 0.5, n)
    return rng.uniform(-1, 1, n), rng.uniform(-0.5, 0.5, n), rng.uniform(-0.5, 0.5, n)


def measure(n, order, positive, sample):
    """Worst error of one case: per partial (positive) or normwise (oscillating)."""
    a, b, point = coefficients(n, order, positive)
    if positive:
        f = lambda *x: tape.exp(sum(p * v for p, v in zip(a, x))) / (1 - sum(p * v for p, v in zip(b, x)))
    else:
        f = lambda *x: (tape.sin(sum(p * v for p, v in zip(a, x)) + 0.3)
                        * tape.exp(sum(p * v for p, v in zip(b, x))))
    got = tape.partials(f, point, order)
    every = multi_indices(n, order)
    rng = np.random.default_rng(order)
    picked = sorted(rng.choice(len(every), size=min(sample, len(every)), replace=False))
    want = np.array([float(w) for w in ridge_product_partials(
        point, a, b, *(POSITIVE if positive else OSCILLATING), [every[k] for k in picked])])
    err = np.abs(got[picked] - want)
    worst = np.max(err / np.abs(want)) if positive else np.max(err) / np.max(np.abs(want))
    return float(worst), len(every), len(picked)


def check_closed_form_against_sympy():
    """The closed form agrees with sympy.diff to 25 digits on a few partials (3 variables)."""
    import sympy as sp
    xs = sp.symbols("x0:3")
    a, b, point = [sp.Rational(1, 2), sp.Rational(3, 4), sp.Rational(1, 5)], \
        [sp.Rational(1, 10)] * 3, [sp.Rational(1, 10), sp.Rational(-1, 5), sp.Rational(3, 10)]
    ua = sum(p * x for p, x in zip(a, xs))
    vb = sum(p * x for p, x in zip(b, xs))
    for expr, pair in ((sp.exp(ua) / (1 - vb), POSITIVE),
                       (sp.sin(ua + sp.Rational(3, 10)) * sp.exp(vb), OSCILLATING)):
        for multiset in [(0, 0, 1, 2), (0, 1, 1, 1, 2, 2), (2,) * 5]:
            d = expr
            for v in multiset:
                d = sp.diff(d, xs[v])
            exact = d.evalf(30, subs=dict(zip(xs, point)))
            ours = ridge_product_partials([float(p) for p in point], [float(p) for p in a],
                                          [float(p) for p in b], *pair, [multiset])[0]
            # the point and coefficients are rounded to float64 on our side: compare loosely
            assert abs(mpmath.mpf(str(exact)) - ours) <= 1e-14 * abs(ours), (expr, multiset)


#: issue 17's expression, and the order-10 partials (exponents of a, b, c, d, e1, f) compared
#: with sympy.diff: the pure ones, and mixed ones SymPy differentiates within a minute
ISSUE_EXPRESSION = "sin(a*b+c*d+e1*f)*exp(a+b+c+d+e1+f)/(1+a^2) at 0.1..0.6"
ISSUE_PARTIALS = [(10, 0, 0, 0, 0, 0), (0, 10, 0, 0, 0, 0), (0, 0, 0, 0, 0, 10), (1, 1, 1, 1, 1, 5),
                  (0, 2, 2, 2, 2, 2), (5, 5, 0, 0, 0, 0), (3, 3, 1, 1, 1, 1), (2, 2, 2, 2, 1, 1)]


def issue_expression():
    """Worst relative error of the order-10 partials ISSUE_PARTIALS against sympy.diff at 30
    digits (each SymPy partial takes seconds to a minute)."""
    import sympy as sp
    names = sp.symbols("a b c d e1 f")
    a, b, c, d, e1, f = names
    expr = sp.sin(a * b + c * d + e1 * f) * sp.exp(a + b + c + d + e1 + f) / (1 + a ** 2)
    at = {v: sp.Rational(k + 1, 10) for k, v in enumerate(names)}
    got = tape.partials(lambda a, b, c, d, e1, f: tape.sin(a * b + c * d + e1 * f)
                        * tape.exp(a + b + c + d + e1 + f) / (1 + a ** 2),
                        [0.1, 0.2, 0.3, 0.4, 0.5, 0.6], 10)
    position = {tuple(m.count(v) for v in range(6)): k for k, m in enumerate(multi_indices(6, 10))}
    worst = 0.0
    for e in ISSUE_PARTIALS:
        d_expr = expr
        for v, k in zip(names, e):
            if k:
                d_expr = sp.diff(d_expr, v, k)
        want = d_expr.evalf(30, subs=at)
        rel = abs(got[position[e]] - float(want)) / abs(float(want))
        worst = max(worst, rel)
        print(f"| {e} | {want} | {float(got[position[e]])!r} | {rel:.1e} |", flush=True)
    print(f"worst relative error: {worst:.1e}")


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--quick", action="store_true")
    parser.add_argument("--sample", type=int, default=400, help="partials compared per case")
    parser.add_argument("--issue-expression", action="store_true",
                        help=f"only {ISSUE_EXPRESSION}: 8 partials against sympy.diff")
    args = parser.parse_args(argv)
    if args.issue_expression:
        print(f"{ISSUE_EXPRESSION}, order 10\n| exponents | SymPy (30 digits) | tape.partials | relative error |")
        print("|---|---:|---:|---:|")
        issue_expression()
        return
    check_closed_form_against_sympy()
    print("| order | variables | partials | compared | positive: worst relative error "
          "| oscillating: worst error / largest partial |")
    print("|---:|---:|---:|---:|---:|---:|")
    for n, orders in QUICK_CASES if args.quick else CASES:
        for order in orders:
            t0 = time.perf_counter()
            pos, count, compared = measure(n, order, True, args.sample)
            osc, _, _ = measure(n, order, False, args.sample)
            print(f"| {order} | {n} | {count} | {compared} | {pos:.1e} | {osc:.1e} |", flush=True)
            print(f"  ({time.perf_counter() - t0:.1f} s)", file=sys.stderr)


if __name__ == "__main__":
    main()
