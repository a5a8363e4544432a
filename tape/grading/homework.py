"""``tape check``: is ANSWER the derivative of EXPR? A verdict a student can trust.

How a verdict is reached (docs/symbolic.md tells the same for users):

1. *Numeric search* (fast, in-process, no SymPy): the tape engine evaluates EXPR, the
   derivative asked for and ANSWER in float64 at a few hundred points spread over the real
   line - round numbers first, magnitudes from 1e-6 to 1e6 of both signs, points just beside
   round numbers (where singularities of homework functions sit) - and along a dense scan of
   each variable's line (``dense_points``: 72,000 points with one variable, one vectorized
   pass), so a feature narrower than the sample's spacing is seen; with one variable points
   just inside the edges of the domain (found by bisection), and points on both sides of
   every *breakpoint* (``breakpoints``: where an abs/relu/sign/max/min/floor/ceil of either
   text breaks or a denominator vanishes, solved for numerically; all of them, or undecided
   past ``MAX_BREAKPOINTS``), so that a difference living on a narrow interval is sampled.
   Powers u^(p/q) with q odd are real on the whole line (``real_roots``).
2. *High-precision confirmation* (``highprec``, 40 digits): every float disagreement is
   re-examined; it is a counterexample only if EXPR is differentiable there (see
   ``highprec.derivative_at``), both sides are real and finite, and their gap is the same
   again at twice the digits (``highprec.difference_persists``); agreement is 24 equal digits
   of the two sides compared, whatever the size of EXPR (its digits are raised as far as it
   is larger: ``Evidence.digits``).
   A spread sample of the float agreements, and the points beside breakpoints, are
   re-evaluated too (a difference below float resolution is still a difference). A confirmed
   counterexample: ``wrong`` (exit 1). Agreement at ``ENOUGH`` points: ``correct``
   (``"method": "numeric"``). Either way the verdict does not wait for SymPy: the right
   derivative is shown from ``treediff`` (checked against the engine) and the mistake is named
   on tape's own trees (``diagnosis.py``); SymPy runs in a child only for a function
   ``treediff`` has no rule for.
3. *Symbolic proof*, only when the numbers are not decisive (too few points where the
   derivative exists): SymPy simplifies derivative - ANSWER within ``--timeout``; see
   ``verdict.settle``.
4. *Every reading* (SPEC section 10): a text whose reading note names another plausible
   reading (``ambiguous_readings``) is graded by the numbers under that reading too; verdicts
   that differ make the verdict ``ambiguous`` (``_under_every_reading``).
"""
from __future__ import annotations

import re
import sys
import time
from dataclasses import dataclass, field
from typing import Optional

import numpy as np

from ..expr import tree as E
from ..calculus.limits import CHECK_MAX_ORDER, TIMEOUT
from ..calculus.treediff import exact_value
from ..expr.errors import UNDECIDED, CLIError, ExprError
from ..expr.parse import normalize
from .verdict import (
    ENOUGH,
    AnswerNameError,
    POLISH,
    Verdict,
    in_the_names_of,
    optional_work,
    refuse_a_question,
    settle,
)

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
    #: the texts as typed and their reading notes (for ``ambiguous_readings``)
    answer_text: str = ""
    answer_notes: tuple = ()
    expression_notes: tuple = ()
    #: every reading note of both texts, as ``Verdict.notes`` carries them
    notes: list = field(default_factory=list)
    #: the expression's text asked for the derivative (``d/dx`` in front)
    asks: bool = False
    #: the expression as read, for the derivative shown (``tree`` has ``real_roots``)
    shown_tree: object = None

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


def check(expression: str, answer: str, *, wrt: Optional[str] = None, order: int = 1,
          implicit: bool = False, dependent: str = "y", antiderivative: bool = False,
          constant: Optional[str] = None, timeout: float = TIMEOUT) -> Verdict:
    """Is ``answer`` the derivative of ``expression`` (SPEC sections 5 and 8)?

    ``wrt`` names the variable (needed with several; ``"x,y"`` is the mixed partial d/dx then
    d/dy), ``order`` the derivative's order; with ``implicit`` the expression is an equation
    in x and the ``dependent`` name and the answer is checked against dy/dx on the curve.
    ``timeout`` bounds the symbolic work in seconds; an ``order`` outside 1 to
    ``CHECK_MAX_ORDER`` (10) raises ``CLIError`` naming it. With ``antiderivative`` the question is
    the other way round: is ``answer`` an antiderivative of ``expression``, up to a constant
    (``+ C``, or the letter ``constant`` names; see ``antiderivative.py``)? Returns a
    ``Verdict``: ``correct`` True, False (with a counterexample, and a diagnosis when one is
    found) or None (undecided, with the ``reason``). Texts that cannot be read raise
    ``tape.expr.ReadError``; a name the answer has and the expression does not raises
    ``AnswerNameError`` (a ``CLIError``: exit 2 for ``tape check``, a wrong answer for a
    gradebook); other bad input raises ``CLIError``.

    >>> verdict = check("sin(x)^2", "2 sin x cos x")
    >>> verdict.correct, verdict.expected
    (True, '2*sin(x)*cos(x)')
    """
    if timeout is None or not timeout > 0:
        raise CLIError(f"--timeout must be a positive number of seconds, got {timeout}")
    if isinstance(order, bool) or not isinstance(order, (int, np.integer)) or \
            not 1 <= order <= CHECK_MAX_ORDER:
        raise CLIError(f"--order: the order of the derivative is a whole number from 1 to "
                       f"{CHECK_MAX_ORDER}, got {order!r}")
    order = int(order)
    if antiderivative or constant is not None:
        from .antiderivative import check_antiderivative

        # this module hands itself over: antiderivative.py uses its check and its numbers
        return check_antiderivative(sys.modules[__name__], expression, answer, wrt=wrt,
                                    order=order, implicit=implicit,
                                    antiderivative=antiderivative, constant=constant,
                                    timeout=timeout)
    try:
        if implicit:
            from .curves import check_implicit

            verdict = check_implicit(expression, answer, wrt, order, dependent, timeout)
        else:
            if dependent != "y":
                raise CLIError("--dependent names the dependent variable of an --implicit "
                               "equation; add --implicit")
            exercise = _exercise(expression, answer, wrt, order)
            verdict = _verdict(exercise, timeout)
            if verdict.correct is not None:
                verdict = _under_every_reading(verdict, exercise, expression, answer, wrt,
                                               order)
            verdict.label = exercise.label
            verdict.read_as = exercise.read_as
            verdict.wrt = ",".join(dict.fromkeys(exercise.along))
            verdict.variables = exercise.variables
            verdict.notes = exercise.notes
            verdict.asks = exercise.asks
    except CLIError as err:
        if err.code != UNDECIDED:
            raise
        verdict = Verdict(None, "numeric", None, reason=err.message)
    verdict.expression, verdict.answer = expression, answer
    return verdict


