"""From an exported table to the rows ``grade`` checks (SPEC sections 9 and 11): the key's
problems joined in, a wide export (one row per student, a column per problem) unfolded into
one row per answer, and each row's points and partial-credit policy.

>>> import io
>>> from .tables import read_table
>>> key = read_key(read_table(io.BytesIO(b"problem,expression,points\\n1,x^2,2\\n"), "key.csv"))
>>> table = read_table(io.BytesIO(b"Name,Response 1\\nada,2x\\n"), "a.csv")
>>> plan = plan_answers(table, key, wide="Response {problem}", student="name")
>>> plan.columns
['Name', 'problem', 'answer']
>>> [(r.cells, r["expression"], r.points) for r in plan.rows()]
[({'Name': 'ada', 'problem': '1', 'answer': '2x'}, 'x^2', 2.0)]
"""
from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Iterator, Optional

from .batch import RowError, task_of
from .scoring import PolicyError, partial_policy, points_of, policy_fits
from .tables import Table, TableError

#: the columns that say who and what a row is
WHO = ("id", "student", "problem")
#: what a key row gives the answers to its problem
KEY_COLUMNS = ("expression", "wrt", "order", "implicit", "dependent", "kind", "constant")
#: the columns a row is checked with, found in any case
TASK_COLUMNS = ("answer", *KEY_COLUMNS, "problem", "points", "partial")


@dataclass
class Problem:
    """One row of the key: its check's columns, ``points``, ``policy`` and ``line``."""

    name: str
    given: dict
    points: float
    policy: Optional[dict]
    line: int


def given(value) -> bool:
    return value is not None and str(value).strip() != ""


def read_key(table: Table) -> dict:
    """The problems of a key table by name. Every expression is read here, before any answer
    is graded: one that cannot be read is an error naming the key's line (otherwise every
    answer to it would be charged as unreadable)."""
    from ..calculus.targets import declared_names
    from ..expr.errors import ExprError
    from ..expr.parse import read

    for needed in ("problem", "expression"):
        if table.column(needed) is None:
            raise TableError(f"{table.name} line 1: no {needed!r} column in the key (its "
                             f"columns: {', '.join(table.columns)})")
    key: dict = {}
    for line, row in table.rows():
        cells = _lowered(table, row)
        problem = str(cells.get("problem") or "").strip()
        if not problem:
            table.fail(line, "a key row without a problem")
        if problem in key:
            table.fail(line, f"problem {problem!r} again (first on line {key[problem].line})")
        expression = cells.get("expression")
        if not given(expression):
            table.fail(line, f"problem {problem!r} has no expression")
        implicit = str(cells.get("implicit") or "").strip().lower() in ("1", "true", "yes",
                                                                        "y", "t", "on", "x")
        try:
            read(str(expression), relation=implicit,
                 names=declared_names(wrt=str(cells.get("wrt") or "") or None))
        except (ExprError, ValueError) as err:
            first = err.lines()[0] if hasattr(err, "lines") else str(err)
            table.fail(line, f"problem {problem!r}: the expression cannot be read: {first}")
        try:
            task = task_of({**cells, "answer": "0"})      # its order, kind... are ones
            points = points_of(cells.get("points"))
            policy = partial_policy(cells["partial"]) if given(cells.get("partial")) else None
            if policy is not None:
                policy_fits(policy, task.kind)
        except PolicyError as err:
            table.fail(line, f"problem {problem!r}: {err.message}")
        except RowError as err:
            table.fail(line, f"problem {problem!r}: {err}")
        key[problem] = Problem(problem, {k: cells[k] for k in KEY_COLUMNS if given(cells.get(k))},
                               points, policy, line)
    return key


def _lowered(table: Table, row: dict) -> dict:
    """The row's task columns by their lower-case names."""
    out = {}
    for name in TASK_COLUMNS:
        column = table.column(name)
        if column is not None and column in row:
            out[name] = row[column]
    return out


class AnswerRow(dict):
    """One answer to grade: the columns ``grade`` reads (lower-case names) and, for the
    output, ``cells`` (the input's columns as spelt there, in order), ``line``, ``problem``
    (the summary's name for it), ``student``, ``points`` and ``policy``."""

    cells: dict
    line: int
    problem: str
    student: Optional[str]
    points: float
    policy: dict


@dataclass
class Plan:
    """What a table asks: the output's pass-through ``columns`` and ``rows()``, the rows to
    grade; ``student`` the column naming a student (None: a wide row is one student)."""

    table: Table
    columns: list
    rows: callable
    student: Optional[str] = None
    identity: list = field(default_factory=list)

    def headers(self) -> list:
        """The output's pass-through columns as the input's header names them."""
        return [self.table.header_of(c) for c in self.columns]


def wide_columns(table: Table, pattern: str) -> dict:
    """The columns a ``--wide`` pattern matches, each with the problem it captures:
    ``{problem}`` captures (once), ``*`` is any text, case aside."""
    if pattern.count("{problem}") != 1:
        raise TableError(f"--wide: {pattern!r} needs {{problem}} once, where the problem's "
                         f"name is in the column's header (e.g. \"Response {{problem}}\")")
    parts = [re.escape(p).replace(r"\*", ".*") for p in pattern.split("{problem}")]
    regex = re.compile(parts[0] + r"(?P<problem>.+?)" + parts[1], re.I | re.S)
    found = {}
    for column in table.columns:
        match = regex.fullmatch(table.header_of(column).strip())
        if match:
            found[column] = match.group("problem").strip()
    if not found:
        raise TableError(f"{table.name} line 1: no column matches --wide {pattern!r} (the "
                         f"columns: {', '.join(table.columns)})")
    return found


