"""Is F an antiderivative of f, up to a constant? (``tape check --antiderivative``, SPEC section 10)

The question is the derivative check turned round: F is an antiderivative of f exactly when f
is the derivative of F. So the answer, its constant of integration taken off, is handed to
``homework.check`` as the function and the integrand as the proposed derivative: the same
numbers in high precision decide, the same counterexamples are confirmed, and the derivative of
the answer that ``tape diff`` prints is the evidence shown. What changes is the wording (the
counterexample compares the answer's derivative with the integrand) and what is said besides:

* ``+ C``: a single letter standing alone as a term of the answer (``C`` or ``c``, or the letter
  ``--constant`` names) is the constant of integration and is taken off; without one a right
  answer is still ``correct``, with a note;
* ``ln x`` for ``1/x``: where the integrand is defined and the answer is not, the note says so,
  and says ``ln|u|`` when the answer with every ``ln u`` made ``ln|u|`` holds there too;
* the diagnosis of a wrong answer names a classic mistake only when that mistake, made on this
  integrand, gives the answer (up to a constant): the answer's derivative a constant times
  the integrand (``chain rule``: the 1/a of a linear inner function left out; ``sign``;
  ``power rule``: the division by n + 1; ``constant factor`` otherwise), the answer the
  product of the factors' integrals (``product rule``), the answer the integrand's
  derivative (``derivative``), a term of the integrand not integrated (``missing term``), or
  the power rule's u^(n+1)/(n+1) written for n = -1 (a division by zero).
"""
from __future__ import annotations

import time
from typing import Optional

import numpy as np

from ..expr import tree as E
from ..expr.errors import CLIError
from .verdict import POLISH, AnswerNameError, Verdict, optional_work

#: the letters taken as the constant of integration without --constant
CONSTANTS = ("C", "c")
#: points where the answer's derivative and the integrand are compared for a diagnosis and
#: where the integrand is looked for outside the answer's domain (both signs, away from 0)
PROBES = [0.5, 1.5, 2.0, 0.3, 3.0, 0.7, 1.2, 2.5, -0.5, -1.5, -2.0, -0.3, -3.0, -0.7, -1.2,
          -2.5, 5.0, -5.0, 0.1, -0.1]
#: relative agreement of a mistaken antiderivative with the answer
RTOL = 1e-9