def _exercise(expression: str, answer: str, wrt: Optional[str], order: int) -> Exercise:
    from ..calculus.targets import declared_names, expression_target

    target = expression_target(expression, declared=declared_names(wrt=wrt))
    given = expression_target(answer, label="--answer", declared=target.names)
    refuse_a_question(answer, given.asks)
    # a constant is a function of any variable (--wrt t, else x): its derivative is 0
    names = target.names or [normalize(w) for w in (wrt or "x").split(",")][:1]
    order = _stated_order(target, given, order)
    along = _along(names, wrt or target.wrt_hint, order)
    variables = list(dict.fromkeys(along)) + [n for n in names if n not in along]
    answer_tree = in_the_names_of(given.trees[0], given.names, variables)
    extra = [n for n in E.free_variables(answer_tree) if n not in variables]
    if extra:
        raise AnswerNameError(f"the answer uses {', '.join(map(repr, extra))}, which "
                              f"{'is' if len(extra) == 1 else 'are'} not in the expression "
                              f"(its variables: {', '.join(variables)})", extra, variables)
    return Exercise(real_roots(target.trees[0]), real_roots(answer_tree), variables, along,
                    {"expression": target.read_as, "answer": given.read_as},
                    shown_tree=target.trees[0],
                    answer_text=answer, answer_notes=tuple(given.notes),
                    expression_notes=tuple(target.notes),
                    notes=[*target.notes, *(f"--answer: {n}" for n in given.notes)],
                    asks=target.asks)


def _stated_order(target, given, order: int) -> int:
    """The order of derivative asked for: the one an operator in front of EXPR asks for
    (``d²/dx² x^3``) or the answer's label states (``y'' = 6x``), else ``order``; an
    ``--order`` that says otherwise is refused, naming both. ``target`` and ``given`` are
    the two texts' targets, which carry what their readings found."""
    for said, how in ((target.derivative_order if target.asks else None, "EXPR asks for"),
                      (None if given.asks else given.derivative_order,
                       "the answer's label says")):
        if said and order not in (1, said):
            raise CLIError(f"{how} derivative order {said} and --order says {order}; give "
                           f"one of them")
        order = said or order
    return order


#: a reading note whose rule has another plausible reading (SPEC section 10), naming it as
#: text to type: ``read 1/2x as (1/2)*x (write 1/(2x) to divide by 2x)``, ``read e^2x as
#: (e**2)*x (write e^(2x) for the other reading)``, ``read x^1/2 as (x**1)/2 (write x^(1/2)
#: for the power 1/2)``
_OTHER = re.compile(r"read (?P<typed>.+?) as (?P<read>.+?) \(write (?P<other>\S+) "
                    r"(?:to divide by|for the other reading|for the power)")
#: a function's argument without brackets before a division: ``sin x/2``
_ARGUMENT = re.compile(r"read (?P<typed>(?P<name>[a-z]+) (?P<rest>[^()]+/[^()]+)) as "
                       r"(?P<read>.+?) \(a function without brackets takes the next factor")
#: two-argument log, whose base GeoGebra and WolframAlpha put first
_LOG = re.compile(r"read (?P<typed>log\((?P<a>[^,()]+),\s*(?P<b>[^,()]+)\)) as .*"
                  r"WolframAlpha reads log\(b, x\)")


@dataclass(frozen=True)
class Reading:
    """One plausible reading of a piece of text: ``typed`` is read as ``this`` (text that
    says it without the ambiguity) or as ``other``."""

    typed: str
    this: str
    other: str


def ambiguous_readings(text: str, notes) -> list[Reading]:
    """The readings of ``text`` that SPEC section 10 calls ambiguous, from its reading notes:
    a product after ``/``, an exponent or a fraction without brackets (``e^2x``, ``x^1/2``,
    ``sin x/2``, ``√2x``) and ``log(a, b)``. Letter splits and the argument conventions of
    section 4 (``sin 2x``) are what a teacher reads, not ambiguities."""
    found = []
    for note in notes:
        if "\\" in text and "to divide by" in note:
            continue        # typeset: a division meant whole is a \frac
        match = _OTHER.match(note)
        if match and match["typed"] in text and _plausible(match["typed"], note):
            this = match["read"].replace("**", "^").replace("*", "")
            found.append(Reading(match["typed"], this, match["other"]))
            continue
        match = _ARGUMENT.match(note)
        # sin x/2 may be sin(x/2); ln x/x is not ln(x/x)
        if match and match["typed"] in text and re.search(r"/\s*[\d.]+$", match["rest"]):
            name, rest = match["name"], match["rest"].strip()
            found.append(Reading(match["typed"], match["read"].replace("*", ""),
                                 f"{name}({rest})"))
            continue
        match = _LOG.match(note)
        if match and match["typed"] in text:
            a, b = match["a"].strip(), match["b"].strip()
            if re.search(r"[A-Za-z]", a) and re.fullmatch(r"[\d.]+", b):
                continue        # log(x, 2): nobody means the base x of 2
            found.append(Reading(match["typed"], _log_text(a, b), _log_text(b, a)))
    return found


