"""``tape check-work``: a derivation checked line by line, the first wrong step named (SPEC
section 12).

The first line states the task (``d/dx (x^2 sin x)``, ``f(x) = …``, ``y = …, find dy/dx``,
``∫ … dx``); every later line (``= …``, ``&= …``, ``f'(x) = …``, ``y' = …``, ``dy/dx = …``)
is one step, and a line may still hold the derivative of a part: ``d/dx[x^2]``,
``\\frac{d}{dx}(\\sin x)``, ``(x^2)'``. Such a part is read, differentiated by tape's own
rules (``treediff``) and put in place, so that every line is a function of x.

Each step is compared with the line before as ``tape check`` compares an answer with a
derivative, by the same code (``homework``'s numeric evidence, in high precision, then SymPy,
undecided when neither settles it): the first step with the derivative of the task itself
(exactly ``tape check``), later ones with the line before as functions on their common
domain. A line that is not equal to the one before is ``wrong``; a line equal to a wrong one
``follows from a wrong line``. What happened on a wrong line is named: the diagnosis of
section 5 applied to a part that was differentiated on it (the student's derivative of that
part is solved for from the line, the line being affine in it), else the algebra slip
(``slips.py``). A task stated as a function (``f(x) = …``, ``y = …``) may be rewritten by the
next unlabelled lines (``= (3x^2 + 1)^(-2)``): such a line follows when it equals the function,
and the derivative is then diagnosed on that form. With ``y = …`` the lines of logarithmic
differentiation are equations: in y alone (``ln y = x ln x``) true or not of the function; in
y' (``y'/y = ln x + 1``) read as the derivative they state (the equation is affine in y').
A line with another plausible reading (SPEC section 10) is compared under both, and is
undecided, ambiguous, when the verdicts differ. The last line is graded against the task by
``tape check`` itself.
"""
from __future__ import annotations

import re
import time
from dataclasses import dataclass, field
from typing import Optional

from ..expr import tree as E
from ..expr.errors import UNDECIDED, CLIError, ExprError
from ..expr.printer import read_as
from .antiderivative import _without_constant
from .verdict import POLISH, Verdict

FOLLOWS = "follows"
WRONG = "wrong"
CARRIED = "follows from a wrong line"
UNREADABLE = "unreadable"
UNDECIDED_LINE = "undecided"
#: placeholder names of the parts still to differentiate (a digit: the reader never splits
#: them); PART + "0" stands for y' itself
PART = "Dpart"
#: the letters of a constant of integration in the lines of an antiderivative
_CONSTANTS = ("C", "c")


@dataclass
class Line:
    """One step of a derivation: its ``verdict`` and, when wrong, the ``diagnosis`` and a
    ``counterexample``; ``number`` is its line in the text (1 is the task)."""

    number: int
    text: str
    verdict: str
    read_as: Optional[str] = None
    reason: Optional[str] = None
    diagnosis: Optional[dict] = None
    counterexample: Optional[dict] = None
    notes: list = field(default_factory=list)
    #: undecided because another plausible reading of the line gets another verdict
    ambiguous: bool = False

    def to_dict(self) -> dict:
        return {"line": self.number, "text": self.text, "verdict": self.verdict,
                "read_as": self.read_as, "reason": self.reason, "diagnosis": self.diagnosis,
                "counterexample": self.counterexample, "notes": self.notes,
                "ambiguous": self.ambiguous}


@dataclass
class WorkVerdict:
    """The verdict on a derivation (``tape.grading.check_work``). ``status`` is ``correct``
    (every line follows and the last one answers the task), ``wrong``, ``unreadable``,
    ``undecided`` or ``ambiguous``; ``first_wrong`` the line number of the first wrong step;
    ``final`` the ``tape check`` verdict of the last line against the task."""

    task: dict
    lines: list
    status: str
    first_wrong: Optional[int] = None
    final: Optional[Verdict] = None
    #: why the last line does not answer the task, when it does not (or cannot be said)
    final_reason: Optional[str] = None

    @property
    def answers(self) -> Optional[bool]:
        """Does the last line answer the task (True, False, None: undecided)?"""
        if self.final is None:
            return False if self.final_reason else None
        return self.final.correct

    def credit(self) -> dict:
        """Counts for partial credit: ``steps``, ``follows``, ``carried`` (lines that follow
        from a wrong line), ``wrong``, ``other`` (unreadable, undecided)."""
        verdicts = [line.verdict for line in self.lines]
        return {"steps": len(verdicts), "follows": verdicts.count(FOLLOWS),
                "carried": verdicts.count(CARRIED), "wrong": verdicts.count(WRONG),
                "other": sum(v in (UNREADABLE, UNDECIDED_LINE) for v in verdicts)}

    def score(self, carried: float = 0.0) -> float:
        """Partial credit in [0, 1]: 1 for work that is ``correct``; otherwise the share of the
        steps that follow, a line that follows from a wrong line counting ``carried`` (a
        gradebook's ``carried:fraction``). Work with no wrong line that does not reach the
        answer (unfinished: a derivative left to take, an equation last) counts the missing
        answer as one step more, not earned: every line following is not the whole answer."""
        if self.status == "correct":
            return 1.0
        counts = self.credit()
        if not counts["steps"]:
            return 0.0
        missing = 1 if not counts["wrong"] and self.answers is not True else 0
        return (counts["follows"] + carried * counts["carried"]) / (counts["steps"] + missing)

    def to_dict(self) -> dict:
        final = None
        if self.final is not None:
            final = {"correct": self.final.correct, "ambiguous": self.final.ambiguous,
                     "expected": self.final.expected, "diagnosis": self.final.diagnosis,
                     "counterexample": self.final.counterexample, "reason": self.final.reason}
        return {"task": self.task, "status": self.status, "first_wrong": self.first_wrong,
                "answers_task": self.answers, "final": final,
                "final_reason": self.final_reason,
                "lines": [line.to_dict() for line in self.lines], "credit": self.credit()}