def check_antiderivative(homework, expression: str, answer: str, *, wrt: Optional[str] = None,
                         order: int = 1, implicit: bool = False, antiderivative: bool = True,
                         constant: Optional[str] = None, timeout: float = 10.0) -> Verdict:
    """``homework.check(expression, answer, antiderivative=True)``: see the module docstring.
    ``homework`` is the derivative check's module, which hands itself over (its ``check``,
    its numbers and its breakpoint search are used here; importing it would be a cycle);
    ``expression`` is the integrand, ``answer`` the proposed antiderivative, ``wrt`` the
    variable of integration (needed when the integrand has several names)."""
    if not antiderivative:
        raise CLIError("--constant names the constant of integration of an antiderivative; "
                       "add --antiderivative")
    if implicit:
        raise CLIError("--antiderivative takes a function, not an --implicit equation")
    if order != 1:
        raise CLIError("--antiderivative checks one integration; leave out --order")
    if constant is not None:
        constant = constant.strip()
        if len(constant) != 1 or not constant.isalpha():
            raise CLIError(f"--constant: {constant!r} is not a single letter")
    if wrt is not None and "," in wrt:
        raise CLIError(f"--wrt {wrt}: an antiderivative is taken along one variable")
    problem = _problem(expression, answer, wrt, constant, tell=True)
    integrand, given, body, names, variable, letter, found, function, read_as = (
        problem.integrand, problem.given, problem.body, problem.names, problem.variable,
        problem.letter, problem.found, problem.function, problem.read_as)
    reading_notes = [*integrand.notes, *(f"--answer: {n}" for n in given.notes)]
    if _nowhere_defined(body, names):
        return _undefined_answer(integrand, given, body, names, variable, expression, answer,
                                 read_as, reading_notes, letter if found else None)
    inner = homework.check(function, _text(integrand.tree), wrt=variable, timeout=timeout)
    verdict = Verdict(inner.correct, inner.method, None, _swapped(inner.counterexample),
                      inner.valid_points, note=inner.note, gap=inner.gap,
                      label=f"∫ d{variable}", read_as=read_as, expression=expression,
                      answer=answer, wrt=variable, variables=names, reason=_reworded(inner.reason))
    notes = []
    jump = None if inner.correct is False else jump_inside(homework, body, integrand.tree,
                                                            names, variable)
    if jump is not None:
        # F' = f wherever F is differentiable says nothing of a step: floor(x) has slope 0
        verdict.correct, verdict.reason, verdict.method = False, None, "numeric"
        verdict.diagnosis = jump
    elif inner.correct:
        notes += _domain_notes(body, integrand.tree, names, variable)
        shown = letter if found else _free_letter(names)
        if not found:
            notes.append(f"no constant of integration: the antiderivatives are "
                         f"{_text(body)} + {shown}")
        verdict.expected = f"{_text(body)} + {shown}"
    elif inner.correct is False:
        points = _points(inner.counterexample, names)
        verdict.diagnosis = diagnose(integrand.tree, body, names, variable, points)
        if verdict.diagnosis is None:
            # SymPy only when the numbers name no mistake: a product of integrals needs the
            # factors' integrals, and an answer no rule explains is shown a right one
            polish = time.monotonic() + min(timeout, POLISH)
            integral, products = optional_work(polish, _integrated, integrand.tree, names,
                                               variable, points) or (None, [])
            verdict.expected = integral
            if products:
                verdict.diagnosis = diagnose(integrand.tree, body, names, variable, points,
                                             products)
    extra = {"kind": "antiderivative", "constant": letter if found else None,
             "derivative": inner.expected, "notes": notes}
    if verdict.correct is not None:
        verdict = homework.under_every_reading(
            verdict, {"expression": expression, "answer": answer},
            {"expression": tuple(integrand.notes), "answer": tuple(given.notes)}, read_as,
            lambda texts: _numbers_say(homework, texts["expression"], texts["answer"], wrt,
                                       constant))
        if verdict.ambiguous:
            verdict.label, verdict.read_as, verdict.wrt = f"∫ d{variable}", read_as, variable
            verdict.expression, verdict.answer, verdict.variables = expression, answer, names
            extra["notes"] = notes = []
    verdict.notes = reading_notes + notes
    verdict.extra = extra
    return verdict


class _Problem:
    """An antiderivative question as read: the integrand and the answer (``Reading``s), the
    variable of integration and every name, the constant's letter, the answer without it
    (``body``, and ``function``: its text with a ``0*name`` for a name it lacks) and how the
    texts were read."""

    def __init__(self, **fields):
        self.__dict__.update(fields)


def _problem(expression: str, answer: str, wrt: Optional[str], constant: Optional[str],
             tell: bool = False) -> _Problem:
    """Read an antiderivative question (``tell``: say the reading notes); a name the answer
    has and the integrand has not, or a constant that does not stand alone, is a
    ``CLIError``."""
    from ..expr import notes as N
    from ..expr.parse import read

    declared = [n for n in (wrt, constant) if n]
    integrand = read(expression, names=declared)
    if tell:
        N.tell(integrand.notes)
    given = read(answer, names=[*integrand.variables, *declared], label="--answer")
    if tell:
        N.tell(given.notes, "--answer")
    variable = _variable(wrt, integrand.variables, given.variables, constant)
    names = list(dict.fromkeys([variable, *integrand.variables]))
    letter, body, found = _constant_of(given.tree, constant, names)
    for other in [letter] if constant else [c for c in CONSTANTS if c not in names]:
        if other and other in E.free_variables(body):
            raise CLIError(f"--answer: the constant of integration {other} must stand alone "
                           f"as a term (... + {other})")
    extra = [n for n in E.free_variables(body) if n not in names]
    if extra:
        raise AnswerNameError(_stray_names(extra, names, letter), extra, names)
    missing = [n for n in names if n not in E.free_variables(body)]
    function = _text(body) + "".join(f" + 0*{n}" for n in missing)   # F' along it is 0
    return _Problem(integrand=integrand, given=given, variable=variable, names=names,
                    letter=letter, body=body, found=found, function=function,
                    read_as={"expression": integrand.read_as, "answer": given.read_as})


