"""``tape check``: is ANSWER the (N-th) derivative of EXPR?

Two independent tests, as a careful grader would do them:

* numerically, at many random points (plus a few round ones first, so a counterexample is easy
  to read) inside the domain where EXPR, its derivative and ANSWER are all defined: the tape
  engine computes the derivative, and SymPy re-evaluates both sides in 30 digits when it
  finishes in time;
* symbolically, SymPy simplifies (derivative - ANSWER) and tries to reach 0.

A difference found at any point makes the answer wrong (exit 1). Otherwise it is correct
(exit 0): ``"method": "symbolic"`` when SymPy proved it, ``"numeric"`` when the evidence is the
agreement at many points (simplification timed out or could not finish the proof, as with
answers that agree only on EXPR's domain, like 1/abs(x) for ln(x)). Too few points in the
domain and no proof: undecided (exit 3).
"""
from __future__ import annotations

import time
from dataclasses import dataclass
from typing import Optional

import numpy as np

from .errors import UNDECIDED, CLIError
from .timelimit import SymbolicTimeout, run_limited, run_optional

#: random points tried (some fall outside the domain)
SAMPLES = 240
#: agreement needed at this many valid points to accept without a symbolic proof
ENOUGH = 12
#: round numbers tried first, for readable counterexamples
ROUND = [0.5, 1.5, 2.0, -0.5, 0.3, -1.5, 3.0, 0.7]
SEED = 20240229


@dataclass
class Decision:
    """The verdict on one answer."""

    correct: Optional[bool]        # None: undecided
    method: str                    # "symbolic" or "numeric"
    expected: Optional[str]        # the right derivative (None when SymPy timed out)
    counterexample: Optional[dict] = None
    valid_points: int = 0
    note: Optional[str] = None     # e.g. why the decision is numeric

    def document(self, expression: str, answer: str) -> dict:
        """The JSON document (SPEC section 3)."""
        return {"expression": expression, "answer": answer, "correct": self.correct,
                "method": self.method, "expected": self.expected,
                "counterexample": self.counterexample}


def decide(expression: str, answer: str, wrt: Optional[str], order: int,
           timeout: float) -> tuple[Decision, str, list[str]]:
    """Parse both sides, test them; returns ``(decision, wrt, variables)``."""
    from .targets import expression_target

    target = expression_target(expression, declared=[wrt] if wrt else ())
    given = expression_target(answer, label="--answer", declared=target.names)
    wrt = _choose_wrt(target.names, given.names, wrt or target.wrt_hint)
    variables = [wrt] + [n for n in target.names if n != wrt]
    extra = [n for n in given.names if n not in variables]
    if extra:
        raise CLIError(f"the answer uses {', '.join(map(repr, extra))}, which "
                       f"{'is' if len(extra) == 1 else 'are'} not in the expression "
                       f"(its variables: {', '.join(variables)})")
    points = _candidates(len(variables))
    numeric = _tape_values(target, given, variables, points, order)
    trees = (target.trees[0], given.trees[0], variables, order)
    deadline = time.monotonic() + timeout
    try:
        exact = run_limited(_exact_values, *trees, points, timeout=timeout,
                            what="symbolic differentiation", consequence="decided numerically")
    except SymbolicTimeout as exc:
        return _numeric_decision(numeric, points, variables, exc.message), wrt, variables
    exact["expected"] = run_optional(deadline, _tidy_derivative, *trees) or exact["raw"]
    exact["zero"] = run_optional(deadline, _difference_is_zero, *trees)
    return _exact_decision(exact, points, variables), wrt, variables


def _choose_wrt(names: list[str], answer_names: list[str], wrt: Optional[str]) -> str:
    if wrt is not None:
        wrt = wrt.strip()
        if "," in wrt:
            raise CLIError("tape check differentiates along one variable: --wrt VAR")
        if wrt not in names:
            raise CLIError(f"--wrt: {wrt!r} is not a variable of the expression "
                           f"(its variables: {', '.join(names) or 'none'})")
        return wrt
    if len(names) == 1:
        return names[0]
    if not names:
        raise CLIError("the expression has no variables; nothing to differentiate by")
    raise CLIError(f"the expression has several variables ({', '.join(names)}): say which "
                   f"one to differentiate by with --wrt")


