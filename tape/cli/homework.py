"""``tape check``: is ANSWER the derivative of EXPR? A verdict a student can trust.

How a verdict is reached (docs/symbolic.md tells the same for users):

1. *Numeric search* (fast, in-process): the tape engine evaluates EXPR, the derivative asked
   for and ANSWER in float64 at a few hundred points spread over the real line - round numbers
   first, magnitudes from 1e-6 to 1e6 of both signs, points just beside round numbers (where
   singularities of homework functions sit) and, with one variable, points just inside the
   edges of the domain (found by bisection).
2. *High-precision confirmation* (``highprec``, 40 digits): every float disagreement is
   re-examined; it is a counterexample only if EXPR is differentiable there (see
   ``highprec.derivative_at``) and both sides are real and finite and apart beyond rounding.
   A spread sample of the float agreements is re-evaluated too (a difference below float
   resolution is still a difference). A confirmed counterexample: ``wrong`` (exit 1).
3. *Symbolic proof*: SymPy simplifies derivative - ANSWER within ``--timeout``. Zero:
   ``correct`` (``"method": "symbolic"``). SymPy giving up (timeout, failure, "unknown") is never
   agreement: then ``correct`` needs agreement at ``ENOUGH`` high-precision points
   (``"method": "numeric"``), and without it the verdict is undecided (exit 3, with the reason).

A wrong answer also gets a ``diagnosis`` (``diagnosis.py``): the classic mistake that reproduces
it, if one does.
"""
from __future__ import annotations

import time
from dataclasses import dataclass
from typing import Optional

import numpy as np

from .errors import CLIError
from .verdict import POLISH, Decision, optional_work, settle, shown

#: float agreements re-checked in high precision
SAMPLED = 40
#: float disagreements examined in high precision before giving up on finding a counterexample
CANDIDATES = 24
#: round numbers tried first, for readable counterexamples
ROUND = [0.5, 1.5, 2.0, -0.5, 0.3, -1.5, 3.0, 0.7, 1.0, -1.0, -2.0, -3.0, 0.0, 0.1, 5.0,
         -0.7, 10.0, -10.0, 100.0, -100.0, 1000.0, 1e6]
#: places where homework functions are often singular or end: points just beside them
NEAR = [0.0, 1.0, -1.0, 2.0, -2.0, 3.0, -3.0, 0.5, -0.5]
SEED = 20240229


@dataclass
class Exercise:
    """What is asked: the derivative of ``tree`` along ``along`` (one name per
    differentiation, in order), compared with ``answer``; ``read_as`` is how both texts were
    read."""

    tree: object
    answer: object
    variables: list[str]
    along: list[str]
    read_as: Optional[dict] = None

    @property
    def orders(self) -> list[int]:
        return [self.along.count(n) for n in self.variables]

    @property
    def label(self) -> str:
        """``d/dx``, ``d2/dx2`` (one variable), ``∂/∂x``, ``∂2/∂x2``, ``∂2/∂x∂y`` (several)."""
        n = len(self.along)
        top = "d" if len(self.variables) == 1 else "∂"
        runs: list[list] = []
        for name in self.along:
            if runs and runs[-1][0] == name:
                runs[-1][1] += 1
            else:
                runs.append([name, 1])
        bottom = "".join(f"{top}{v}" + (str(k) if k > 1 else "") for v, k in runs)
        return f"{top}{n if n > 1 else ''}/{bottom}"


def decide(expression: str, answer: str, wrt: Optional[str], order: int, timeout: float,
           implicit: bool = False, dependent: str = "y") -> tuple[Decision, str, list[str]]:
    """Parse both sides and reach a verdict; returns ``(decision, wrt, variables)``."""
    if timeout is None or timeout <= 0:
        raise CLIError(f"--timeout must be a positive number of seconds, got {timeout}")
    if implicit:
        from .implicit import check_implicit

        return check_implicit(expression, answer, wrt, order, dependent, timeout)
    if dependent != "y":
        raise CLIError("--dependent names the dependent variable of an --implicit equation; "
                       "add --implicit")
    exercise = _exercise(expression, answer, wrt, order)
    decision = _verdict(exercise, timeout)
    decision.label = exercise.label
    decision.read_as = exercise.read_as
    return decision, ",".join(dict.fromkeys(exercise.along)), exercise.variables


def _exercise(expression: str, answer: str, wrt: Optional[str], order: int) -> Exercise:
    from .targets import declared_names, expression_target

    target = expression_target(expression, declared=declared_names(wrt=wrt))
    given = expression_target(answer, label="--answer", declared=target.names)
    names = target.names
    along = _along(names, wrt or target.wrt_hint, order)
    variables = list(dict.fromkeys(along)) + [n for n in names if n not in along]
    extra = [n for n in given.names if n not in variables]
    if extra:
        raise CLIError(f"the answer uses {', '.join(map(repr, extra))}, which "
                       f"{'is' if len(extra) == 1 else 'are'} not in the expression "
                       f"(its variables: {', '.join(variables)})")
    return Exercise(target.trees[0], given.trees[0], variables, along,
                    {"expression": target.read_as, "answer": given.read_as})