def _numbers_say(homework, expression: str, answer: str, wrt: Optional[str],
                 constant: Optional[str]) -> tuple:
    """``(read_as, correct)`` of an antiderivative question by the numbers alone (for another
    reading of the texts): False with a counterexample or a step, True with agreement."""
    problem = _problem(expression, answer, wrt, constant)
    if _nowhere_defined(problem.body, problem.names):
        return problem.read_as, None
    exercise = homework._exercise(problem.function, _text(problem.integrand.tree),
                                  problem.variable, 1)
    correct = homework._numbers_say(exercise)
    if correct is not False and jump_inside(homework, problem.body, problem.integrand.tree,
                                            problem.names, problem.variable):
        correct = False
    return problem.read_as, correct


def _text(tree) -> str:
    from ..expr.printer import read_as

    return read_as(tree)


def _variable(wrt, integrand_names, answer_names, constant) -> str:
    """The variable of integration: ``--wrt``, else the integrand's one name, else the
    answer's one name that is not a constant letter."""
    from ..expr.parse import normalize

    if wrt:
        return normalize(wrt.strip())
    if len(integrand_names) == 1:
        return integrand_names[0]
    if len(integrand_names) > 1:
        raise CLIError(f"the integrand has several variables ({', '.join(integrand_names)}): "
                       f"say which one to integrate along with --wrt")
    rest = [n for n in answer_names if n != constant and n not in CONSTANTS]
    if len(rest) == 1:
        return rest[0]
    raise CLIError("the integrand has no variable: say which one to integrate along with --wrt")


def _terms(tree) -> list[tuple[int, object]]:
    """The top-level terms of a sum as (sign, term)."""
    out, stack = [], [(1, tree)]
    while stack:
        sign, node = stack.pop()
        if isinstance(node, E.Binary) and node.op in "+-":
            stack.append((sign if node.op == "+" else -sign, node.right))
            stack.append((sign, node.left))
        elif isinstance(node, E.Unary) and node.op == "-" and \
                isinstance(node.operand, E.Binary) and node.operand.op in "+-":
            stack.append((-sign, node.operand))
        else:
            out.append((sign, node))
    return out


def _is_letter(node, letter) -> bool:
    if isinstance(node, E.Unary) and node.op in "+-":
        node = node.operand
    return isinstance(node, E.Variable) and node.name == letter


#: letters that may name the constant of integration in a note, when C is a parameter
SPARE_CONSTANTS = ("C", "c", "K", "k", "A", "D")


def _free_letter(names) -> str:
    """A letter for the constant of integration that is not a name of the integrand (a
    parameter C makes it c: never "... + C + C")."""
    return next(c for c in SPARE_CONSTANTS + tuple(f"C{k}" for k in range(1, len(names) + 2))
                if c not in names)


def _constant_of(tree, constant: Optional[str], names: list[str]):
    """``(letter, body, found)``: the constant of integration's letter, the answer without it,
    and whether the answer had it. The letter is ``constant`` when given, else whichever of
    ``CONSTANTS`` (C or c) that is not a name of the integrand stands alone in the answer;
    None when both are names."""
    if constant is not None:
        return (constant, *_without_constant(tree, constant))
    free = [c for c in CONSTANTS if c not in names]
    for letter in free:
        body, found = _without_constant(tree, letter)
        if found:
            return letter, body, True
    return (free[0] if free else None), tree, False


def _without_constant(tree, letter) -> tuple[object, bool]:
    """The answer without its standing-alone constant terms, and whether there was one."""
    if letter is None:
        return tree, False
    terms = _terms(tree)
    kept = [(s, t) for s, t in terms if not _is_letter(t, letter)]
    if len(kept) == len(terms):
        return tree, False
    if not kept:
        return E.Number(0.0), True
    body = kept[0][1] if kept[0][0] > 0 else E.Unary("-", kept[0][1])
    for sign, term in kept[1:]:
        body = E.Binary("+" if sign > 0 else "-", body, term)
    return body, True