def _plausible(typed: str, note: str) -> bool:
    """Is the other reading a note names one that SPEC section 10 counts: a product after
    ``/`` (``1/2x``), ``x^1/2``, ``√2x``, or a number exponent glued to a name (``e^2x``,
    ``e^-2x``; not ``x^2(x^2+1)``, a power times a bracket)?"""
    if "to divide by" in note or "for the power" in note or "√" in typed:
        return True
    # e^2x and 2^3x, whose exponent is often meant whole; x^2y is x²y to every reader
    return re.match(r"(e|ℯ|[\d.]+)\^[-+]?[\d.]+[A-Za-zπθ]", typed) is not None


def _log_text(of: str, base: str) -> str:
    """log of ``of`` to the base ``base`` as text nobody reads two ways."""
    simple = re.fullmatch(r"[A-Za-z]|\d+(\.\d+)?", base)
    return f"log_{base}({of})" if simple else f"ln({of})/ln({base})"


#: most alternative readings graded (each is one more numeric verdict)
MOST_READINGS = 4


def _under_every_reading(verdict: Verdict, exercise: Exercise, expression: str, answer: str,
                         wrt: Optional[str], order: int) -> Verdict:
    """SPEC section 10 for the derivative check (``under_every_reading``), each other
    reading graded by the numbers alone."""
    def grade(texts: dict):
        alternative = _exercise(texts["expression"], texts["answer"], wrt, order)
        return alternative.read_as, _numbers_say(alternative)

    return under_every_reading(verdict, {"expression": expression, "answer": answer},
                               {"expression": exercise.expression_notes,
                                "answer": exercise.answer_notes}, exercise.read_as, grade)


def under_every_reading(verdict: Verdict, texts: dict, notes: dict, read_as: dict,
                        grade) -> Verdict:
    """SPEC section 10: a text read with a rule that has another plausible reading is graded
    under each; when the verdicts differ, the verdict is ``ambiguous`` (``correct`` None), with
    every reading, its verdict and how to write it.

    ``texts`` and ``notes`` are the expression's and the answer's texts and reading notes
    (keys ``"expression"``, ``"answer"``), ``read_as`` how they were read for ``verdict``;
    ``grade(texts)`` is ``(read_as, correct)`` for other texts (``ExprError``/``CLIError``:
    that reading is left out). A notation typed in both texts (``e^2x`` and ``2e^2x``) is
    read alike in both first (a teacher and a student writing one thing mean one thing), then
    on each side alone."""
    from ..expr import notes as N

    sides = {side: ambiguous_readings(texts[side], notes[side]) for side in texts}
    if not any(sides.values()):
        return verdict
    shared = [r for r in sides["expression"]
              if any((r2.typed, r2.this, r2.other) == (r.typed, r.this, r.other)
                     for r2 in sides["answer"])]
    choices = [(("expression", "answer"), r) for r in shared] + \
        [((side,), r) for side in texts for r in sides[side]]
    written = dict(texts)
    for side in texts:
        for r in sides[side]:
            written[side] = written[side].replace(r.typed, r.this, 1)
    graded = [(written, read_as, verdict.correct)]
    listener, N.listener = N.listener, None        # the notes of the texts were told once
    try:
        for chosen, r in choices[:MOST_READINGS]:
            # the reading chosen first, then the others as read where they are still typed
            other = dict(texts)
            for side in chosen:
                other[side] = other[side].replace(r.typed, r.other, 1)
            for side in texts:
                for r2 in sides[side]:
                    if not (side in chosen and r2 == r):
                        other[side] = other[side].replace(r2.typed, r2.this, 1)
            try:
                alternative_read_as, correct = grade(other)
            except (ExprError, CLIError):
                continue
            graded.append((other, alternative_read_as, correct))
    finally:
        N.listener = listener
    if all(correct == verdict.correct for _, _, correct in graded):
        return verdict
    readings = [{"read_as": read_as, "correct": correct, "write": text}
                for text, read_as, correct in graded]
    said = "; ".join(f"{r.typed!r} as {r.this} or {r.other}"
                     for r in dict.fromkeys(r for side in texts for r in sides[side]))
    return Verdict(None, verdict.method, verdict.expected, ambiguous=True, readings=readings,
                   reason=f"ambiguous: the verdict depends on how the text is read ({said})")


def _numbers_say(exercise: Exercise) -> Optional[bool]:
    """The verdict of the numbers alone: False with a confirmed counterexample, True with
    agreement at ``ENOUGH`` points, else None."""
    try:
        evidence = numeric_evidence(exercise)
    except CLIError:
        return None
    if evidence.nowhere:
        return None
    if evidence.counterexample:
        return False
    return True if len(evidence.agree) >= ENOUGH else None




def real_roots(tree):
    """``tree`` with every power u^(p/q), q odd, read as textbooks read it: the real function
    on the whole line (as ``∛``), ``|u|^(p/q)`` times ``sign(u)`` when p is odd. A principal
    power is not real for u < 0, and only half of the line would be compared."""
    def visit(node, kids):
        node = E.rebuild(node, kids)
        if not (isinstance(node, E.Binary) and node.op == "**"):
            return node
        power = exact_value(node.right)
        if power is None or power.denominator == 1 or power.denominator % 2 == 0:
            return node
        magnitude = E.Binary("**", E.Call("abs", (node.left,)), node.right)
        if power.numerator % 2 == 0:
            return magnitude
        return E.Binary("*", E.Call("sign", (node.left,)), magnitude)

    return E.fold(tree, visit)


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
    along = [normalize(w) for w in wrt.split(",")]
    for w in along:
        if w not in names:
            raise CLIError(f"--wrt: {w!r} is not a variable of the expression "
                           f"(its variables: {', '.join(names) or 'none'})")
    if len(along) > 1 and order not in (1, len(along)):
        raise CLIError(f"--wrt {wrt} names {len(along)} differentiations (the mixed partial "
                       f"of order {len(along)}) but --order says {order}; give one of them")
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


#: the dense scan of a variable's line: (lo, hi, count) evenly spaced, then every magnitude
#: from 1e-6 to 1e7 of both signs (LINE_DECADES points); a feature as narrow as the fine
#: spacing (1e-3 near the origin) is seen
LINE = [(-20.0, 20.0, 40_001), (-1000.0, 1000.0, 20_001)]
LINE_DECADES = 6_000
#: with several variables: each one's line, coarser, the others held at BASES values
LINE_SEVERAL = [(-20.0, 20.0, 10_001), (-1000.0, 1000.0, 2_001)]
LINE_DECADES_SEVERAL = 1_000
BASES = [0.7, -1.3, 2.1, -0.4, 1.6, -2.5]