# --------------------------------------------------------------------------- the text

_ENVIRONMENT = re.compile(r"\\(?:begin|end)\{(?:align|aligned|equation|gather|gathered|split|"
                          r"eqnarray|multline)\*?\}")
_BREAK = re.compile(r"\\\\(?:\[[^\]]*\])?")
_INTEGRAL = re.compile(r"^\s*(?:∫|\\int(?:\\limits)?)\s*(?P<body>.+?)\s*(?:\\[,;!: ]\s*)*"
                       r"(?:\\mathrm\{d\}|\bd)(?P<var>[A-Za-z])\s*$")
#: what a task line may say after the function: ", find dy/dx", ", dy/dx", "; y' = ?"
_ASK_AFTER = re.compile(r"\s*[,;]\s*(?:(?:find|compute|differentiate|what\s+is)\s+)?"
                        r"(?:the\s+derivative|dy/d[a-z]|y'|f'\s*\(\s*[a-z]\s*\)|"
                        r"\\d?frac\{dy\}\{d[a-z]\})?\s*(?:=\s*\?)?\s*[.?]?\s*$", re.I)
_ASK_BEFORE = re.compile(r"^\s*(?:find|compute|differentiate)\s+(?:(?:dy/d[a-z]|y'|"
                         r"f'\s*\(\s*[a-z]\s*\))\s+)?(?:if|for|when|where|given)?\s*", re.I)
#: a label on the left of = in a step: f'(x), y', dy/dx, \frac{dy}{dx}, D_x y
_LABEL = re.compile(r"^\s*(?:(?P<name>[A-Za-z])(?P<primes>'+|′+)\s*(?:\(\s*[a-z]\s*\))?|"
                    r"d[A-Za-z]/d[a-z]|\\d?frac\{d[A-Za-z]?\}\{d[a-z]\}\s*[A-Za-z]?|"
                    r"\\frac\{d\}\{d[a-z]\}\s*(?:[A-Za-z]|f\(\s*[a-z]\s*\)))\s*$")
_OPEN = "([{"
_CLOSE = ")]}"
#: ``d/dx`` or ``\frac{d}{dx}`` in front of a part, the bracket after it opening the part
_OPERATOR = re.compile(r"(?:(?<![A-Za-z\\])d/d(?P<v1>[a-z])|\\d?frac\s*\{\s*d\s*\}\s*"
                       r"\{\s*d(?P<v2>[a-z])\s*\})\s*(?P<size>\\(?:left|bigl?|Bigl?|biggl?|"
                       r"Biggl?)\s*)?(?P<open>[(\[{]|\\\{)?")
#: the derivative of the dependent name itself inside a line: y', dy/dx, \frac{dy}{dx}
_DEPENDENT = r"(?<![A-Za-z\\]){y}(?:'|′)(?!')|(?<![A-Za-z])d{y}/d{x}|\\d?frac\{{d{y}\}}\{{d{x}\}}"


def _physical_lines(text: str) -> list[tuple[int, str]]:
    """``(line number, text)`` of every non-empty line, LaTeX's environments, ``\\\\``,
    alignment marks and ``\\text{…}`` notes taken off; ``#`` and ``%`` start comments."""
    out = []
    for number, raw in enumerate(text.splitlines(), 1):
        raw = _ENVIRONMENT.sub(" ", raw)
        raw = re.sub(r"(?<!\\)%.*$", "", raw)
        raw = re.sub(r"(?:^|\s)#.*$", "", raw)
        for piece in _BREAK.split(raw):
            piece = re.sub(r"&&.*$", "", piece)
            piece = re.sub(r"\\(?:text|mbox|textrm|tag)\{[^{}]*\}", " ", piece)
            piece = piece.replace("&", " ").replace("$", " ")
            piece = re.sub(r"\\q?quad\b|\\displaystyle\b|\\\[|\\\]", " ", piece)
            piece = piece.strip().rstrip(".").strip()
            if piece:
                out.append((number, piece))
    return out