def _stray_names(extra, names, letter) -> str:
    listed = ", ".join(map(repr, extra))
    verb = "is" if len(extra) == 1 else "are"
    text = (f"the answer uses {listed}, which {verb} not in the integrand (its variables: "
            f"{', '.join(names)})")
    if len(extra) == 1 and len(extra[0]) == 1:
        text += (f"; a constant of integration stands alone as a term (+ C or + c); another "
                 f"letter: --constant {extra[0]}")
    return text


def _swapped(c: Optional[dict]) -> Optional[dict]:
    """The derivative check's counterexample in the antiderivative's terms: ``answer`` is the
    derivative of the answer there, ``expected`` the integrand."""
    if not c:
        return c
    return {"at": c["at"], "answer": c["expected"], "expected": c["answer"]}


def _reworded(reason: Optional[str]) -> Optional[str]:
    if not reason:
        return reason
    return reason.replace("the answer is not a real number where the derivative is",
                          "the integrand is not a real number where the answer's "
                          "derivative is")


def _points(counterexample: Optional[dict], names: list[str]) -> list[tuple]:
    first = [tuple(counterexample["at"][n] for n in names)] if counterexample else []
    rest = [tuple([p] + [1.0 + 0.25 * k for k in range(1, len(names))]) for p in PROBES]
    return first + rest


# --------------------------------------------------------------------------- numbers

def _values(tree, names, points):
    from ..expr import highprec as H

    fn = H.compile_tree(tree, names)
    return [H.value_at(fn, H.at(p)) for p in points]


def _slopes(tree, names, variable, points):
    from ..expr import highprec as H

    fn = H.compile_tree(tree, names)
    orders = [1 if n == variable else 0 for n in names]
    return [H.derivative_at(fn, H.at(p), orders) for p in points]


def _nowhere_defined(body, names) -> bool:
    points = [tuple([p] + [1.0 + 0.25 * k for k in range(1, len(names))]) for p in PROBES]
    return all(v is None for v in _values(body, names, points))


def _undefined_answer(integrand, given, body, names, variable, expression, answer, read_as,
                      notes, letter) -> Verdict:
    """An answer that is a number nowhere (it divides by 0): ``wrong`` when it is the power
    rule written for n = -1, else undecided."""
    diagnosis = _power_rule_at_minus_one(integrand.tree, body, variable)
    common = dict(read_as=read_as, expression=expression, answer=answer, wrt=variable,
                  variables=names, notes=notes, label=f"∫ d{variable}")
    if diagnosis:
        verdict = Verdict(False, "numeric", None, diagnosis=diagnosis, **common)
    else:
        verdict = Verdict(None, "numeric", None, reason="the answer is not a real number at "
                          "any point checked (does it divide by 0?)", **common)
    verdict.extra = {"kind": "antiderivative", "constant": letter, "derivative": None,
                     "notes": []}
    return verdict


def _power_rule_at_minus_one(integrand, body, variable) -> Optional[dict]:
    """The answer as the integrand's u^(-1) (or 1/u) put through u^(n+1)/(n+1) with n = -1:
    u^0/0, whatever the constant factor in front."""
    def base_of_reciprocal(node):
        if isinstance(node, E.Binary) and node.op == "**" and _number(node.right) == -1:
            return node.left
        if isinstance(node, E.Binary) and node.op == "/" and _number(node.left) is not None:
            return node.right
        return None

    bases = []
    E.fold(integrand, lambda node, kids: bases.append(base_of_reciprocal(node)))
    bases = [b for b in bases if b is not None and variable in E.free_variables(b)]
    divides_by_zero = []

    def visit(node, kids):
        if isinstance(node, E.Binary) and node.op == "/" and _number(node.right) == 0:
            divides_by_zero.append(node)
        if isinstance(node, E.Binary) and node.op == "**" and _number(node.right) == 0:
            divides_by_zero.append(node.left)

    E.fold(body, visit)
    for base in bases:
        if base in divides_by_zero or any(isinstance(n, E.Binary) and n.op == "/" and
                                          _contains(n.left, base) for n in divides_by_zero):
            u = _text(base)
            shown = u if isinstance(base, E.Variable) else f"({u})"
            return {"kind": "power rule",
                    "detail": f"the power rule u^(n+1)/(n+1) does not hold for n = -1 (it "
                              f"divides by 0): the integral of 1/{shown} is "
                              f"ln|{u}| divided by the derivative of {u}"
                              if not isinstance(base, E.Variable) else
                              f"the power rule u^(n+1)/(n+1) does not hold for n = -1 (it "
                              f"divides by 0): the integral of 1/{u} is ln|{u}| + C"}
    return None


