"""The tangent of a function at a point: its value and first partial derivatives there, from
the one evaluator (``derivatives.values_at`` for an expression, ``values_of`` for a script),
and the data of the tangent line or plane and of the normal line (``tape tangent``,
``tape plot --tangent``).
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Optional

import numpy as np

from ..expr.errors import CLIError
from .targets import Target

#: names tried, in order, for the dependent variable of the equation (the first one the
#: expression does not use)
DEPENDENT = ("y", "z", "w", "f")


@dataclass
class Tangent:
    """f's ``value`` and ``slopes`` (one per variable, in ``point``'s order) at ``point``;
    ``kink``: the call of an expression that has a kink or jump there (None: none, or a
    script, whose calls are not known)."""

    point: dict
    value: float
    slopes: dict
    kink: Optional[str] = None

    @property
    def names(self) -> list[str]:
        return list(self.point)

    @property
    def dependent(self) -> str:
        """The name of the equation's left side: the first of ``DEPENDENT`` not a variable."""
        return next(n for n in DEPENDENT if n not in self.point)

    def terms(self) -> list:
        """The tangent's right side as (coefficient, {variable: (centre, power)}) terms:
        f(a) + sum of f_i(a) (x_i - a_i)."""
        return [(self.value, {})] + [(self.slopes[n], {n: (self.point[n], 1)})
                                     for n in self.names]

    def normal_terms(self) -> Optional[list]:
        """The normal line's right side, f(a) - (x - a) / f'(a), as ``terms`` gives it; None
        when the normal is vertical (f'(a) = 0) or there are several variables."""
        if len(self.point) != 1:
            return None
        (x, a), = self.point.items()
        m = self.slopes[x]
        return None if m == 0 else [(self.value, {}), (-1.0 / m, {x: (a, 1)})]


def evaluate(target: Target, point: dict) -> Tangent:
    """f's value and first partials at ``point`` ({name: number}, every variable of the
    target, scalars), and the kink of an expression there; nothing is judged (inf and nan
    are returned as they are)."""
    names = list(point)
    row = np.array([[float(point[n]) for n in names]])
    kink = None
    if target.is_script:
        from .derivatives import values_of

        fn = target.batched(names, {n: None for n in names}, 1)
        arrays = [row[:, i] for i in range(len(names))]
        found = [values_of(fn, arrays, names, [n]) for n in names] or \
            [values_of(fn, arrays, names)]
    else:
        from ..expr.kinks import kink_at
        from .derivatives import values_at

        tree = target.trees[0]
        target.tree_shapes({n: None for n in names})
        found = [values_at(tree, names, row, [n]) for n in names] or [values_at(tree, names, row)]
        kink = kink_at(tree, point)
    value = float(found[0][0][0])
    # (+ 0.0: a zero slope that came out as -0.0 is printed as 0.0)
    slopes = {n: float(d[0]) + 0.0 for n, (_, d) in zip(names, found)}
    return Tangent(dict(point), value, slopes, kink)


def tangent(target: Target, point: dict) -> Tangent:
    """``evaluate``, refused (``CLIError``, exit 2) where f has no tangent: not defined, a
    partial not finite, or a kink or jump there."""
    found = evaluate(target, point)
    where = ", ".join(f"{n}={point[n]!r}" for n in point)
    source = target.source
    if not math.isfinite(found.value):
        raise CLIError(f"{source} is not defined at {where} (value {found.value!r}): no "
                       f"tangent")
    bad = [n for n, s in found.slopes.items() if not math.isfinite(s)]
    if bad:
        raise CLIError(f"{source} is not differentiable at {where} (d/d{bad[0]} is "
                       f"{found.slopes[bad[0]]!r}): no tangent")
    if found.kink is not None:
        raise CLIError(f"{source} is not differentiable at {where} ({found.kink} has a kink "
                       f"or jump there): no tangent")
    return found
