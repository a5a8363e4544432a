"""Points, partial credit and the summary per problem (SPEC section 11).

>>> policy = partial_policy("sign:0.5; chain rule:0.25")
>>> policy
{'sign': 0.5, 'chain rule': 0.25}
>>> score_of("wrong", {"kind": "sign", "detail": "..."}, 2.0, policy)
1.0
>>> score_of("correct", None, 2.0, policy), score_of("wrong", None, 2.0, policy)
(2.0, 0.0)

A right answer earns the problem's ``points`` (default 1). A wrong one earns the fraction its
policy gives the diagnosed mistake's kind (the ``kind`` the JSON names), else nothing: the
default is all or nothing. An unreadable answer earns nothing. An ``ambiguous`` or
``undecided`` verdict has no score (None): a person has to look at it, and a number there
would be a guess.

A derivation (``kind = work``, SPEC section 12) is scored by its lines: the share of its steps
that follow, a step that follows from a wrong line counting the fraction ``carried:fraction``
gives it (default 0: nothing for error carried forward).

>>> partial_policy("carried: 0.5")
{'carried': 0.5}
"""
from __future__ import annotations

import math
from collections import Counter
from typing import Optional

from ..expr.errors import CLIError
from .diagnosis import KINDS as DERIVATIVE_KINDS

#: every diagnosis kind a verdict can name: the derivative mistakes and the antiderivative
#: ones (SPEC sections 5 and 10)
KINDS = tuple(dict.fromkeys([*DERIVATIVE_KINDS, "derivative"]))
#: the policy's word for a derivation's lines that follow from a wrong line (kind ``work``)
CARRIED = "carried"
#: verdicts a score is given for
SCORED = ("correct", "wrong", "unreadable")


class PolicyError(CLIError):
    """A ``points`` or ``partial`` value that is not one (exit 2); the caller adds where."""


def points_of(text) -> float:
    """A problem's points: a number >= 0 (empty: 1)."""
    if text is None or str(text).strip() == "":
        return 1.0
    try:
        value = float(str(text).strip())
    except ValueError:
        value = math.nan
    if not math.isfinite(value) or value < 0:
        raise PolicyError(f"points: {str(text).strip()!r} is not a number of points (0 or "
                          f"more)")
    return value


def partial_policy(text: Optional[str]) -> dict:
    """``kind:fraction`` pairs separated by ``;`` (or lines; ``#`` starts a comment): the
    fraction of the points a wrong answer earns when its diagnosis is that kind."""
    policy: dict = {}
    if text is None:
        return policy
    for part in str(text).replace("\n", ";").split(";"):
        part = part.split("#", 1)[0].strip()
        if not part:
            continue
        kind, colon, fraction = part.rpartition(":")
        kind = " ".join(kind.split()).lower()
        if not colon or not kind:
            raise PolicyError(f"partial: {part!r} is not kind:fraction (e.g. sign:0.5)")
        if kind not in KINDS and kind != CARRIED:
            raise PolicyError(f"partial: {kind!r} is not a diagnosis kind; the kinds: "
                              f"{', '.join(KINDS)}; and {CARRIED} (kind work: a line that "
                              f"follows from a wrong one)")
        try:
            value = float(fraction)
        except ValueError:
            value = math.nan
        if not 0 <= value <= 1:
            raise PolicyError(f"partial: {part!r}: the fraction is a number from 0 to 1")
        policy[kind] = value
    return policy


def policy_fits(policy: dict, kind: str) -> None:
    """Refuse a problem's own policy that cannot apply to its ``kind`` (``PolicyError``): a
    derivation is scored by its lines (``carried`` alone), any other answer by its diagnosis
    (no ``carried``). (``--partial FILE`` is every problem's: each takes what applies to it.)"""
    if kind == "work":
        other = [k for k in policy if k != CARRIED]
        if other:
            raise PolicyError(f"partial: {other[0]!r}: kind work is scored by the lines that "
                              f"follow; its partial credit is {CARRIED}:fraction (for a line "
                              f"that follows from a wrong one)")
    elif CARRIED in policy:
        raise PolicyError(f"partial: {CARRIED!r} is for kind work (a derivation's lines that "
                          f"follow from a wrong one), not kind {kind}")


def score_of(status: str, diagnosis: Optional[dict], points: float,
             policy: dict, work=None) -> Optional[float]:
    """The score of one graded answer (None: not scored, a person decides); ``work``: the
    ``WorkVerdict`` of a derivation, scored by its lines."""
    if work is not None and status in SCORED:
        return points * work.score(carried=policy.get(CARRIED, 0.0))
    if status == "correct":
        return points
    if status == "wrong":
        kind = (diagnosis or {}).get("kind")
        return points * policy.get(kind, 0.0)
    if status == "unreadable":
        return 0.0
    return None


class Summary:
    """Per problem, in order of first appearance: answers, correct, wrong, other (ambiguous,
    undecided, unreadable), the mean score (of the answers scored) and the most frequent
    diagnosed mistakes."""

    def __init__(self) -> None:
        self.total = 0
        self.problems: dict = {}

    def add(self, problem: str, status: str, diagnosis: Optional[dict],
            score: Optional[float], max_score: float) -> None:
        self.total += 1
        entry = self.problems.setdefault(problem, {
            "answers": 0, "statuses": Counter(), "mistakes": Counter(), "scored": 0,
            "points": 0.0, "max_score": max_score})
        entry["answers"] += 1
        entry["statuses"][status] += 1
        if diagnosis and status == "wrong":
            entry["mistakes"][diagnosis.get("kind")] += 1
        if score is not None:
            entry["scored"] += 1
            entry["points"] += score

    def rows(self, mistakes: int = 3) -> list[dict]:
        """One dict per problem (the JSON document's ``summary`` and ``--summary FILE``)."""
        out = []
        for name, e in self.problems.items():
            s = e["statuses"]
            out.append({
                "problem": name, "answers": e["answers"], "correct": s["correct"],
                "wrong": s["wrong"], "other": e["answers"] - s["correct"] - s["wrong"],
                "mean_score": e["points"] / e["scored"] if e["scored"] else None,
                "max_score": e["max_score"],
                "mistakes": [{"kind": k, "count": n}
                             for k, n in e["mistakes"].most_common(mistakes)]})
        return out