def _closing(text: str, i: int) -> int:
    """The index of the bracket closing the one at ``i`` (any of ``([{``), or -1."""
    depth = 0
    k = i
    while k < len(text):
        c = text[k]
        if c in _OPEN:
            depth += 1
        elif c in _CLOSE:
            depth -= 1
            if depth == 0:
                return k
        k += 1
    return -1


def _opening(text: str, i: int) -> int:
    """The index of the bracket opening the one closing at ``i``, or -1."""
    depth = 0
    for k in range(i, -1, -1):
        c = text[k]
        if c in _CLOSE:
            depth += 1
        elif c in _OPEN:
            depth -= 1
            if depth == 0:
                return k
    return -1


def split_equals(text: str) -> list[str]:
    """``text`` cut at every ``=`` outside brackets."""
    pieces, depth, start = [], 0, 0
    for k, c in enumerate(text):
        if c in _OPEN:
            depth += 1
        elif c in _CLOSE:
            depth -= 1
        elif c == "=" and depth == 0:
            pieces.append(text[start:k])
            start = k + 1
    pieces.append(text[start:])
    return [p.strip() for p in pieces]


def _inner(text: str) -> str:
    """A bracketed part without a trailing ``\\right``/``\\big`` before its closing bracket."""
    return re.sub(r"\\(?:right|bigr?|Bigr?|biggr?|Biggr?)\s*\\?$", "", text).strip()


class _Unreadable(Exception):
    """A step that cannot be read: the message says why."""


def take_parts(text: str, wrt: str) -> tuple[str, list[str]]:
    """``text`` with every part to differentiate (``d/dx[…]``, ``\\frac{d}{dx}(…)``, ``(…)'``)
    replaced by ``(Dpart1)``, ``(Dpart2)``…, and the parts' texts in that order."""
    parts: list[str] = []
    out = text
    while True:
        match = _OPERATOR.search(out)
        if not match:
            break
        var = match.group("v1") or match.group("v2")
        if var != wrt:
            raise _Unreadable(f"d/d{var} in a derivation along {wrt}")
        if not match.group("open"):
            raise _Unreadable(f"put the part after {match.group(0).strip()} in brackets: "
                              f"d/d{wrt}[…] (which part is differentiated is not clear)")
        start = match.start("open")
        if out[start] == "\\":          # \{ … \}
            start += 1
        end = _closing(out, start)
        if end < 0:
            raise _Unreadable(f"the bracket after {match.group(0).strip()} is never closed")
        parts.append(_inner(out[start + 1:end]))
        out = f"{out[:match.start()]} ({PART}{len(parts)}) {out[end + 1:]}"
    # (u)' and [u]': a prime on a bracket is the derivative of what it holds
    while True:
        match = re.search(r"[)\]}](?:'|′)", out)
        if not match:
            break
        end = match.start()
        start = _opening(out, end)
        if start < 0:
            raise _Unreadable("a prime after a bracket that was never opened")
        lead = start
        size = re.search(r"\\(?:left|bigl?|Bigl?)\s*$", out[:start])
        if size:
            lead = size.start()
        parts.append(_inner(out[start + 1:end]))
        out = f"{out[:lead]} ({PART}{len(parts)}) {out[match.end():]}"
    return out, parts


# --------------------------------------------------------------------------- the task

@dataclass
class Task:
    """What is asked: the derivative (``kind`` "derivative") or an antiderivative of ``tree``
    along ``wrt``; ``text`` as typed, ``expression`` the text ``tape check`` is given;
    ``dependent`` the name a ``y = …`` task gives the function."""

    text: str
    kind: str
    tree: object
    wrt: str
    expression: str
    variables: list
    dependent: Optional[str] = None
    derivative: object = None       # the derivative of ``tree`` (treediff), when it has one
    #: stated as a function (``f(x) = …``, ``y = …``), so that the next lines may still
    #: rewrite it; ``d/dx (…)`` asks for the derivative at once
    stated: bool = False

    def to_dict(self) -> dict:
        return {"text": self.text, "kind": self.kind, "read_as": read_as(self.tree),
                "wrt": self.wrt}