def _line(spans, decades: int) -> np.ndarray:
    sizes = np.logspace(-6, 7, decades)
    return np.concatenate([np.linspace(lo, hi, n) for lo, hi, n in spans] + [sizes, -sizes])


def dense_points(width: int, seed: int = SEED) -> np.ndarray:
    """(n, width) points of the dense scan: with one variable the whole line (``LINE``); with
    several, each variable along its line with the others fixed, twice (``BASES``), so a
    difference narrower than the spacing of ``candidate_points`` is still sampled."""
    if width == 1:
        return _line(LINE, LINE_DECADES).reshape(-1, 1)
    line = _line(LINE_SEVERAL, LINE_DECADES_SEVERAL)
    blocks = []
    for shift in (0, 1):
        base = [BASES[(j + shift * width) % len(BASES)] for j in range(width)]
        for axis in range(width):
            block = np.tile(base, (len(line), 1))
            block[:, axis] = line
            blocks.append(block)
    return np.concatenate(blocks)


def _engine(tree, variables: list[str], points: np.ndarray, along: list[str]):
    """``tree`` and its derivative along ``along`` (tape engine) at every point: two (n,)
    arrays (the derivative is None when ``along`` is empty)."""
    from ..calculus.derivatives import values_at

    return values_at(tree, variables, points, along)


def _engine_values(exercise: Exercise, points: np.ndarray) -> np.ndarray:
    """f, the derivative asked for (tape engine) and the answer at every point: (3, n)."""
    f, d = _engine(exercise.tree, exercise.variables, points, exercise.along)
    a, _ = _engine(exercise.answer, exercise.variables, points, [])
    # no differentiation asked (two functions compared as they stand): f is the "derivative"
    return np.stack([f, f if d is None else d, a])


def _edges(exercise: Exercise, good: np.ndarray, bad: np.ndarray) -> np.ndarray:
    """With one variable: between each ``good`` x (where f and the derivative are defined)
    and its ``bad`` neighbour, the last defined x found by bisection."""
    for _ in range(60):
        mid = 0.5 * (good + bad)
        with np.errstate(all="ignore"):
            v = _engine_values(exercise, mid.reshape(-1, 1))
        inside = np.isfinite(v[0]) & np.isfinite(v[1])
        good, bad = np.where(inside, mid, good), np.where(inside, bad, mid)
    return good


def _edge_points(exercise: Exercise, points: np.ndarray, values: np.ndarray) -> np.ndarray:
    """With one variable: points just inside each edge of the float domain of f and its
    derivative (bisection between neighbouring defined and undefined points)."""
    if points.shape[1] != 1:
        return np.empty((0, points.shape[1]))
    x = points[:, 0]
    ok = np.isfinite(values[0]) & np.isfinite(values[1])
    order = np.argsort(x, kind="stable")
    xs, oks = x[order], ok[order]
    switch = np.nonzero(oks[1:] != oks[:-1])[0]
    if not len(switch):
        return np.empty((0, 1))
    good = np.where(oks[switch], xs[switch], xs[switch + 1])
    bad = np.where(oks[switch], xs[switch + 1], xs[switch])
    edge = _edges(exercise, good, bad)
    out = []
    for g, b in zip(edge, bad):
        direction = 1.0 if g > b else -1.0
        for k in (3, 6, 9):
            out.append(g + direction * 10.0 ** -k * (1 + abs(g)))
    return np.array(out).reshape(-1, 1)


def compared_part(exercise: Exercise, points: np.ndarray, valid: np.ndarray) -> Optional[str]:
    """Where the sides could be compared, when that is not the whole line: ``"x > 0"``,
    ``"-1 < x < 1"``, ``"x < -1 or x > 1"``; with several variables the share of the scanned
    points where every side is real. None when every side is real on all of the line but
    isolated points (1/x at 0)."""
    width = points.shape[1]
    if width != 1:
        share = valid.mean() if len(valid) else 0.0
        if share >= 0.995:
            return None
        return (f"only where every side is real ({100 * share:.3g}% of the points scanned "
                f"along each variable's line)")
    x = points[:, 0]
    order = np.argsort(x, kind="stable")
    xs, oks = x[order], valid[order]
    if not oks.any():
        return None
    change = np.nonzero(oks[1:] != oks[:-1])[0] + 1
    bounds = np.concatenate([[0], change, [len(xs)]])
    runs = [[lo, hi - 1] for lo, hi in zip(bounds[:-1], bounds[1:]) if oks[lo]]
    # real at single points only (x^x at negative integers): no part of the line
    runs = [r for r in runs if xs[r[0]] != xs[r[1]]] or runs
    merged = [runs[0]]
    for lo, hi in runs[1:]:
        # undefined at one place only (1/x at 0): not a gap in the line
        if xs[merged[-1][1] + 1] == xs[lo - 1]:
            merged[-1][1] = hi
        else:
            merged.append([lo, hi])
    if merged[0][0] == 0 and merged[-1][1] == len(xs) - 1 and len(merged) == 1:
        return None
    inside, outside = [], []
    for lo, hi in merged:
        for i, j in ((lo, lo - 1), (hi, hi + 1)):
            if 0 <= j < len(xs):
                inside.append(xs[i])
                outside.append(xs[j])
    edge = dict(zip(map(float, inside), _edges(exercise, np.array(inside, dtype=float),
                                               np.array(outside, dtype=float))))
    name = exercise.variables[0]
    parts = []
    for lo, hi in merged:
        left = _round_edge(edge[float(xs[lo])]) if lo > 0 else None
        right = _round_edge(edge[float(xs[hi])]) if hi < len(xs) - 1 else None
        parts.append(f"{left} < {name} < {right}" if left is not None and right is not None
                     else f"{name} > {left}" if left is not None else f"{name} < {right}")
    if len(parts) > 4:
        near = min(range(len(merged)), key=lambda k: abs(xs[merged[k][0]]))
        return (f"{len(parts)} intervals of {name} from {xs[0]:.6g} to {xs[-1]:.6g}, e.g. "
                f"{parts[near]}")
    return " or ".join(parts)