def _along(names: list[str], wrt: Optional[str], order: int) -> list[str]:
    """The differentiations asked for: ``--wrt x,y`` is the mixed partial d/dx then d/dy,
    ``--wrt x --order 2`` the second partial along x."""
    if wrt is None:
        if len(names) == 1:
            return names * order
        if not names:
            raise CLIError("the expression has no variables; nothing to differentiate by")
        raise CLIError(f"the expression has several variables ({', '.join(names)}): say which "
                       f"one to differentiate by with --wrt")
    along = [w.strip() for w in wrt.split(",")]
    for w in along:
        if w not in names:
            raise CLIError(f"--wrt: {w!r} is not a variable of the expression "
                           f"(its variables: {', '.join(names) or 'none'})")
    if len(along) > 1 and order != 1:
        raise CLIError(f"--wrt {wrt} already names every differentiation (the mixed partial "
                       f"of order {len(along)}); leave out --order")
    return along * order if len(along) == 1 else along


# --------------------------------------------------------------------------- the points

def candidate_points(width: int, seed: int = SEED) -> np.ndarray:
    """(n, width) points: round ones first, then all magnitudes, both signs, and points just
    beside the usual singular places."""
    rng = np.random.default_rng(seed)
    pool = list(ROUND)
    for k in range(-6, 7):
        for _ in range(2):
            m = 10.0 ** k * rng.uniform(1.0, 9.9)
            pool += [m, -m]
    for r in NEAR:
        step = 1e-6 * (1 + abs(r))
        pool += [r + step, r - step, r + 1e3 * step, r - 1e3 * step]
    pool += list(rng.uniform(-10, 10, size=60)) + list(rng.uniform(-100, 100, size=20))
    pool = np.array(pool)
    if width == 1:
        return pool.reshape(-1, 1)
    first = np.array([[ROUND[(i + 3 * j) % len(ROUND)] for j in range(width)]
                      for i in range(len(ROUND))])
    mixed = rng.choice(pool, size=(220, width))
    return np.concatenate([first, mixed])


def _engine_values(exercise: Exercise, points: np.ndarray) -> np.ndarray:
    """f, the derivative asked for (tape engine) and the answer at every point: (3, n)."""
    from .derivatives import components, run
    from .points import Points
    from .targets import Target

    variables = exercise.variables
    wrt = list(dict.fromkeys(exercise.along))
    target = Target("", "expression", variables, [exercise.tree], [""])
    given = Target("", "expression", variables, [exercise.answer], [""])
    arrays = {n: points[:, i].copy() for i, n in enumerate(variables)}
    pts = Points(variables, arrays, len(points))
    comps = components(variables, wrt, {n: None for n in variables})
    key = tuple(sorted(wrt.index(n) for n in exercise.along))
    outcome = run(target, pts, variables, comps, "partials", len(exercise.along))
    answer = run(given, pts, variables, [], "partials", 1).value
    return np.stack([np.ravel(outcome.value), np.ravel(outcome.partials[key]),
                     np.ravel(answer)])


def _edge_points(exercise: Exercise, points: np.ndarray, values: np.ndarray) -> np.ndarray:
    """With one variable: points just inside each edge of the float domain of f and its
    derivative (bisection between neighbouring defined and undefined points)."""
    if points.shape[1] != 1:
        return np.empty((0, points.shape[1]))
    x = points[:, 0]
    ok = np.isfinite(values[0]) & np.isfinite(values[1])
    order = np.argsort(x)
    xs, oks = x[order], ok[order]
    switch = np.nonzero(oks[1:] != oks[:-1])[0]
    if not len(switch):
        return np.empty((0, 1))
    good = np.where(oks[switch], xs[switch], xs[switch + 1])
    bad = np.where(oks[switch], xs[switch + 1], xs[switch])
    for _ in range(60):
        mid = 0.5 * (good + bad)
        with np.errstate(all="ignore"):
            v = _engine_values(exercise, mid.reshape(-1, 1))
        inside = np.isfinite(v[0]) & np.isfinite(v[1])
        good, bad = np.where(inside, mid, good), np.where(inside, bad, mid)
    out = []
    for g, b in zip(good, bad):
        direction = 1.0 if g > b else -1.0
        for k in (3, 6, 9):
            out.append(b + direction * 10.0 ** -k * (1 + abs(b)))
    return np.array(out).reshape(-1, 1)


# --------------------------------------------------------------------------- the verdict

