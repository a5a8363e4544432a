"""The JSON documents as tape built them before they were streamed: the whole document as
Python dicts, then one ``json.dumps``. The streamed text must equal this byte for byte.

Copied from tape/cli/commands/{grad,hessian,jacobian}.py, crosscheck.py and output.py as they
were at commit 71b74ec; only the inputs are passed in rather than closed over. SPEC section 4
then added ``"read_as"`` right after ``"expression"``: ``with_reading`` puts it there, spelled
from the parsed trees directly rather than through the render path under test.
"""
from __future__ import annotations

import json
import math

import numpy as np

from tape.calculus import derivatives
from tape.expr import parse as expr
from tape.cli import output
from tape.cli.commands.derive import gradient_report, hessian_report, jacobian_report, prepare
from tape.calculus.derivatives import multisets
from tape.grading.crosscheck import CheckSettings, Layout, check


def grad_document(problem, outcome, order: int) -> dict:
    comps = problem.comps
    keys = multisets(len(comps), order) if comps else []
    n = problem.points.count
    ats = problem.points.all_at()
    pts = []
    values = outcome.value.tolist()
    columns = {k: outcome.partials[k].tolist() for k in keys}
    gradients = _gradient_dicts(problem, columns, keys, n) if order == 1 else None
    for i in range(n):
        entry = {"at": ats[i], "value": values[i]}
        if gradients is not None:
            entry["gradient"] = gradients[i]
        elif len(comps) == 1:
            entry["derivative"] = columns[keys[0]][i]
        else:
            entry["partials"] = [{"wrt": [comps[j].label for j in k],
                                  "value": columns[k][i]} for k in keys]
        pts.append(entry)
    return {"expression": problem.target.source, "variables": problem.variables,
            "wrt": problem.wrt, "order": order, "points": pts}


def _gradient_dicts(problem, columns: dict, keys: list, n: int) -> list[dict]:
    per_variable: dict = {}
    for key in keys:
        c = problem.comps[key[0]]
        per_variable.setdefault(c.name, []).append((c.index, columns[key]))
    names, cols = [], []
    for name, parts in per_variable.items():
        names.append(name)
        cols.append(parts[0][1] if parts[0][0] is None
                    else [list(row) for row in zip(*[p[1] for p in parts])])
    if not names:
        return [{} for _ in range(n)]
    return [dict(zip(names, row)) for row in zip(*cols)]


def hessian_matrix(outcome, d: int, n: int) -> np.ndarray:
    """The (N, d, d) Hessians, filled symmetrically from the distinct partials."""
    h = np.zeros((n, d, d))
    for i, j in multisets(d, 2):
        h[:, i, j] = h[:, j, i] = outcome.partials[(i, j)]
    return h


def hessian_document(problem, outcome) -> dict:
    d, n = len(problem.comps), problem.points.count
    h = hessian_matrix(outcome, d, n)
    ats = problem.points.all_at()
    values = outcome.value.tolist()
    matrices = h.tolist()
    pts = [{"at": ats[i], "value": values[i], "hessian": matrices[i]} for i in range(n)]
    return {"expression": problem.target.source, "variables": problem.variables,
            "wrt": problem.wrt, "points": pts}


def jacobian_document(problem, outcome) -> dict:
    value = outcome.value if outcome.value.ndim == 2 else outcome.value[:, None]
    n = value.shape[0]
    ats = problem.points.all_at()
    values = value.tolist()
    matrices = outcome.jacobian.tolist()
    pts = [{"at": ats[i], "value": values[i], "jacobian": matrices[i]} for i in range(n)]
    return {"expression": problem.target.source, "variables": problem.variables,
            "wrt": problem.wrt, "points": pts}


def with_reading(doc: dict, target) -> dict:
    """``doc`` with ``"read_as"`` after ``"expression"``: each tree in SymPy syntax, a list
    when the target was given as several expressions."""
    spelled = [expr.read_as(tree) for tree in target.trees]
    reading = spelled if isinstance(target.source, list) else spelled[0]
    out: dict = {}
    for key, value in doc.items():
        out[key] = value
        if key == "expression":
            out["read_as"] = reading
    return out


def attach(doc: dict, layout, verdict) -> dict:
    for i, entry in enumerate(doc.get("points", [])):
        entry["check"] = {"method": verdict.method,
                          "expected": layout.shape(verdict.expected[i].tolist()),
                          "max_abs_error": float(verdict.max_abs_error[i]),
                          "agree": bool(verdict.agree[i])}
    if verdict.symbolic is not None:
        doc["symbolic"] = layout.shape(list(verdict.symbolic))
    return _finite_only(doc)


def _finite_only(obj):
    if isinstance(obj, dict):
        return {k: _finite_only(v) for k, v in obj.items()}
    if isinstance(obj, list):
        return [_finite_only(v) for v in obj]
    if isinstance(obj, float) and not math.isfinite(obj):
        return repr(obj)
    return obj


def _json_safe(obj):
    if isinstance(obj, dict):
        return {k: _json_safe(v) for k, v in obj.items()}
    if isinstance(obj, (list, tuple)):
        return [_json_safe(v) for v in obj]
    if isinstance(obj, (float, np.floating)):
        return float(obj) if math.isfinite(obj) else repr(float(obj))
    if isinstance(obj, np.ndarray):
        return _json_safe(obj.tolist())
    return obj


def text(command: str, targets: list[str], at=None, points=None, wrt=None, order: int = 1,
         with_check: bool = False, stdin=None) -> str:
    """What ``tape COMMAND TARGETS ... --format json`` printed before streaming."""
    import sys

    saved = sys.stdin
    if stdin is not None:
        import io

        sys.stdin = io.StringIO(stdin)
    try:
        problem = prepare(targets, at, points, wrt, vector=command == "jacobian")
    finally:
        sys.stdin = saved
    mode = "jacobian" if command == "jacobian" else "partials"
    outcome = derivatives.run(problem.target, problem.points, problem.variables, problem.comps,
                           mode, 2 if command == "hessian" else order)
    if command == "grad":
        report = gradient_report(problem, outcome, order)
        doc = grad_document(problem, outcome, order)
        layout = Layout.for_grad(problem.comps, order)
    elif command == "hessian":
        # the report from the Hessian as tape takes it now, the document from the distinct
        # partials of nested tapes as it was built before
        report = hessian_report(problem, derivatives.run(
            problem.target, problem.points, problem.variables, problem.comps, "hessian"))
        doc = hessian_document(problem, outcome)
        layout = Layout.for_hessian(problem.comps)
    else:
        report = jacobian_report(problem, outcome)
        doc = jacobian_document(problem, outcome)
        layout = Layout.for_jacobian(problem.comps, report.value.shape[1])
    doc = with_reading(doc, problem.target)
    if with_check:
        doc = attach(doc, layout, check(report, problem, layout, CheckSettings(True)))
    warnings = report.warnings()
    if warnings:
        doc["warnings"] = warnings
    if not all(np.isfinite(a).all() for a in (report.at, report.value, report.derivatives)):
        doc = _json_safe(doc)
    return json.dumps(doc, ensure_ascii=False, allow_nan=False) + "\n"