def _task(number: int, text: str) -> tuple[Task, list[str]]:
    """The task of the first line and the steps written after it on the same line."""
    from ..expr import read

    integral = _INTEGRAL.match(split_equals(text)[0])
    if integral:
        pieces = split_equals(text)
        body = integral.group("body")
        if not body.strip():
            raise CLIError(f"line {number}: nothing to integrate in {text.strip()!r}")
        reading = read(body, names=[integral.group("var")], label=f"line {number}")
        return Task(text, "antiderivative", reading.tree, integral.group("var"), body,
                    [integral.group("var")]), pieces[1:]
    said = re.match(r"(?i)\s*differentiate\s+(?!.*=)(?P<what>.+)$", text)
    if said:
        reading = read(said.group("what"), label=f"line {number}")
        return _made(text, reading, said.group("what")), []
    cleaned = _ASK_BEFORE.sub("", _ASK_AFTER.sub("", text))
    pieces = split_equals(cleaned)
    first = read(pieces[0], label=f"line {number}") if pieces[0] else None
    if first is not None and first.asks:
        if first.derivative_order not in (None, 1):
            raise CLIError(f"line {number}: check-work takes first derivatives; the task asks "
                           f"for the derivative of order {first.derivative_order}")
        return _made(text, first, pieces[0]), pieces[1:]
    if len(pieces) >= 2 and pieces[0]:
        stated = f"{pieces[0]} = {pieces[1]}"
        reading = read(stated, label=f"line {number}")
        if not reading.asks and reading.derivative_order is None:
            left = pieces[0].strip()
            dependent = left if re.fullmatch(r"[A-Za-z]", left) else None
            task = _made(text, reading, stated, dependent)
            task.stated = True
            return task, pieces[2:]
    raise CLIError(f"line {number}: the first line must state the task: d/dx (x^2 sin x), "
                   f"f(x) = x^2 sin x, y = x^2 sin x, find dy/dx, or ∫ x cos x dx; got "
                   f"{text.strip()!r}")


def _given(expression: str, wrt: Optional[str], antiderivative: bool) -> Task:
    """The task given apart from the steps (a gradebook's ``expression`` column)."""
    from ..expr import read

    reading = read(expression, names=[wrt] if wrt else (), label="the task")
    if antiderivative:
        names = reading.variables
        x = wrt or (names[0] if len(names) == 1 else "x")
        return Task(expression, "antiderivative", reading.tree, x, expression, names or [x])
    if wrt:
        reading.wrt = wrt
    return _made(expression, reading, expression)


def _made(text: str, reading, expression: str, dependent: Optional[str] = None) -> Task:
    names = reading.variables
    wrt = reading.wrt or (names[0] if len(names) == 1 else None)
    if wrt is None:
        wrt = "x" if not names else None
    if wrt is None:
        raise CLIError(f"the task has several variables ({', '.join(names)}); write d/dx (…) "
                       f"to say which one to differentiate by")
    if names and wrt not in names:
        raise CLIError(f"the task differentiates by {wrt}, which it does not hold (its "
                       f"variables: {', '.join(names)}); write d/d{names[0]} (…)")
    # a constant task is a function of x all the same (its derivative is 0)
    variables = names or [wrt]
    return Task(text, "derivative", reading.tree, wrt, expression, variables, dependent)


# --------------------------------------------------------------------------- the steps

@dataclass
class _Step:
    """A readable step: an expression (``value``: its function of x, every part
    differentiated; ``raw``: with the parts' placeholders) or an equation (``lhs``/``rhs``
    with the placeholders of y and y')."""

    line: Line
    relation: bool = False
    raw: object = None
    parts: dict = field(default_factory=dict)       # placeholder -> part tree
    derivatives: dict = field(default_factory=dict)  # placeholder -> its derivative tree
    value: object = None
    lhs: object = None
    rhs: object = None
    has_parts: bool = False
    #: the names the line was read with, before y was put in
    names: list = field(default_factory=list)
    #: ``(said, step)``: the line read another plausible way
    others: list = field(default_factory=list)
    #: the line says it is the derivative (``f'(x) =``, ``y' =``, ``dy/dx =``)
    labelled: bool = False
    #: for the last line: ``tape check``'s verdict on it as the answer to the task
    final: Optional[Verdict] = None
    #: an equation in y' read as the derivative it states (``y'/y = ln x + 1``)
    slope: bool = False


def _substitute(tree, values: dict):
    def visit(node, kids):
        if isinstance(node, E.Variable) and node.name in values:
            return values[node.name]
        return E.rebuild(node, kids)

    return E.fold(tree, visit)


def _step_pieces(text: str) -> tuple[list[str], bool, Optional[str], bool]:
    """The expressions of a step line, whether they form an equation (``ln y = x ln x``), a
    reason the line cannot be read, and whether a label says it is the derivative."""
    pieces = split_equals(text)
    if len(pieces) == 1:
        return pieces, False, None, False
    if not pieces[0]:
        return pieces[1:], False, None, False
    label = _LABEL.match(pieces[0])
    if label:
        if label.group("primes") and len(label.group("primes")) > 1:
            return [], False, "check-work takes first derivatives (a label with two primes)", \
                True
        return pieces[1:], False, None, True
    return pieces, True, None, False


def _other_readings(task: Task, number: int, text: str, working: str, notes) -> list:
    """``(said, step)`` for each other plausible reading of the line (SPEC section 10's
    ambiguous notation: ``1/2x``, ``e^2x``, ``x^1/2``, ``sin x/2``), read the other way."""
    from .homework import ambiguous_readings

    found = []
    for r in ambiguous_readings(working, notes):
        if r.typed not in text:
            continue
        step = _read_step(task, number, text.replace(r.typed, r.other, 1), False, other=True)
        if step.line.verdict != UNREADABLE:
            found.append((f"{r.typed!r} as {r.this} or {r.other}", step))
    return found