def plan_answers(table: Table, key: Optional[dict], *, wide: Optional[str] = None,
                 student: Optional[str] = None, policy: Optional[dict] = None) -> Plan:
    """The rows of ``table`` to grade, with ``key``'s problems joined in by ``problem``
    (a value the row gives itself wins); ``wide`` unfolds one row per student into one per
    answer; ``policy`` is the partial credit of problems whose key row names none. A table
    that cannot be graded raises ``TableError`` naming the line: its header at once, a row
    when ``rows()`` reaches it."""
    student_column = None
    if student is not None:
        student_column = table.column(student)
        if student_column is None:
            raise TableError(f"{table.name} line 1: --student: no column {student!r} (the "
                             f"columns: {', '.join(table.columns)})")
    if wide is not None:
        if key is None:
            raise TableError("--wide needs --key: the problems' expressions, by the names "
                             "the column headers give them")
        problems = wide_columns(table, wide)
        kept = [c for c in table.columns if c not in problems]
        columns = [*kept, _free("problem", kept), _free("answer", kept)]
        return Plan(table, columns, lambda: _unfolded(table, key, problems, kept, columns,
                                                      student_column, policy),
                    student_column, kept)
    if table.kind != "jsonl":
        if table.column("answer") is None:
            raise TableError(f"{table.name} line 1: no 'answer' column (the columns: "
                             f"{', '.join(table.columns) or 'none'}); a file with a column "
                             f"per problem is read with --wide \"PATTERN {{problem}}\"")
        if table.column("expression") is None and key is None:
            raise TableError(f"{table.name} line 1: no 'expression' column: give it, or a "
                             f"'problem' column and the problems with --key KEY.csv")
        if key is not None and table.column("problem") is None and \
                table.column("expression") is None:
            raise TableError(f"{table.name} line 1: no 'problem' column to join the --key by")
    student_column = student_column or table.column("student")
    numbered = not any(table.column(c) for c in WHO) and table.kind != "jsonl"
    # (JSON Lines read as it comes names its columns as rows bring them: the same list)
    columns = table.columns if table.kind == "jsonl" else \
        (["id"] if numbered else []) + list(table.columns)
    return Plan(table, columns, lambda: _long(table, key, numbered, student_column, policy),
                student_column, [student_column] if student_column else [])


def _free(name: str, taken: list) -> str:
    lowered = {c.lower() for c in taken}
    while name.lower() in lowered:
        name = "graded " + name
    return name


def _long(table, key, numbered, student_column, policy) -> Iterator[AnswerRow]:
    for number, (line, row) in enumerate(table.rows(), 1):
        cells = {"id": number, **row} if numbered else row
        if table.kind == "jsonl" and table.column("answer") not in row:
            table.fail(line, f"no 'answer' (the row's names: {', '.join(row) or 'none'})")
        yield _joined(table, key, line, cells, _lowered(table, row),
                      row.get(student_column) if student_column else None, policy)


def _unfolded(table, key, problems, kept, columns, student_column, policy):
    problem_name, answer_name = columns[-2], columns[-1]
    for line, row in table.rows():
        base = {c: row.get(c, "") for c in kept}
        for column, problem in problems.items():
            shown = answer = row.get(column, "")
            if str(answer).strip() == "-":
                answer = ""     # an LMS's mark for "no response" (Moodle writes -)
            cells = {**base, problem_name: problem, answer_name: shown}
            yield _joined(table, key, line, cells, {"problem": problem, "answer": answer},
                          row.get(student_column) if student_column else None, policy)


def _joined(table, key, line, cells, task, student, policy) -> AnswerRow:
    row = AnswerRow(task)
    problem = str(task.get("problem") or "").strip()
    found = None
    if key is not None and not given(task.get("expression")):
        found = key.get(problem)
        if found is None:
            table.fail(line, f"problem {problem!r} is not in the key" if problem
                       else "no problem and no expression")
        for name, value in found.given.items():
            if not given(row.get(name)):
                row[name] = value
    elif key is not None:
        found = key.get(problem)
    try:
        kind = task_of(row).kind
        points = points_of(task.get("points")) if given(task.get("points")) else \
            (found.points if found else 1.0)
        own = partial_policy(task["partial"]) if given(task.get("partial")) else None
        if own is not None:
            policy_fits(own, kind)
    except (RowError, PolicyError) as err:
        table.fail(line, getattr(err, "message", str(err)))
    answer = row.get("answer")
    if kind != "work" and isinstance(answer, str) and ("\n" in answer or "\r" in answer):
        # a spreadsheet cell typed on two lines is one answer (a derivation is many lines)
        row["answer"] = " ".join(answer.split())
    row.cells, row.line = cells, line
    row.problem = problem or str(row.get("expression") or "")
    row.student = None if student is None else str(student)
    row.points = points
    row.policy = own if own is not None else \
        (found.policy if found and found.policy is not None else (policy or {}))
    return row