def _round_edge(value: float) -> str:
    """An edge found by bisection as a reader would write it: a simple fraction when it is one
    to 9 digits, else 6 significant digits."""
    from fractions import Fraction

    value = float(value)
    simple = Fraction(value).limit_denominator(12)
    if abs(simple.numerator) <= 10_000 and abs(float(simple) - value) <= 1e-9 * (1 + abs(value)):
        return str(simple)
    return f"{value:.6g}"


#: functions that break where their argument is 0 (``max``/``min``: where both arguments are
#: equal; ``floor``/``ceil``: where it is an integer)
BREAKING = {"abs", "relu", "sign", "max", "min", "floor", "ceil"}
#: breakpoints beyond this many make a verdict undecided (every one found is sampled in
#: floats on both sides; this bounds the memory of that), and the high-precision checks spent
#: on the points beside them, spread over all of them
MAX_BREAKPOINTS = 200_000
BREAK_CHECKS = 64
#: Newton steps and bisection halvings of the breakpoint search
NEWTON_STEPS = 30
HALVINGS = 60


class TooManyBreakpoints(Exception):
    """More breakpoints than can be sampled (``MAX_BREAKPOINTS``)."""


def breaking_arguments(*trees) -> list[tuple[object, bool]]:
    """``(g, stepwise)`` for every place where a function of the trees is not smooth: the
    argument of abs, relu and sign and the difference of max/min's arguments break at their
    zeros, floor's and ceil's argument (``stepwise``) wherever it crosses an integer; a
    denominator's zeros are singularities. Each argument once."""
    found: dict = {}

    def visit(node, kids):
        if isinstance(node, E.Call) and node.name in BREAKING:
            args = node.args
            g = E.Binary("-", args[0], args[1]) if len(args) == 2 else args[0]
            # keyed with the kind: |x| + floor(x) breaks at 0 and at every integer
            found.setdefault((g, node.name in ("floor", "ceil")))
        if isinstance(node, E.Binary) and node.op == "/":
            found.setdefault((node.right, False))
        return None

    for tree in trees:
        E.fold(tree, visit)
    return [(g, stepwise) for g, stepwise in found if E.free_variables(g)]


def _solve_along(g, variables: list[str], axis: int, starts: np.ndarray,
                 levels: np.ndarray) -> np.ndarray:
    """Newton's method on g = level along coordinate ``axis`` from every start (the other
    coordinates fixed): the converged points."""
    x = starts.copy()
    along = [variables[axis]]
    for _ in range(NEWTON_STEPS):
        v, dv = _engine(g, variables, x, along)
        step = (v - levels) / dv
        ok = np.isfinite(step)
        x[ok, axis] -= step[ok]
        x, levels, step = x[ok], levels[ok], step[ok]
        if not len(x) or np.all(np.abs(step) <= 1e-15 * (1 + np.abs(x[:, axis]))):
            break
    v, _ = _engine(g, variables, x, [])
    done = np.isfinite(v) & (np.abs(v - levels) <= 1e-9 * (1 + np.abs(levels)))
    return x[done]


def _bisect_changes(g, stepwise: bool, variables: list[str], points: np.ndarray) -> np.ndarray:
    """With one variable: where ``sign(g)`` (``floor(g)`` when ``stepwise``) changes between
    neighbouring points, the place of the change, by bisection (Newton may miss a root of
    infinite slope, as of cbrt)."""
    if points.shape[1] != 1:
        return np.empty((0, points.shape[1]))

    def side(x):
        v, _ = _engine(g, variables, x.reshape(-1, 1), [])
        return np.floor(v) if stepwise else np.sign(v)

    xs = np.unique(points[:, 0])
    h = side(xs)
    change = np.nonzero((h[1:] != h[:-1]) & np.isfinite(h[1:]) & np.isfinite(h[:-1]))[0]
    lo, hi = xs[change], xs[change + 1]
    left = h[change]
    for _ in range(HALVINGS):
        mid = 0.5 * (lo + hi)
        same = side(mid) == left
        lo, hi = np.where(same, mid, lo), np.where(same, hi, mid)
    return hi.reshape(-1, 1)


def breaking_points(trees, variables: list[str], points: np.ndarray,
                    line: Optional[np.ndarray] = None, axes=None) -> np.ndarray:
    """(n, width) points where a piecewise part of ``trees`` breaks (``breaking_arguments``),
    each once: Newton's method along each of ``axes`` (every coordinate by default) from the
    sample ``points`` and, with one variable, every change of side between neighbouring points
    of the dense ``line`` (bisected). ``TooManyBreakpoints`` past ``MAX_BREAKPOINTS``."""
    width = len(variables)
    roots = [np.empty((0, width))]
    scan = points if line is None else np.concatenate([points, line])
    for g, stepwise in breaking_arguments(*trees):
        v, _ = _engine(g, variables, points, [])
        finite = np.isfinite(v)
        starts, v = points[finite], v[finite]
        levels = [np.floor(v), np.floor(v) + 1] if stepwise else [np.zeros_like(v)]
        for axis in range(width) if axes is None else axes:
            for level in levels:
                roots.append(_solve_along(g, variables, axis, starts, level))
        roots.append(_bisect_changes(g, stepwise, variables, scan))
    found = np.concatenate(roots)
    found = found[np.all(np.isfinite(found), axis=1)]
    if not len(found):
        return found
    found = np.unique(np.round(found, 12), axis=0)
    if len(found) > MAX_BREAKPOINTS:
        raise TooManyBreakpoints(len(found))
    return found