def _read_step(task: Task, number: int, text: str, relation: bool, other: bool = False
               ) -> _Step:
    """One expression or equation side ``text`` of line ``number`` read, its parts
    differentiated."""
    from ..expr import read
    from ..calculus.treediff import derivative

    x = task.wrt
    line = Line(number, text, UNREADABLE)
    try:
        working = text
        dependent = task.dependent
        if dependent:
            working = re.sub(_DEPENDENT.format(y=re.escape(dependent), x=x), f" ({PART}0) ",
                             working)
        working, part_texts = take_parts(working, x)
        placeholders = [f"{PART}{k}" for k in range(len(part_texts) + 1)]
        names = [*task.variables, *placeholders] + ([dependent] if dependent else [])
        constants = _CONSTANTS if task.kind == "antiderivative" else ()
        reading = read(working, names=names + list(constants), label=f"line {number}")
        if reading.asks or reading.derivative_order not in (None, 1):
            raise _Unreadable("a derivative operator in front of a whole line: write d/dx[…] "
                              "with the part in brackets")
        own = {dependent: task.tree} if dependent else {}
        slope = f"{PART}0" in reading.variables
        if slope and task.derivative is None:
            raise _Unreadable(f"tape has no rule to differentiate {read_as(task.tree)}")
        parts, derivatives = {}, {}
        for k, part_text in enumerate(part_texts, 1):
            part = _read_step(task, number, part_text, False, other=True)
            if part.line.verdict == UNREADABLE:
                raise _Unreadable(part.line.reason)
            d = derivative(part.value, [x])
            if d is None:
                raise _Unreadable(f"tape has no rule to differentiate the part "
                                  f"{read_as(part.value)}")
            parts[f"{PART}{k}"] = part.value
            derivatives[f"{PART}{k}"] = d
        known = set(task.variables) | set(placeholders) | set(constants) | \
            ({dependent} if dependent else set())
        extra = [n for n in reading.variables if n not in known]
        if extra:
            raise _Unreadable(f"it uses {', '.join(map(repr, extra))}, which the task does not "
                              f"have (its variables: {', '.join(task.variables)})")
        tree = _substitute(reading.tree, own)
        for letter in constants:
            tree = _without_constant(tree, letter)[0]
        if any(c in E.free_variables(tree) for c in constants):
            raise _Unreadable("a constant of integration stands alone as a term (+ C)")
        line.notes = [n for n in reading.notes if PART not in n]
        shown = read_as(tree)
        for name in sorted(parts, key=len, reverse=True):
            shown = shown.replace(name, f"d/d{x}[{read_as(parts[name])}]")
        line.read_as = shown.replace(f"{PART}0", f"{dependent}'")
        if slope:
            derivatives[f"{PART}0"] = task.derivative
        step = _Step(line, relation, raw=tree, parts={k: v for k, v in parts.items()},
                     derivatives=derivatives, value=_substitute(tree, derivatives),
                     has_parts=bool(parts), names=list(reading.variables))
        if not relation and not other:
            step.others = _other_readings(task, number, text, working, reading.notes)
        line.verdict = ""
        return step
    except _Unreadable as why:
        line.reason = str(why)
    except ExprError as err:
        line.reason = str(err).splitlines()[0]
    except CLIError as err:
        line.reason = err.message
    return _Step(line)


def _steps(task: Task, number: int, first: list[str], rest: list[tuple[int, str]]
           ) -> list[_Step]:
    """The steps: ``first``, written after the task on its line ``number``, then ``rest``."""
    steps = []
    lines = [(number, "=" + p) for p in first] + rest
    for number, text in lines:
        pieces, relation, why, labelled = _step_pieces(text)
        if why:
            steps.append(_Step(Line(number, text, UNREADABLE, reason=why)))
            continue
        if relation:
            left = _read_step(task, number, pieces[0], True)
            for piece in pieces[1:]:
                right = _read_step(task, number, piece, True)
                shown = f"{pieces[0]} = {piece}"
                line = Line(number, shown, UNREADABLE)
                if left.line.verdict == UNREADABLE or right.line.verdict == UNREADABLE:
                    line.reason = left.line.reason or right.line.reason
                    steps.append(_Step(line))
                    continue
                line.verdict = ""
                line.read_as = f"{left.line.read_as} = {right.line.read_as}"
                line.notes = left.line.notes + right.line.notes
                slope = f"{PART}0"
                if slope in E.free_variables(left.raw) + E.free_variables(right.raw):
                    steps.append(_Step(line, False, lhs=left, rhs=right, slope=True,
                                       value=_stated_slope(left, right)))
                    continue
                steps.append(_Step(line, True, lhs=left, rhs=right,
                                   has_parts=left.has_parts or right.has_parts))
            continue
        for piece in pieces:
            step = _read_step(task, number, piece, False)
            step.line.text = piece if len(pieces) > 1 else text
            step.labelled = labelled
            steps.append(step)
    return steps