def _contains(tree, part) -> bool:
    found = []
    E.fold(tree, lambda node, kids: found.append(node == part))
    return any(found)


def _number(node) -> Optional[float]:
    """The value of a tree of numbers only (``-1``, ``1/2``), else None."""
    from ..calculus.treediff import exact_value

    value = exact_value(node)
    return None if value is None else float(value)


def _domain_notes(body, integrand, names, variable) -> list[str]:
    """Where the integrand is defined and the (right) answer is not: say so, and say ln|u|
    when that is what the answer misses."""
    points = [tuple([p] + [1.0 + 0.25 * k for k in range(1, len(names))]) for p in PROBES]
    f = _values(integrand, names, points)
    F = _values(body, names, points)
    outside = [p for p, a, b in zip(points, f, F) if a is not None and b is None]
    if not outside:
        return []
    logs = []
    E.fold(body, lambda node, kids: logs.append(node) if isinstance(node, E.Call) and
           node.name in ("log", "ln") and len(node.args) == 1 else None)
    if logs:
        with_abs = E.fold(body, _abs_logs)
        slopes = _slopes(with_abs, names, variable, outside)
        wanted = _values(integrand, names, outside)
        if all(s is not None and _close(s, w) for s, w in zip(slopes, wanted)):
            inside = ", ".join(f"ln|{_text(n.args[0])}|" for n in dict.fromkeys(logs))
            return [f"ln|u| holds on both sides of 0: with {inside} the answer is an "
                    f"antiderivative wherever the integrand is defined; as written, only "
                    f"where the logarithm's argument is positive"]
    at = ", ".join(f"{n} = {v!r}" for n, v in zip(names, outside[0]))
    return [f"the answer is an antiderivative only where it is defined: the integrand is "
            f"defined at {at} and the answer is not"]


def _abs_logs(node, kids):
    rebuilt = E.rebuild(node, kids)
    if isinstance(rebuilt, E.Call) and rebuilt.name in ("log", "ln") and len(rebuilt.args) == 1:
        return E.Call(rebuilt.name, (E.Call("abs", (rebuilt.args[0],)),))
    return rebuilt


def _close(a, b) -> bool:
    return abs(a - b) <= RTOL * max(abs(a), abs(b), 1)


# --------------------------------------------------------------------------- steps

#: the distances 10**-k (times 1 + |x|) either side of a breakpoint at which a jump of the
#: answer and the behaviour of the integrand are looked at
JUMP_STEPS = (3, 4, 5, 6, 7, 8)
#: a jump counted: larger than this share of the answer's size (plus the integrand's
#: increase across the step), and the same at 10^-6 and 10^-8
JUMP_RTOL = 1e-7
#: one-sided convergence of the integrand: its change over the last decade at most this share
#: of its change over the first (a smooth integrand: 1e-4; a pole or a logarithm grows)
SETTLES = 1e-2