def breakpoints(exercise: Exercise, points: np.ndarray,
                line: Optional[np.ndarray] = None) -> np.ndarray:
    """Where a piecewise part of EXPR or ANSWER breaks (``breaking_arguments``): Newton's
    method from the sample ``points`` and, with one variable, every change of side between
    neighbouring points of the dense ``line`` (bisected). Returns points on both sides of every
    one found at three distances, and midway between neighbouring ones (one variable): a
    difference that lives on a narrow interval is then sampled. None is left out;
    ``TooManyBreakpoints`` when there are more than ``MAX_BREAKPOINTS``."""
    variables = exercise.variables
    width = len(variables)
    found = breaking_points((exercise.tree, exercise.answer), variables, points, line)
    if not len(found):
        return np.empty((0, width))
    out = [np.empty((0, width))]
    if width == 1:
        xs = np.sort(found[:, 0])
        out.append((0.5 * (xs[1:] + xs[:-1])).reshape(-1, 1))
    for k in (3, 6, 9):
        for axis in range(width):
            step = 10.0 ** -k * (1 + np.abs(found[:, axis]))
            for direction in (1.0, -1.0):
                q = found.copy()
                q[:, axis] += direction * step
                out.append(q)
    return np.concatenate(out)


# --------------------------------------------------------------------------- the verdict

#: the most digits added to a high-precision evaluation for a function much larger than
#: the two sides compared
MAX_EXTRA_DIGITS = 160


class Evidence:
    """High-precision findings at sample points."""

    def __init__(self, exercise: Exercise):
        from ..expr import highprec as H

        self.H = H
        self.exercise = exercise
        self.f = H.compile_tree(exercise.tree, exercise.variables)
        self.a = H.compile_tree(exercise.answer, exercise.variables)
        self.agree: list[tuple] = []
        self.defined: list[tuple] = []     # float points where every side is defined
        self.counterexample: Optional[dict] = None
        self.gap: Optional[str] = None     # derivative - answer there, in a few digits
        #: a point where the derivative is defined and the answer is not (None: no such)
        self.answer_missing: Optional[dict] = None
        #: (points, float derivative there) where every side is defined
        self.derivative_values = (np.empty((0, len(exercise.variables))), np.empty(0))
        #: where the sides could be compared when not on the whole line (``compared_part``)
        self.compared: Optional[str] = None
        #: why nothing can be compared at all (the function is real nowhere), or None
        self.nowhere: Optional[str] = None

    def digits(self, point, answer) -> int:
        """The precision at ``point``: 40 digits more as many as f is larger than the answer
        (x^2 + 10^40 against 2x + 1000: the derivative must be taken out of f's digits, and
        the agreement is measured on the size of the two sides, not of f)."""
        H = self.H
        f = H.value_at(self.f, point)
        if f is None:
            return H.DIGITS
        mp = H.mpmath()
        extra = mp.log10(abs(f) + 1) - mp.log10(abs(answer) + 1)
        return H.DIGITS + int(min(MAX_EXTRA_DIGITS, max(0, mp.ceil(extra))))

    def examine(self, point) -> None:
        """Record whether the answer agrees at ``point`` (a float tuple); stop at the first
        confirmed difference. Agreement needs one central estimate of the derivative; a
        difference is trusted only after the differentiability probes. Both are judged on the
        scale of the derivative and the answer."""
        H = self.H
        p = H.at(point)
        a = H.value_at(self.a, p)
        if a is None:
            return
        digits = self.digits(p, a)
        if digits > H.DIGITS:
            a = H.value_at(self.a, p, digits)
        orders = self.exercise.orders
        d = H.derivative_at(self.f, p, orders, probe=False, digits=digits)
        if d is not None and H.agree(d, a, 0, min(digits, H.DIGITS)):
            self.agree.append(tuple(point))
            return
        d = H.derivative_at(self.f, p, orders, digits=digits)
        if d is None:
            return
        # a gap is trusted only when it is the same at twice the digits: a tiny one may be
        # rounding, a large one noise where 40 digits are not enough for the arguments
        with H.mpmath().workdps(digits):
            gap = d - a
        real = H.difference_persists(self.f, self.a, p, orders, gap, 0, 2 * digits)
        if real:
            self.counterexample = {"at": dict(zip(self.exercise.variables, map(float, point))),
                                   "answer": float(a), "expected": float(d)}
            self.gap = H.shown(abs(gap))
        elif real is False:
            self.agree.append(tuple(point))

    def real_somewhere(self, points: np.ndarray) -> bool:
        """Is f, and its derivative, real at one of ``points`` in high precision (where floats
        overflowed or failed)?"""
        H = self.H
        orders = self.exercise.orders
        for point in points:
            p = H.at(point)
            if H.value_at(self.f, p) is not None and \
                    H.derivative_at(self.f, p, orders, probe=False) is not None:
                return True
        return False


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


#: float disagreements examined first in sample order (round numbers, readable), the rest of
#: ``CANDIDATES`` by the size of the gap relative to the two sides
ROUND_SUSPECTS = 8
#: points times expression nodes of the dense scan, at most
LINE_WORK = 20_000_000
#: points tried in high precision when f is real at no float point
NOWHERE_CHECKS = 24