# --------------------------------------------------------------------------- the verdicts

def _compare(tree, answer, variables: list[str], along: list[str], timeout: float) -> Verdict:
    """``tape check``'s verdict on ``answer`` against ``tree`` differentiated along ``along``
    (with ``along`` empty: ``tree`` itself), on their common domain."""
    from .homework import Exercise, _verdict, real_roots

    exercise = Exercise(real_roots(tree), real_roots(answer), variables, along)
    try:
        return _verdict(exercise, timeout)
    except CLIError as err:
        if err.code != UNDECIDED:
            raise
        return Verdict(None, "numeric", None, reason=err.message)


def _defined_points(trees, variables: list[str], first: dict, count: int = 6) -> list[tuple]:
    """The counterexample ``first`` and up to ``count`` round points where every tree is
    defined in high precision."""
    from ..expr import highprec as H
    from .homework import ROUND

    fns = [H.compile_tree(t, variables) for t in trees]
    points = [tuple(first[v] for v in variables)]
    for r in ROUND:
        point = tuple(r for _ in variables)
        if point in points:
            continue
        at = H.at(point)
        if all(H.value_at(fn, at) is not None for fn in fns):
            points.append(point)
        if len(points) > count:
            break
    return points


def _part_diagnosis(before: _Step, after_value, variables: list[str], x: str,
                    points: list, deadline: float) -> Optional[dict]:
    """The diagnosis of section 5 for a part of ``before`` differentiated on the next line:
    the student's derivative of that part solved for from the line (``before`` is affine in
    it), then named as ``tape check`` names a wrong derivative."""
    from .homework import _diagnosed

    for name, part in before.parts.items():
        others = {n: d for n, d in before.derivatives.items() if n != name}
        zero = _substitute(before.raw, {**others, name: E.Number(0.0)})
        one = _substitute(before.raw, {**others, name: E.Number(1.0)})
        theirs = E.Binary("/", E.Binary("-", after_value, zero), E.Binary("-", one, zero))
        found = _diagnosed(deadline, part, theirs, variables, [x], points)
        if found and found.get("kind") not in ("extra term",):
            return {**found, "part": read_as(part)}
    return None


def _judge(task: Task, steps: list[_Step], timeout: float) -> None:
    """Set every step's verdict (module docstring)."""
    previous: Optional[_Step] = None        # None: the task itself (or a rewriting of it)
    state = "right"                          # is the line before right, wrong or unknown?
    form = task.tree                         # the function as last rewritten
    readable = [s for s in steps if s.line.verdict != UNREADABLE]
    last = readable[-1] if readable else None
    for step in steps:
        line = step.line
        if line.verdict == UNREADABLE:
            continue
        if step is last and state == "right" and _gradable(step):
            # every line before follows from the task: the last one follows exactly when
            # tape check accepts it as the answer, which is asked below anyway
            step.final = _final(task, step, timeout)
            if step.final.correct and not step.final.ambiguous:
                line.verdict = FOLLOWS
                continue
        verdict, diagnosis, rewrite = _step_verdict(task, form, previous, step, timeout)
        said = _ambiguous(task, form, previous, step, verdict, timeout)
        if said:
            line.verdict, line.ambiguous = UNDECIDED_LINE, True
            line.reason = f"ambiguous: the verdict depends on how the line is read ({said})"
            state = "unknown"
        elif verdict.correct is None:
            line.verdict = UNDECIDED_LINE
            line.reason = verdict.reason or "the line could not be compared with the one before"
            state = "unknown"
        elif verdict.correct:
            if step.relation:
                line.verdict, state = FOLLOWS, "right"
            else:
                line.verdict = CARRIED if state == "wrong" else FOLLOWS
        elif step.relation and state == "wrong":
            line.verdict = UNDECIDED_LINE
            line.reason = ("the equation is not true of the function, and whether it follows "
                           "from the wrong line before cannot be told")
        else:
            line.verdict, state = WRONG, "wrong"
            line.counterexample = _counterexample(verdict.counterexample,
                                                  _like_task(previous) and not step.relation)
            deadline = time.monotonic() + POLISH
            line.diagnosis = diagnosis or _named(task, form, previous, step, verdict,
                                                 deadline)
        if rewrite:
            form = step.value
            continue
        if (step.relation and line.verdict == UNDECIDED_LINE):
            continue
        previous = step


def _ambiguous(task: Task, form, previous, step: _Step, verdict: Verdict, timeout: float
               ) -> Optional[str]:
    """What makes the line ambiguous when another plausible reading of it gets another
    verdict, else None."""
    for said, other in step.others:
        again, _, _ = _step_verdict(task, form, previous, other, timeout)
        if again.correct is not None and again.correct != verdict.correct:
            return said
    return None