def _candidates(width: int) -> np.ndarray:
    """(SAMPLES, width) points: round ones first, then random ones at several scales."""
    rng = np.random.default_rng(SEED)
    n = SAMPLES - len(ROUND)
    scale = rng.choice([0.5, 1.0, 3.0, 10.0], size=(n, width))
    random = rng.uniform(-1.0, 1.0, size=(n, width)) * scale
    positive = rng.random(size=(n, width)) < 0.4
    random = np.where(positive, np.abs(random), random)
    first = np.array([[ROUND[(i + 3 * j) % len(ROUND)] for j in range(width)]
                      for i in range(len(ROUND))])
    return np.concatenate([first, random]).reshape(SAMPLES, width)


def _tape_values(target, given, variables, points, order):
    """f, its order-N derivative (tape engine) and the answer at every point: (3, SAMPLES)."""
    from .derivatives import components, run
    from .points import Points

    arrays = {n: points[:, i].copy() for i, n in enumerate(variables)}
    pts = Points(variables, arrays, len(points))
    comps = components(variables, variables[:1], {n: None for n in variables})
    outcome = run(target, pts, variables, comps, "partials", order)
    answer = run(given, pts, variables, [], "partials", 1).value
    return np.stack([outcome.value, outcome.partials[(0,) * order], answer])


def _lowered(tree, answer_tree, variables, order):
    from . import symbolic as S

    sizes = {n: None for n in variables}
    f = S.as_scalar(S.to_sympy(tree, sizes))
    a = S.as_scalar(S.to_sympy(answer_tree, sizes))
    symbols = [S.symbol(n) for n in variables]
    return f, S.derivative(f, [symbols[0]] * order), a, symbols


def _exact_values(tree, answer_tree, variables, order, points):
    """In a child: f, the derivative and the answer at every point, in 30 digits."""
    from . import symbolic as S

    f, d, a, symbols = _lowered(tree, answer_tree, variables, order)
    evaluate = S.evaluator([f, d, a], symbols)
    values = np.array([evaluate(p) for p in points.tolist()]).T.reshape(3, len(points))
    return {"raw": S.render(d), "values": values}


def _tidy_derivative(tree, answer_tree, variables, order):
    """In a child: the derivative in a readable form."""
    from . import symbolic as S

    return S.render(S.tidy(_lowered(tree, answer_tree, variables, order)[1]))


def _difference_is_zero(tree, answer_tree, variables, order):
    """In a child: does SymPy prove derivative - answer == 0 (True/False/None)?"""
    from . import symbolic as S

    _, d, a, _ = _lowered(tree, answer_tree, variables, order)
    return S.is_zero(d - a)


def _differs(d: np.ndarray, a: np.ndarray, rtol: float, atol: float) -> np.ndarray:
    with np.errstate(invalid="ignore"):
        return np.abs(d - a) > atol + rtol * np.maximum(np.abs(d), np.abs(a))


def _counterexample(variables, point, answer, expected) -> dict:
    return {"at": dict(zip(variables, map(float, point))), "answer": float(answer),
            "expected": float(expected)}


def _exact_decision(result: dict, points, variables) -> Decision:
    f, d, a = result["values"]
    valid = np.isfinite(f) & np.isfinite(d) & np.isfinite(a)
    bad = valid & _differs(d, a, 1e-9, 1e-12)
    expected = result["expected"]
    if bad.any():
        i = int(np.argmax(bad))
        return Decision(False, "symbolic" if result["zero"] is False else "numeric", expected,
                        _counterexample(variables, points[i], a[i], d[i]), int(valid.sum()))
    count = int(valid.sum())
    if result["zero"]:
        return Decision(True, "symbolic", expected, valid_points=count)
    if count >= ENOUGH:
        return Decision(True, "numeric", expected, valid_points=count,
                        note=f"SymPy could not simplify the difference to 0; both sides "
                             f"agree at {count} points where they are defined")
    return Decision(None, "numeric", expected, valid_points=count,
                    note=f"only {count} sample points fall where both sides are defined "
                         f"and SymPy could not decide")


def _numeric_decision(values: np.ndarray, points, variables, message: str) -> Decision:
    f, d, a = values
    valid = np.isfinite(f) & np.isfinite(d) & np.isfinite(a)
    bad = valid & _differs(d, a, 1e-6, 1e-9)
    count = int(valid.sum())
    if bad.any():
        i = int(np.argmax(bad))
        return Decision(False, "numeric", None,
                        _counterexample(variables, points[i], a[i], d[i]), count, message)
    if count >= ENOUGH:
        return Decision(True, "numeric", None, valid_points=count,
                        note=f"{message} (agreement at {count} points)")
    raise CLIError(f"{message}, but only {count} sample points fall where both sides are "
                   f"defined: undecided", UNDECIDED)