def numeric_evidence(exercise: Exercise) -> Evidence:
    """Steps 1 and 2 of the module docstring."""
    width = len(exercise.variables)
    sample = candidate_points(width)
    line = dense_points(width)
    # a very large expression (a sum of 3000 terms) gets a thinner scan: its cost is points
    # times nodes
    nodes = len(E.postorder(exercise.tree)) + len(E.postorder(exercise.answer))
    if nodes * len(line) > LINE_WORK:
        line = line[np.linspace(0, len(line) - 1, max(2000, LINE_WORK // nodes)).astype(int)]
    points = np.concatenate([sample, line])
    evidence = Evidence(exercise)
    with np.errstate(all="ignore"):
        values = _engine_values(exercise, points)
        first_extra = len(points)
        try:
            found = breakpoints(exercise, sample, line)
        except TooManyBreakpoints as many:
            raise CLIError(f"undecided: the two sides break (abs, floor, sign, max...) at more "
                           f"than {MAX_BREAKPOINTS:,} places ({many.args[0]:,} found), too many "
                           f"to sample on both sides", UNDECIDED) from None
        for more in (_edge_points(exercise, points, values), found):
            if len(more):
                points = np.concatenate([points, more])
                values = np.concatenate([values, _engine_values(exercise, more)], axis=1)
        f, d, a = values
        valid = np.isfinite(f) & np.isfinite(d) & np.isfinite(a)
        size = np.maximum(np.abs(d), np.abs(a))
        gap = np.abs(d - a)
        apart = gap > 1e-7 * size + 1e-12
    on_line = slice(len(sample), first_extra)
    # for the part of the line compared, an overflow (2^x past x = 1024) is real, only large
    real = ~np.isnan(f) & ~np.isnan(d) & ~np.isnan(a)
    tried = sample[_spread(np.arange(len(sample)), sample, NOWHERE_CHECKS)]
    if not np.any(np.isfinite(f) & np.isfinite(d)) and not evidence.real_somewhere(tried):
        evidence.nowhere = (f"the expression, or its derivative, is not a real number at any "
                            f"of the {len(points):,} points tried (every magnitude from 1e-6 "
                            f"to 1e7, both signs), so there is nothing to compare the answer "
                            f"with")
        return evidence
    evidence.compared = compared_part(exercise, points[on_line], real[on_line])
    evidence.defined = [tuple(p) for p in points[np.nonzero(valid)[0][:12]]]
    answer_missing = np.nonzero(np.isfinite(f) & np.isfinite(d) & ~np.isfinite(a))[0]
    if len(answer_missing):
        evidence.answer_missing = dict(zip(exercise.variables,
                                           map(float, points[answer_missing[0]])))
    # the derivative shown is checked at the sample (the dense scan passes close to poles,
    # where float values of equal functions part), the dense scan only where it must
    shown_at = np.nonzero(valid)[0]
    if np.count_nonzero(shown_at < len(sample)) >= ENOUGH:
        shown_at = shown_at[shown_at < len(sample)]
    evidence.derivative_values = (points[shown_at], d[shown_at])
    flagged = np.nonzero(valid & apart)[0]
    first = [int(i) for i in flagged[flagged < len(sample)][:ROUND_SUSPECTS]]
    rest = flagged[~np.isin(flagged, first)]
    with np.errstate(all="ignore"):
        relative = gap[rest] / (size[rest] + 1e-300)
    worst = rest[np.argsort(-relative, kind="stable")][:CANDIDATES - len(first)]
    agreeing = np.nonzero(valid & ~apart)[0]
    sampled = agreeing[agreeing < len(sample)]
    beside = agreeing[agreeing >= first_extra]
    if len(beside) > BREAK_CHECKS:
        beside = beside[np.linspace(0, len(beside) - 1, BREAK_CHECKS).round().astype(int)]
    lined = agreeing[(agreeing >= len(sample)) & (agreeing < first_extra)]
    # the dense line fills in where few of the sample points are in the domain
    checks = _spread(sampled, points, SAMPLED) + \
        _spread(lined, points, max(SAMPLED // 4, SAMPLED - len(sampled)))
    for i in first + list(worst) + checks + list(beside):
        evidence.examine(tuple(points[i]))
        if evidence.counterexample:
            break
    return evidence


def _verdict(exercise: Exercise, timeout: float) -> Verdict:
    """The numbers first: a confirmed counterexample is ``wrong`` and agreement at ``ENOUGH``
    points ``correct``, without waiting for SymPy; the right derivative is shown from
    ``treediff`` and the mistake named on tape's own trees. SymPy then only shows a derivative
    ``treediff`` has no rule for, and names the mistake there (and proves the agreement on the
    way when expanding does). Only when the numbers
    are not decisive does the verdict wait for SymPy's proof."""
    evidence = numeric_evidence(exercise)
    if evidence.nowhere:
        raise CLIError(f"undecided: {evidence.nowhere}", UNDECIDED)
    verdict = _decide(exercise, evidence, timeout)
    verdict.compared_on = evidence.compared
    return verdict


def _decide(exercise: Exercise, evidence: Evidence, timeout: float) -> Verdict:
    args = (exercise.tree, exercise.answer, exercise.variables, exercise.along)
    agree = len(evidence.agree)
    polish = time.monotonic() + min(timeout, POLISH)
    if evidence.counterexample:
        points = [tuple(evidence.counterexample["at"].values())] + evidence.defined[:8]
        expected = _plain_derivative(exercise, evidence)
        if expected is not None:
            diagnosis = _diagnosed(polish, *args, points)
        else:
            found = optional_work(polish, _shown_and_diagnosed, *args, points)
            expected, diagnosis = found or (_raw_in_time(args), None)
        # a slip of a rule is the likelier story; failing one, another order's derivative
        diagnosis = diagnosis or _wrong_order(exercise, evidence, points)
        return Verdict(False, "numeric", expected, evidence.counterexample, agree,
                        diagnosis=diagnosis, gap=evidence.gap)
    if agree >= ENOUGH:
        expected = _plain_derivative(exercise, evidence)
        if expected is not None:
            return Verdict(True, "numeric", expected, valid_points=agree)
        found = optional_work(polish, _shown_and_expanded, *args)
        expected, proved = found or (_raw_in_time(args), False)
        return Verdict(True, "symbolic" if proved else "numeric", expected, valid_points=agree)
    hint = None
    if evidence.answer_missing:
        at = ", ".join(f"{k} = {v!r}" for k, v in evidence.answer_missing.items())
        hint = f"the answer is not a real number where the derivative is, e.g. at {at}"
    return settle(agree, WHERE, _difference_is_zero, args,
                  (_tidy_derivative, _raw_derivative), timeout, hint=hint)


def _diagnosed(deadline: float, tree, answer_tree, variables, along, points):
    """The diagnosis of a wrong answer by ``deadline``: on tape's own trees in this process,
    or, when a function has no rule there, by SymPy in a child; None when none is found in
    time or it fails (the verdict never depends on it)."""
    from ..calculus.rules import NoRule
    from .diagnosis import diagnose, diagnose_symbolic

    args = (tree, answer_tree, variables, along, points)
    try:
        return diagnose(*args, deadline=deadline)
    except NoRule:
        return optional_work(deadline, diagnose_symbolic, *args)
    except Exception:  # noqa: BLE001  (optional: a failure is no diagnosis)
        return None


_ORDINALS = ["function itself", "first derivative", "second derivative", "third derivative"]


def _ordinal(k: int) -> str:
    return _ORDINALS[k] if k < len(_ORDINALS) else f"derivative of order {k}"


def _wrong_order(exercise: Exercise, evidence: Evidence, points: list) -> Optional[dict]:
    """The ``wrong order`` diagnosis: with one variable differentiated n times, the answer is
    the function or its derivative of another order (n - 1, n + 1, ...), equal to it in high
    precision at the counterexample and at the points where it was checked; else None."""
    H = evidence.H
    along = exercise.along
    if len(set(along)) != 1:
        return None
    n, axis = len(along), exercise.variables.index(along[0])
    points = list(dict.fromkeys(tuple(map(float, p)) for p in points))
    for k in (n - 1, n + 1, n - 2, n + 2, 0):
        if k < 0 or k == n or k > n + 2:
            continue
        orders = [k if i == axis else 0 for i in range(len(exercise.variables))]
        matched = 0
        for point in points:
            p = H.at(point)
            a = H.value_at(evidence.a, p)
            d = H.value_at(evidence.f, p) if k == 0 else H.derivative_at(evidence.f, p, orders)
            if a is None or d is None:
                continue
            if H.differ(d, a):
                matched = -1
                break
            matched += 1
        # x^2 and x^(10^10) meet at 0 and 1 only: two points name no order
        if matched >= min(3, len(points)):
            what = _ordinal(k)
            return {"kind": "wrong order",
                    "detail": f"the answer is the {what}, not the {_ordinal(n)}" +
                              ("" if k == 0 else f": {_shown_order(exercise, k)}")}
    return None


def _shown_order(exercise: Exercise, k: int) -> str:
    """``d/dx x^3 = 3*x**2``: the derivative of order k, as treediff writes it."""
    from ..calculus.treediff import derivative
    from ..expr.printer import read_as

    tree = derivative(exercise.shown_tree or exercise.tree, exercise.along[:1] * k)
    name = exercise.along[0]
    label = "d/d" + name if k == 1 else f"d{k}/d{name}{k}"
    return f"{label} = {read_as(tree)}" if tree is not None else label


#: where the agreeing points lie, for the notes
WHERE = "spread over the domain"
#: how closely the derivative shown must match the engine's at the sample points
SHOWN_RTOL = 1e-6


def _plain_derivative(exercise: Exercise, evidence: Evidence) -> Optional[str]:
    """The derivative asked for as text without SymPy (``treediff``), when it has a rule for
    every function and matches the engine's derivative wherever both are defined; else None."""
    from ..expr.printer import read_as
    from ..calculus.treediff import derivative, written_simply

    tree = derivative(exercise.shown_tree or exercise.tree, exercise.along)
    if tree is None:
        return None
    tree = written_simply(tree)     # the form tape diff shows, checked below as shown
    points, d = evidence.derivative_values
    with np.errstate(all="ignore"):
        mine = np.broadcast_to(_engine(tree, exercise.variables, points, [])[0], d.shape)
        both = np.isfinite(mine) & np.isfinite(d)
        off = np.abs(mine - d) > SHOWN_RTOL * np.maximum(np.abs(mine), np.abs(d)) + 1e-9
    if both.sum() < min(ENOUGH, len(d)) or not both.any() or np.any(off & both):
        return None
    return read_as(tree)


def _raw_in_time(args: tuple) -> Optional[str]:
    """The right derivative as differentiated (no tidying), within a second."""
    return optional_work(time.monotonic() + 1.0, _raw_derivative, *args)


# --------------------------------------------------------------------------- SymPy (in a child)

def sympy_sides(tree, answer_tree, variables, along):
    """f, its derivative along ``along``, the answer (SymPy) and the symbols."""
    from ..expr import symbolic as S

    sizes = {n: None for n in variables}
    f = S.as_scalar(S.to_sympy(tree, sizes))
    a = S.as_scalar(S.to_sympy(answer_tree, sizes))
    return f, S.derivative(f, [S.symbol(n) for n in along]), a


def _raw_derivative(tree, answer_tree, variables, along):
    from ..expr import symbolic as S

    return S.render(sympy_sides(tree, answer_tree, variables, along)[1])


def _tidy_derivative(tree, answer_tree, variables, along):
    from ..expr import symbolic as S

    return S.render(S.tidy(sympy_sides(tree, answer_tree, variables, along)[1]))


def _shown_and_diagnosed(tree, answer_tree, variables, along, points):
    """For a wrong answer, in one child: the right derivative (tidy) and the diagnosis (None
    when it fails: it never costs the derivative)."""
    from ..calculus.rules import NoRule
    from .diagnosis import diagnose, diagnose_symbolic

    expected = _tidy_derivative(tree, answer_tree, variables, along)
    try:
        try:
            found = diagnose(tree, answer_tree, variables, along, points)
        except NoRule:
            found = diagnose_symbolic(tree, answer_tree, variables, along, points)
    except Exception:  # noqa: BLE001  (optional: a failure is no diagnosis)
        found = None
    return expected, found


def _shown_and_expanded(tree, answer_tree, variables, along):
    """For an answer the numbers accept, in one child: the right derivative (tidy), and
    whether the cheap rewritings of ``_quickly_zero`` prove the difference 0."""
    from ..expr import symbolic as S

    _, d, a = sympy_sides(tree, answer_tree, variables, along)
    return S.render(S.tidy(d)), _quickly_zero(S._drop_deltas(d - a))


def _quickly_zero(difference) -> bool:
    """Does expanding, or rewriting in exponentials and cancelling, give 0?"""
    from ..expr import symbolic as S

    sp = S.sympy()
    for quick in (sp.expand, lambda e: sp.cancel(sp.expand(e.rewrite(sp.exp)))):
        try:
            if quick(difference) == 0:
                return True
        except (TypeError, ValueError, AttributeError):
            pass
    return False


def _difference_is_zero(tree, answer_tree, variables, along):
    """True when SymPy proves derivative - answer == 0 (cheap rewritings first, then
    ``simplify``), False when it proves it is not, else None."""
    from ..expr import symbolic as S

    _, d, a = sympy_sides(tree, answer_tree, variables, along)
    difference = S._drop_deltas(d - a)
    return True if _quickly_zero(difference) else S.is_zero(difference)
