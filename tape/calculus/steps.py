"""Step-by-step derivatives: the derivation as a tree of named rules, every step verified.

``derive(tree, x)`` applies the textbook rules of ``rules.py`` with ``StepBuilder``, which
records each rule as a ``Step``, the way a textbook does: constants and the variable itself,
then the sum rule before the product rule, constant factors pulled out (``constant
multiple``), the quotient rule, the power rule, the exponential and logarithm rules, a table
rule for each elementary function, and the chain rule as outer'(inner)·inner' with the outer
part written in a placeholder (``u``) and the inner part stated as its ``substitution``. u^v
with both sides varying goes by logarithmic differentiation (``general power``); ``sigmoid``,
``softplus``, ``relu`` and ``log(u, b)`` are first rewritten in elementary terms (a
``rewrite`` step, whose result is the rewritten expression).

Each step's result is built from its sub-steps' results by the rule on tape's own trees
(``treediff``'s constructors: numbers folded, like terms collected, written in its shorter
forms), and then ``verify`` checks every step against the engine: the tape derivative of the
step's expression at random points of its domain must equal the step's result evaluated in
30-digit arithmetic (mpmath). A step that fails is a bug in tape: ``StepFailure`` (exit 70),
never a wrong step shown. No SymPy on this path; ``as_sympy`` is for the layouts that print
through SymPy (a terminal's notation, LaTeX).

``derivation(...)`` is the whole computation (one tree per variable and order) and returns plain
dicts of strings (``step_document``); the command line lays them out for reading.
"""
from __future__ import annotations

import math
from typing import Any

import numpy as np

from ..expr import tree as E
from ..expr.errors import INTERNAL_ERROR, UNDECIDED, CLIError
from ..expr.functions import FUNCTIONS
from ..expr.printer import read_as
from . import treediff as T
from .rules import differentiate

#: random points tried per step, and how many must lie in the step's domain
SAMPLES = 64
NEEDED = 3
#: a step's result agrees with the engine when |engine - result| <= RTOL*scale + ATOL
RTOL = 1e-7
ATOL = 1e-9


class StepFailure(CLIError):
    """A step whose result the engine contradicts: a bug in tape (exit 70)."""

    def __init__(self, message: str):
        super().__init__(message, INTERNAL_ERROR)


class Step:
    """One step: ``rule`` applied to ``tree`` (differentiated along ``wrt``) gives ``result``
    (a tree), from the ``steps`` below it; a chain step names its placeholder in
    ``substitution`` (name -> inner tree)."""

    __slots__ = ("rule", "tree", "wrt", "result", "steps", "substitution", "wrt_shown")

    def __init__(self, rule: str, tree: E.Expr, wrt: str, result: Any,
                 steps: list | None = None, substitution: dict | None = None) -> None:
        self.rule = rule
        self.tree = tree
        self.wrt = wrt
        self.result = result
        self.steps = steps or []
        self.substitution = substitution
        self.wrt_shown = False

    @property
    def derivative(self):
        """The derivative this step arrives at: its result, except for a rewrite step, whose
        result is the rewritten expression and whose one sub-step differentiates it."""
        return self.steps[0].derivative if self.rule == "rewrite" else self.result

    def walk(self):
        """This step and every step below it, parents first."""
        yield self
        for s in self.steps:
            yield from s.walk()


# --------------------------------------------------------------------------- helpers

def as_sympy(tree: E.Expr):
    """``tree`` in SymPy for showing: functions SymPy has no name for (``sigmoid``, ``cbrt``,
    ``log2`` ...) keep their names instead of being expanded, and so does a logarithm with a
    base (SymPy writes ``log(x, 2)`` as ``log(x)/log(2)``)."""
    from ..expr import symbolic as S

    sp = S.sympy()
    named: dict = {}

    def visit(node, kids):
        if isinstance(node, E.Call) and (not isinstance(FUNCTIONS[node.name].sympy, str)
                                         or (node.name == "log" and len(node.args) == 2)):
            key = E.Variable(f"_named{len(named)}")
            named[key.name] = (node.name, node.args)
            return key
        return E.rebuild(node, kids)

    plain = E.fold(tree, visit)
    out = S.to_sympy(plain, {name: None for name in E.free_variables(plain)})
    for key, (name, args) in named.items():
        out = out.subs(S.symbol(key), sp.Function(name)(*[as_sympy(a) for a in args]))
    return out


def _readable(tree: E.Expr) -> E.Expr:
    """A step's result in ``treediff``'s shorter forms (small ones: the search is quadratic)."""
    return T.simplest(tree) if T._size(tree) <= T.MAX_NODES else tree