def _like_task(previous: Optional[_Step]) -> bool:
    """Is the line before the task itself, or an equation in y alone (``ln y = x ln x``),
    which says what the function is, not its derivative?"""
    return previous is None or (previous.relation and not previous.slope)


def _step_verdict(task: Task, form, previous: Optional[_Step], step: _Step, timeout: float):
    """``(verdict, diagnosis, rewrite)``: the comparison of ``step`` with the line before;
    ``rewrite`` when the step only rewrites the task's function (``(3x^2 + 1)^(-2)`` for
    ``1/(3x^2 + 1)^2``), which the next step then differentiates."""
    x, variables = task.wrt, task.variables
    if step.relation:
        return _compare(step.lhs.value, step.rhs.value, variables, [], timeout), None, False
    if task.kind == "antiderivative":
        from ..calculus.treediff import derivative

        if previous is None:
            # an antiderivative of the integrand: the derivative of this line is the integrand
            return _compare(step.value, task.tree, variables, [x], timeout), None, False
        mine = derivative(previous.value, [x])
        if mine is None:
            return Verdict(None, "numeric", None, reason="tape has no rule to differentiate "
                                                         "the line before"), None, False
        return _compare(step.value, mine, variables, [x], timeout), None, False
    if _like_task(previous):
        verdict = _compare(form, step.value, variables, [x], timeout)
        if verdict.correct is False and previous is None and task.stated and \
                not step.slope and not step.labelled:
            same = _compare(form, step.value, variables, [], timeout)
            if same.correct:
                return same, None, True
        diagnosis = None
        if verdict.diagnosis and not step.slope and not _one_part(step):
            diagnosis = {**verdict.diagnosis, "part": read_as(form)}
        return verdict, diagnosis, False
    return _compare(previous.value, step.value, variables, [], timeout), None, False


def _one_part(step: _Step) -> bool:
    """Is the step one part to differentiate and nothing else (``= d/dx[x + 1]``)?"""
    return isinstance(step.raw, E.Variable) and step.raw.name in step.parts


def _stated_slope(left: _Step, right: _Step):
    """The y' an equation affine in y' states: with g(s) = left - right at y' = s, the root
    -g(0)/(g(1) - g(0)) (an equation not affine in y' gives a line that the numbers reject)."""
    def g(s):
        return E.Binary("-", _with_slope(left, s), _with_slope(right, s))

    zero = g(E.Number(0.0))
    return E.Binary("/", E.Unary("-", zero), E.Binary("-", g(E.Number(1.0)), zero))


def _with_slope(side: _Step, slope):
    """An equation side with ``slope`` in place of y' (its parts differentiated)."""
    return _substitute(side.raw, {**side.derivatives, f"{PART}0": slope})


def _counterexample(found: Optional[dict], derivative: bool):
    """The comparison's counterexample: the line's value there (``line``) and the value it
    should have had (``before``: of the line before, or of the derivative asked for when
    ``against`` is ``"derivative"``)."""
    if not found:
        return None
    return {"at": found["at"], "line": found["answer"], "before": found["expected"],
            "against": "derivative" if derivative else "line before"}


def _named(task: Task, form, previous: Optional[_Step], step: _Step, verdict: Verdict,
           deadline: float) -> Optional[dict]:
    """What happened on a wrong step: a part differentiated wrongly (section 5's diagnosis),
    else an algebra slip; None when nothing is found."""
    from .slips import name_slip

    variables, x = task.variables, task.wrt
    if task.kind == "antiderivative":
        if previous is not None:
            return None
        # the first line: an antiderivative of the integrand, named as tape check names it
        from .homework import check

        try:
            return check(task.expression, read_as(step.value), wrt=x,
                         antiderivative=True).diagnosis
        except CLIError:
            return None
    if not verdict.counterexample:
        return None
    try:
        if _like_task(previous):
            if _one_part(step):
                # the function rewritten inside d/dx[...]: the slip is in the rewriting
                part = step.parts[step.raw.name]
                points = _defined_points([form, part], variables,
                                         verdict.counterexample["at"])
                slip = name_slip(form, part, variables, points)
                return {**slip, "part": None} if slip else None
            if step.slope and previous is not None:
                return _relation_diagnosis(previous, step, variables, x,
                                           verdict.counterexample["at"], deadline)
            return None
        points = _defined_points([previous.value, step.value], variables,
                                 verdict.counterexample["at"])
        if previous.has_parts:
            found = _part_diagnosis(previous, step.value, variables, x, points, deadline)
            if found:
                return found
        slip = name_slip(previous.value, step.value, variables, points)
        return {**slip, "part": None} if slip else None
    except Exception:  # noqa: BLE001  (the diagnosis is optional: a failure is none)
        return None