def jump_inside(homework, body, integrand, names: list[str], variable: str) -> Optional[dict]:
    """``{"kind": "jump", "detail", "at", "left", "right"}`` for a step of the answer ``body``
    (floor, ceil, sign, a quotient such as |u|/u) inside an interval where the integrand is
    defined, else None. An antiderivative is continuous on each interval of the integrand's
    domain: ``tan x + floor(x/pi + 1/2)`` for sec^2 x steps only where sec^2 x is not
    defined, ``x^2/2 + floor(x)`` for x steps at every integer.

    Candidates are the places where a piecewise part of the answer breaks (found as for the
    derivative check: ``homework.breaking_points``). At each, in floats: the integrand must be
    finite at the place and on both sides at every distance of ``JUMP_STEPS``, and settle on
    each side (``SETTLES``), so that the place is inside its domain and not at a pole, a
    logarithm's end or an end of the domain; the answer's change across the place must be the
    same at 10^-6 and 10^-8 and beyond what the integrand's values account for. The jump
    nearest 0 is confirmed in high precision (40 digits) before it is reported."""
    if not homework.breaking_arguments(body):
        return None
    width = len(names)
    axis = names.index(variable)
    sample = homework.candidate_points(width)
    try:
        with np.errstate(all="ignore"):
            found = homework.breaking_points((body,), names, sample,
                                             homework.dense_points(width), axes=[axis])
    except homework.TooManyBreakpoints:
        return None         # the derivative check has already said undecided
    if not len(found):
        return None
    with np.errstate(all="ignore"):
        suspects = _jumps(body, integrand, names, axis, found)
    H, mp = _highprec()
    for p in suspects[np.argsort(np.abs(suspects[:, axis]), kind="stable")][:JUMP_CONFIRMS]:
        h = 10.0 ** -JUMP_STEPS[-1] * (1 + abs(p[axis]))
        left, right, inside = p.copy(), p.copy(), []
        left[axis] -= h
        right[axis] += h
        F = H.compile_tree(body, names)
        f = H.compile_tree(integrand, names)
        a, b = H.value_at(F, H.at(left)), H.value_at(F, H.at(right))
        inside = [H.value_at(f, H.at(q)) for q in (left, p, right)]
        if a is None or b is None or any(v is None for v in inside):
            continue
        with mp.workdps(H.DIGITS):
            step = b - a
            allowed = JUMP_RTOL * (1 + max(abs(a), abs(b))) + \
                4 * h * max(abs(v) for v in inside)
            if abs(step) <= allowed:
                continue
        def shown(v):
            # the side at 0 is h^2/2 there: as a reader writes it, 0
            return f"{0.0 if abs(v) <= 1e3 * allowed else float(v):.6g}"

        where = ", ".join(f"{n} = {homework._round_edge(v) if n == variable else repr(float(v))}"
                          for n, v in zip(names, p))
        return {"kind": "jump", "at": dict(zip(names, map(float, p))),
                "left": float(a), "right": float(b),
                "detail": f"the answer jumps at {where} (from {shown(a)} to "
                          f"{shown(b)}), where the integrand {_text(integrand)} is "
                          f"defined on both sides: an antiderivative is continuous on each "
                          f"interval of the integrand's domain, so the answer differs from "
                          f"one by more than a constant"}
    return None


#: jumps found in floats that are confirmed in high precision, nearest 0 first
JUMP_CONFIRMS = 4


def _highprec():
    from ..expr import highprec as H

    return H, H.mpmath()


def _jumps(body, integrand, names: list[str], axis: int, found: np.ndarray) -> np.ndarray:
    """The rows of ``found`` where, in floats, the answer steps inside the integrand's domain
    (see ``jump_inside``)."""
    from ..calculus.derivatives import values_at

    def at(tree, shift):
        q = found.copy()
        q[:, axis] += shift
        return values_at(tree, names, q)[0]

    scale = 1 + np.abs(found[:, axis])
    f0 = at(integrand, 0.0)
    inside = np.isfinite(f0)
    sides = {}
    for k in JUMP_STEPS:
        for sign in (-1.0, 1.0):
            f = at(integrand, sign * 10.0 ** -k * scale)
            inside &= np.isfinite(f)
            sides[k, sign] = f
    biggest = np.max(np.abs(np.stack(list(sides.values()) + [f0])), axis=0)
    first, last = JUMP_STEPS[0], JUMP_STEPS[-1]
    for sign in (-1.0, 1.0):
        early = np.abs(sides[first + 1, sign] - sides[first, sign])
        late = np.abs(sides[last, sign] - sides[last - 1, sign])
        inside &= late <= SETTLES * early + 1e-9 * (1 + np.abs(sides[last, sign]))
    steps = {}
    for k in (6, last):
        h = 10.0 ** -k * scale
        below, above = at(body, -h), at(body, h)
        allowed = JUMP_RTOL * (1 + np.maximum(np.abs(below), np.abs(above))) + \
            4 * h * biggest
        steps[k] = (above - below, allowed)
    (wide, wide_allowed), (narrow, allowed) = steps[6], steps[last]
    jumps = inside & np.isfinite(narrow) & np.isfinite(wide) & (np.abs(narrow) > allowed) & \
        (np.abs(wide - narrow) <= 1e-2 * np.abs(narrow) + wide_allowed)
    return found[jumps]