def _elementary(name: str, u) -> tuple[str, Any]:
    """(rule, f'(u)) for function ``name`` at the tree ``u``: the rule's name and derivative
    from the function table."""
    function = FUNCTIONS[name]
    if function.rule is None:
        raise CLIError(f"no step-by-step rule for {name}(); tape diff without --steps gives "
                       f"its derivative", UNDECIDED)
    return function.rule, function.derivative(_TREES, u)


class _StepTrees(T.TreeBuilder):
    """``treediff``'s builder, with sign(u) written u/|u| so that the next order of steps has
    a quotient to differentiate by the rules (sign itself has no textbook rule)."""

    @staticmethod
    def sign(u: E.Expr) -> E.Expr:
        return T.div(u, T.call("abs", u))


_TREES = _StepTrees()


# --------------------------------------------------------------------------- the rules

class StepBuilder(_StepTrees):
    """The builder of ``rules.differentiate`` that records a ``Step`` for every rule applied:
    trees, sums and products taken whole as a textbook writes them, ``sigmoid``,
    ``softplus``, ``relu`` and ``log(u, b)`` rewritten first."""

    flatten = True
    rewrites = True

    @staticmethod
    def outer(name: str, u):
        return _elementary(name, u)[1]

    @staticmethod
    def no_rule(node: E.Expr):
        if isinstance(node, E.Index) or (isinstance(node, E.Call)
                                         and FUNCTIONS[node.name].kind != "elementwise"):
            what = "indexing" if isinstance(node, E.Index) else f"{node.name}()"
            raise CLIError(f"--steps works on scalar variables; {what} is not supported there")
        raise CLIError(f"no step-by-step rule for {node.name}() with {len(node.args)} "
                       f"arguments; tape diff without --steps gives its derivative",
                       UNDECIDED)

    @staticmethod
    def record(rule, node, wrt, derivative, children, substitution, shown):
        result = shown if rule == "rewrite" else _readable(derivative)
        step = Step(rule, node, wrt, result, children, substitution)
        return step.derivative, step


def derive(tree: E.Expr, x: str) -> Step:
    """The derivation of ``tree`` along ``x`` as a tree of steps (e**v read as exp(v), as
    the exponential rule has it)."""
    for node, _ in E.postorder(tree):
        if isinstance(node, E.Index):
            StepBuilder.no_rule(node)
    return differentiate(E.fold(tree, T._exp_form), x, StepBuilder())[1]


# --------------------------------------------------------------------------- verification

def _sample(names: list[str], rng: np.random.Generator) -> dict[str, np.ndarray]:
    """Random points spread over small and large magnitudes, both signs (domains are found by
    keeping the points where the engine's value and derivative are finite)."""
    out = {}
    for name in names:
        scale = rng.choice([0.5, 1.0, 2.0, 4.0, 4.0, 16.0, 64.0], SAMPLES)
        values = rng.uniform(-1.0, 1.0, SAMPLES) * scale
        values[::4] = np.abs(values[::4]) + 1.0     # some points where roots and logs live
        out[name] = values
    return out



def _divides_by_zero(tree: E.Expr) -> bool:
    return any(isinstance(n, E.Binary) and n.op == "/" and T.exact_value(n.right) == 0
               for n, _ in E.postorder(tree))


def verify(step: Step, seed: int = 0) -> None:
    """Check ``step``'s result against the engine at random points of its domain; raise
    ``StepFailure`` (exit 70) on disagreement, CLIError (exit 3) when no point of the domain
    is found."""
    if _divides_by_zero(step.result):
        raise CLIError(f"the step d/d{step.wrt} {read_as(step.tree)} divides by an exact zero "
                       f"(result {read_as(step.result)}); there is no derivative to show",
                       UNDECIDED)
    names, point, value, engine, exact = _at_random_points(step, seed)
    inside = np.isfinite(value) & np.isfinite(engine)
    checked = 0
    for i in np.flatnonzero(inside):
        values = [float(point[n][i]) for n in names]
        expected = exact(values)
        if not math.isfinite(expected):
            continue
        got = float(engine[i])
        if not _close(got, expected) and not _engine_rounding(step, names, values, expected):
            at = ", ".join(f"{n}={float(point[n][i])!r}" for n in names)
            raise StepFailure(
                f"the {step.rule} step d/d{step.wrt} {read_as(step.tree)} = "
                f"{read_as(step.result)} does not match the engine at {at}: {expected!r} vs "
                f"{got!r}; this is a bug in tape's step-by-step derivation")
        checked += 1
        if checked >= 8:
            return
    if checked < NEEDED:
        raise CLIError(f"cannot verify the step d/d{step.wrt} {read_as(step.tree)}: too few "
                       f"random points where it is defined (real and finite)", UNDECIDED)