def _relation_diagnosis(previous: _Step, step: _Step, variables, x, at: dict,
                        deadline: float) -> Optional[dict]:
    """Both sides of an equation differentiated (``ln y = x ln x`` to ``y'/y = …``): when one
    side of the step is the derivative of that side before, the other side is the student's
    derivative of the other side before, named by section 5's diagnosis."""
    from .homework import _diagnosed

    for mine, theirs, other_before, other_now in (
            (previous.lhs, step.lhs, previous.rhs, step.rhs),
            (previous.rhs, step.rhs, previous.lhs, step.lhs)):
        if _compare(mine.value, theirs.value, variables, [x], POLISH).correct:
            points = _defined_points([other_before.value, other_now.value], variables, at)
            found = _diagnosed(deadline, other_before.value, other_now.value, variables, [x],
                               points)
            if found:
                return {**found, "part": read_as(other_before.value)}
    return None


# --------------------------------------------------------------------------- the whole

def check_work(text: str, *, task: Optional[str] = None, wrt: Optional[str] = None,
               antiderivative: bool = False, timeout: float = 10.0) -> WorkVerdict:
    """Check a derivation line by line (SPEC section 12; module docstring). ``text``: the
    task on the first line, one step per line after it (or LaTeX ``align*``); or, with
    ``task`` (the function, as ``tape check``'s EXPR; ``wrt`` and ``antiderivative`` as
    there), the steps alone: a multi-line answer cell of a gradebook. Raises ``CLIError``
    (exit 2) when there is no task or no step; a step that cannot be read is an
    ``unreadable`` line, not an error.

    >>> work = check_work("d/dx (x^2 sin x)\\n= 2x sin x + x^2 cos x")
    >>> work.status, [line.verdict for line in work.lines]
    ('correct', ['follows'])
    """
    if not isinstance(text, str):
        raise CLIError("the derivation must be text")
    if timeout is None or not timeout > 0:
        raise CLIError(f"--timeout must be a positive number of seconds, got {timeout}")
    lines = _physical_lines(text)
    if task is not None:
        task, inline, number = _given(task, wrt, antiderivative), [], 0
    else:
        if not lines:
            raise CLIError("the derivation is empty: give the task on the first line and one "
                           "step per line after it")
        (number, first), lines = lines[0], lines[1:]
        task, inline = _task(number, first)
    from ..calculus.treediff import derivative

    if task.kind == "derivative":
        task.derivative = derivative(task.tree, [task.wrt])
    steps = _steps(task, number, inline, lines)
    if not steps:
        raise CLIError("the derivation has a task and no steps: write each step on its own "
                       "line after the task (= …, f'(x) = …)")
    _judge(task, steps, timeout)
    return _whole(task, steps, timeout)


def _whole(task: Task, steps: list[_Step], timeout: float) -> WorkVerdict:
    lines = [s.line for s in steps]
    verdicts = [line.verdict for line in lines]
    first_wrong = next((line.number for line in lines if line.verdict == WRONG), None)
    last = next((s for s in reversed(steps) if s.line.verdict != UNREADABLE), None)
    final, reason = None, None
    if last is None:
        reason = "no line could be read"
    elif last.relation:
        reason = "the last line is an equation, not the derivative (end with y' = …)"
    elif last.has_parts:
        reason = "the last line still holds a derivative to take: the work is not finished"
    else:
        final = last.final or _final(task, last, timeout)
    work = WorkVerdict(task.to_dict(), lines, "", first_wrong, final, reason)
    if WRONG in verdicts:
        work.status = "wrong"
    elif UNREADABLE in verdicts:
        work.status = "unreadable"
    elif any(line.ambiguous for line in lines):
        work.status = "ambiguous"
    elif UNDECIDED_LINE in verdicts:
        work.status = "undecided"
    elif final is not None and final.ambiguous:
        work.status = "ambiguous"
    elif work.answers is True:
        work.status = "correct"
    elif work.answers is False:
        work.status = "wrong"
    else:
        work.status = "undecided"
    return work


def _gradable(step: _Step) -> bool:
    """Can the line be graded as the answer (an expression with no derivative left to take)?"""
    return not step.relation and not step.has_parts


def _final(task: Task, last: _Step, timeout: float) -> Verdict:
    """The last line graded against the task by ``tape check``: the texts as typed when the
    line is plain, else as read (its parts and y put in)."""
    from .homework import check

    typed = last.line.text
    pieces = _step_pieces(typed)[0]
    plain = len(pieces) == 1 and not last.has_parts and not last.slope and \
        all(n in task.variables for n in last.names)
    answer = pieces[0] if plain else read_as(last.value)
    try:
        if task.kind == "antiderivative":
            return check(task.expression, answer, wrt=task.wrt, antiderivative=True,
                         timeout=timeout)
        return check(task.expression, answer, wrt=task.wrt, timeout=timeout)
    except CLIError as err:
        return Verdict(None, "numeric", None, reason=err.message)