# --------------------------------------------------------------------------- the diagnosis

def diagnose(integrand, body, names, variable, points, products=()) -> Optional[dict]:
    """``{"kind", "detail"}`` for the classic integration mistake that gives the answer
    ``body`` (up to a constant), or None: see the module docstring. ``products`` are the
    values at ``points`` of the product of the integrand's factors' integrals, when SymPy
    found them (``_integrated``)."""
    f = _values(integrand, names, points)
    slopes = _slopes(body, names, variable, points)
    pairs = [(s, w) for s, w in zip(slopes, f) if s is not None and w is not None]
    if len(pairs) < 3:
        return None
    shown = _text(integrand)
    ratio = _constant_ratio(pairs)
    if ratio is not None:
        return _scaled(integrand, ratio, shown, variable)
    F = _values(body, names, points)
    if products and _differ_by_constant(F, products):
        return {"kind": "product rule",
                "detail": f"the integral of a product is not the product of the integrals: "
                          f"the answer is the product of the integrals of the factors of "
                          f"{shown}"}
    derivative = _derivative_tree(integrand, variable)
    if derivative is not None:
        d = _values(derivative, names, points)
        both = [(a, b) for a, b in zip(F, d) if a is not None and b is not None]
        if len(both) >= 3 and all(_close(a, b) for a, b in both):
            return {"kind": "derivative",
                    "detail": f"the answer is the derivative of {shown}, not an "
                              f"antiderivative: differentiated instead of integrated"}
    terms = _terms(integrand)
    for sign, term in terms if len(terms) > 1 else []:
        rest = _values(term, names, points)
        left = [(s, w - sign * r) for s, w, r in zip(slopes, f, rest)
                if s is not None and w is not None and r is not None]
        if len(left) >= 3 and all(_close(s, w) for s, w in left):
            return {"kind": "missing term",
                    "detail": f"the term {_text(term)} of the integrand was not integrated"}
    return None


def _constant_ratio(pairs) -> Optional[float]:
    """k when the answer's derivative is k times the integrand at every point (k != 1)."""
    nonzero = [(s, w) for s, w in pairs if w != 0]
    if len(nonzero) < 3:
        return None
    ratios = [s / w for s, w in nonzero]
    k = ratios[0]
    if k == 0 or not all(_close(r, k) for r in ratios) or _close(k, 1):
        return None
    return float(k)


def _differ_by_constant(F, G) -> bool:
    gaps = [a - b for a, b in zip(F, G) if a is not None and b is not None]
    return len(gaps) >= 3 and all(abs(g - gaps[0]) <= RTOL * max(1, abs(g)) * 1e3
                                  for g in gaps)


def _derivative_tree(tree, variable):
    from ..calculus.treediff import derivative

    return derivative(tree, [variable])


def _linear_coefficients(integrand, variable) -> list[float]:
    """a for every inner function a*x + b of the integrand (the argument of a function, the
    base of a power, the exponent of e or a number), a != 1."""
    from ..calculus.treediff import derivative

    inner = []

    def visit(node, kids):
        if isinstance(node, E.Call):
            inner.extend(node.args)
        elif isinstance(node, E.Binary) and node.op == "**":
            inner.append(node.right if _number(node.left) is not None or
                         isinstance(node.left, E.Constant) else node.left)

    E.fold(integrand, visit)
    found = []
    for u in inner:
        if variable not in E.free_variables(u):
            continue
        du = derivative(u, [variable])
        a = _number(du) if du is not None else None
        if a is not None and a not in (0.0, 1.0) and a not in found:
            found.append(a)
    return found


def _powers(integrand, variable) -> list[float]:
    """n for every power u^n of the integrand whose base has derivative 1 (x, x + 1), and
    -m for 1/x^m."""
    from ..calculus.treediff import derivative

    found = []

    def _slope(u):
        du = derivative(u, [variable]) if variable in E.free_variables(u) else None
        return _number(du) if du is not None else None

    def visit(node, kids):
        if isinstance(node, E.Binary) and node.op == "**" and _slope(node.left) == 1:
            n = _number(node.right)
            if n is not None:
                found.append(n)
        if isinstance(node, E.Binary) and node.op == "/" and _number(node.left) is not None:
            r = node.right
            if isinstance(r, E.Variable) and r.name == variable:
                found.append(-1.0)
            elif isinstance(r, E.Binary) and r.op == "**" and isinstance(r.left, E.Variable) \
                    and r.left.name == variable and _number(r.right) is not None:
                found.append(-_number(r.right))
        return None

    E.fold(integrand, visit)
    if isinstance(integrand, E.Variable) and integrand.name == variable:
        found.append(1.0)
    return found