def _in_30_digits(tree: E.Expr, names: list[str]):
    """``f(values) -> float`` evaluating ``tree`` at one point in 30 digits (nan where it is
    not real and finite)."""
    from ..expr import highprec as H

    fn = H.compile_tree(tree, names)

    def value(values) -> float:
        v = H.value_at(fn, H.at(values))
        try:
            return float(v) if v is not None else math.nan
        except (TypeError, ValueError, OverflowError):
            return math.nan

    return value


def _at_random_points(step: Step, seed: int) -> tuple:
    """Random points for checking ``step`` (``_sample``): its variable names, the points, the
    engine's value and derivative of the step's expression there, and the step's result as a
    function of one point's values."""
    names = sorted(set(E.free_variables(step.tree)) | {step.wrt})
    point = _sample(names, np.random.default_rng(seed))
    from .derivatives import values_at

    stacked = np.stack([np.asarray(point[n], dtype=float).reshape(-1) for n in names], axis=1)
    value, engine = values_at(step.tree, names, stacked, [step.wrt])
    return names, point, value, engine, _in_30_digits(step.result, names)


def _close(got: float, expected: float) -> bool:
    return abs(got - expected) <= RTOL * max(abs(expected), abs(got), 1.0) + ATOL


def _engine_rounding(step: Step, names: list, values: list, expected: float) -> bool:
    """Whether a disagreement is the engine's float64 rounding (cancellation at a large or
    awkward point) rather than a wrong step: the derivative of the step's expression taken
    numerically in 30 digits (mpmath) then confirms the step's result there."""
    from ..expr import highprec as H

    fn = H.compile_tree(step.tree, names)
    orders = [1 if n == step.wrt else 0 for n in names]
    reference = H.derivative_at(fn, H.at(values), orders, probe=False)
    if reference is None:
        return False
    reference = float(reference)
    return math.isfinite(reference) and abs(reference - expected) <= 1e-12 * max(
        abs(reference), 1.0)


def verify_all(root: Step) -> None:
    """Verify every step, deepest first (so a failure names the step that went wrong)."""
    for i, step in enumerate(reversed(list(root.walk()))):
        if step.rule == "rewrite":
            _verify_rewrite(step, i)
        else:
            verify(step, i)


def _verify_rewrite(step: Step, seed: int) -> None:
    """A rewrite step claims equal values: check them with the engine."""
    names, point, value, _, exact = _at_random_points(step, seed)
    for i in np.flatnonzero(np.isfinite(value))[:8]:
        expected = exact([float(point[n][i]) for n in names])
        if math.isfinite(expected) and abs(expected - value[i]) > RTOL * max(
                1.0, abs(expected)) + ATOL:
            raise StepFailure(f"the rewrite of {read_as(step.tree)} as {read_as(step.result)} "
                              f"does not match the engine; this is a bug in tape")


# --------------------------------------------------------------------------- the whole job

def step_document(step: Step, show) -> dict:
    """A step as a plain dict of strings (``show`` renders a tree)."""
    doc: dict = {"rule": step.rule, "expression": show(step.tree),
                 "result": show(step.result),
                 "steps": [step_document(s, show) for s in step.steps]}
    if step.wrt_shown:
        doc["wrt"] = step.wrt
    if step.substitution:
        doc["substitution"] = {u: show(t) for u, t in step.substitution.items()}
    return doc


def derivation(tree: E.Expr, wrt: list[str], order: int, show=read_as) -> dict:
    """Every variable's derivation, order by order, each step verified: ``{"steps": {var:
    [root step per order]}, "derivative": {var: text}}`` with every expression written by
    ``show`` (SymPy syntax by default; ``formulas.shower`` gives the other styles); each order
    differentiates the previous order's result."""
    steps: dict = {}
    final: dict = {}
    for x in wrt:
        roots = []
        current = tree
        for k in range(order):
            root = derive(current, x)
            verify_all(root)
            _mark_wrt(root, x)
            roots.append(step_document(root, show))
            current = root.derivative
        steps[x] = roots
        final[x] = show(root.derivative)
    return {"steps": steps, "derivative": final}


def _mark_wrt(root: Step, x: str) -> None:
    """Steps along a placeholder say so (``"wrt": "u"``); the others go along ``x``."""
    for step in root.walk():
        step.wrt_shown = step.wrt != x