class Evidence:
    """High-precision findings at sample points."""

    def __init__(self, exercise: Exercise):
        from . import highprec as H

        self.H = H
        self.exercise = exercise
        self.f = H.compile_tree(exercise.tree, exercise.variables)
        self.a = H.compile_tree(exercise.answer, exercise.variables)
        self.agree: list[tuple] = []
        self.defined: list[tuple] = []     # float points where every side is defined
        self.counterexample: Optional[dict] = None

    def examine(self, point) -> None:
        """Record whether the answer agrees at ``point`` (a float tuple); stop at the first
        confirmed difference. Agreement needs one central estimate of the derivative; a
        difference is trusted only after the differentiability probes."""
        H = self.H
        p = H.at(point)
        a = H.value_at(self.a, p)
        if a is None:
            return
        scale = H.value_at(self.f, p) or 0
        d = H.derivative_at(self.f, p, self.exercise.orders, probe=False)
        if d is not None and not H.differ(d, a, scale):
            self.agree.append(tuple(point))
            return
        d = H.derivative_at(self.f, p, self.exercise.orders)
        if d is not None and H.differ(d, a, scale):
            self.counterexample = {"at": dict(zip(self.exercise.variables, map(float, point))),
                                   "answer": float(a), "expected": float(d)}


def _spread(indices: np.ndarray, points: np.ndarray, count: int) -> list[int]:
    """Up to ``count`` of ``indices``: the first few (round numbers) and then evenly over the
    magnitudes, largest included."""
    if len(indices) <= count:
        return list(indices)
    head = list(indices[:count // 4])
    rest = indices[count // 4:]
    by_size = rest[np.argsort(np.max(np.abs(points[rest]), axis=1), kind="stable")]
    picks = np.linspace(0, len(by_size) - 1, count - len(head)).round().astype(int)
    return head + [int(by_size[i]) for i in picks]


def numeric_evidence(exercise: Exercise) -> Evidence:
    """Steps 1 and 2 of the module docstring."""
    points = candidate_points(len(exercise.variables))
    with np.errstate(all="ignore"):
        values = _engine_values(exercise, points)
        edges = _edge_points(exercise, points, values)
        if len(edges):
            points = np.concatenate([points, edges])
            values = np.concatenate([values, _engine_values(exercise, edges)], axis=1)
        f, d, a = values
        valid = np.isfinite(f) & np.isfinite(d) & np.isfinite(a)
        apart = np.abs(d - a) > 1e-7 * np.maximum(np.abs(d), np.abs(a)) + 1e-12
    evidence = Evidence(exercise)
    evidence.defined = [tuple(p) for p in points[np.nonzero(valid)[0][:12]]]
    suspects = np.nonzero(valid & apart)[0][:CANDIDATES]
    agreeing = np.nonzero(valid & ~apart)[0]
    edge_rows = [i for i in agreeing if i >= len(points) - len(edges)]
    for i in list(suspects) + _spread(agreeing, points, SAMPLED) + edge_rows:
        evidence.examine(tuple(points[i]))
        if evidence.counterexample:
            break
    return evidence


def _verdict(exercise: Exercise, timeout: float) -> Decision:
    evidence = numeric_evidence(exercise)
    args = (exercise.tree, exercise.answer, exercise.variables, exercise.along)
    if not evidence.counterexample:
        return settle(len(evidence.agree), "spread over the domain", _difference_is_zero, args,
                      (_tidy_derivative, _raw_derivative), timeout)
    polish = time.monotonic() + min(timeout, POLISH)
    expected = shown(polish, (_tidy_derivative, _raw_derivative), args)
    from .diagnosis import diagnose

    points = [tuple(evidence.counterexample["at"].values())] + evidence.defined[:8]
    found = optional_work(max(polish, time.monotonic() + 1.0), diagnose, *args, points)
    return Decision(False, "numeric", expected, evidence.counterexample, len(evidence.agree),
                    diagnosis=found)


# --------------------------------------------------------------------------- SymPy (in a child)

def sympy_sides(tree, answer_tree, variables, along):
    """f, its derivative along ``along``, the answer (SymPy) and the symbols."""
    from . import symbolic as S

    sizes = {n: None for n in variables}
    f = S.as_scalar(S.to_sympy(tree, sizes))
    a = S.as_scalar(S.to_sympy(answer_tree, sizes))
    return f, S.derivative(f, [S.symbol(n) for n in along]), a


def _raw_derivative(tree, answer_tree, variables, along):
    from . import symbolic as S

    return S.render(sympy_sides(tree, answer_tree, variables, along)[1])


def _tidy_derivative(tree, answer_tree, variables, along):
    from . import symbolic as S

    return S.render(S.tidy(sympy_sides(tree, answer_tree, variables, along)[1]))


def _difference_is_zero(tree, answer_tree, variables, along):
    """True when SymPy proves derivative - answer == 0 (cheap rewritings first: expanded, in
    exponentials; then ``simplify``), False when it proves it is not, else None."""
    from . import symbolic as S

    sp = S.sympy()
    _, d, a = sympy_sides(tree, answer_tree, variables, along)
    difference = S._drop_deltas(d - a)
    for quick in (sp.expand, lambda e: sp.cancel(sp.expand(e.rewrite(sp.exp)))):
        try:
            if quick(difference) == 0:
                return True
        except (TypeError, ValueError, AttributeError):
            pass
    return S.is_zero(difference)