def _fmt(k: float) -> str:
    from fractions import Fraction

    q = Fraction(k).limit_denominator(1000)
    if abs(float(q) - k) <= 1e-9 * max(1, abs(k)):
        return str(q)
    return f"{k:.6g}"


def _scaled(integrand, k: float, shown: str, variable: str) -> dict:
    """The mistake behind an answer whose derivative is k times the integrand."""
    if _close(k, -1):
        trig = _calls(integrand) & {"sin", "cos", "sinh"}
        why = {"sin": "the integral of sin is -cos (the derivative of cos is -sin)",
               "cos": "the integral of cos is sin (the derivative of sin is cos)",
               "sinh": "the integral of sinh is cosh"}
        detail = "the sign is wrong: the answer's derivative is -(" + shown + ")"
        if trig:
            detail = f"the sign is wrong: {why[sorted(trig)[0]]}"
        return {"kind": "sign", "detail": detail}
    for a in _linear_coefficients(integrand, variable):
        if _close(k, a):
            return {"kind": "chain rule",
                    "detail": f"the 1/{_fmt(a)} of the chain rule is missing: an inner "
                              f"function with derivative {_fmt(a)} means dividing by "
                              f"{_fmt(a)}"}
        if _close(k, a * a):
            return {"kind": "chain rule",
                    "detail": f"multiplied by {_fmt(a)} instead of dividing by it: an inner "
                              f"function with derivative {_fmt(a)} means dividing by "
                              f"{_fmt(a)}"}
    for n in _powers(integrand, variable):
        if n != -1 and _close(k, n + 1):
            return {"kind": "power rule",
                    "detail": f"the power rule divides by n + 1: the integral of "
                              f"{variable}^{_fmt(n)} is {variable}^{_fmt(n + 1)}/{_fmt(n + 1)}"}
        if n not in (0, -1) and _close(k, (n + 1) / n):
            return {"kind": "power rule",
                    "detail": f"divided by n = {_fmt(n)} instead of n + 1 = {_fmt(n + 1)}: "
                              f"the integral of {variable}^{_fmt(n)} is "
                              f"{variable}^{_fmt(n + 1)}/{_fmt(n + 1)}"}
    return {"kind": "constant factor",
            "detail": f"the answer's derivative is {_fmt(k)} times the integrand {shown}: "
                      f"divide the answer by {_fmt(k)}"}


def _calls(tree) -> set:
    names = set()
    E.fold(tree, lambda node, kids: names.add(node.name) if isinstance(node, E.Call) else None)
    return names


# --------------------------------------------------------------------------- SymPy (in a child)

def _integrated(integrand, names, variable, points):
    """In a child (SymPy's integrate has no time bound): an antiderivative of the integrand as
    text (None when SymPy finds none), and the values at ``points`` of the product of the
    integrals of its factors (empty when it is not a product or one factor has no integral)."""
    from ..expr import highprec as H
    from ..expr import symbolic as S

    sp = S.sympy()
    sizes = {n: None for n in names}
    symbols = [S.symbol(n) for n in names]
    x = S.symbol(variable)
    f = S.as_scalar(S.to_sympy(integrand, sizes))
    whole = sp.integrate(f, x)
    shown = None if whole.has(sp.Integral) else S.render(whole) + " + C"
    factors = [g for g in sp.Mul.make_args(f) if g.has(x)]
    values = []
    if len(factors) >= 2:
        parts = [sp.integrate(g, x) for g in factors]
        if not any(p.has(sp.Integral) for p in parts):
            coefficient = sp.Mul(*[g for g in sp.Mul.make_args(f) if not g.has(x)])
            fn = H.compile_sympy(coefficient * sp.Mul(*parts), symbols)
            values = [H.value_at(fn, H.at(p)) for p in points]
    return shown, values
