"""Points where an expression is not smooth: the kink of ``abs``/``relu`` at 0, a jump of
``sign``, ``floor``, ``ceil``, and ``max``/``min`` where their arguments tie.

The engine differentiates such functions one-sidedly (``abs'(0) = 0``), which is right for
gradients but would make a tangent line or a Taylor polynomial there a wrong answer; the
commands that need smoothness ask ``kink_at`` first and refuse (exit 2).
"""
from __future__ import annotations

import numpy as np

from . import tree as E

#: functions that are not differentiable where ``at_kink(argument values)`` is true
KINKS = {
    "abs": lambda a: a[0] == 0,
    "relu": lambda a: a[0] == 0,
    "sign": lambda a: a[0] == 0,
    "sgn": lambda a: a[0] == 0,
    "floor": lambda a: float(a[0]).is_integer(),
    "ceil": lambda a: float(a[0]).is_integer(),
    "max": lambda a: len(a) == 2 and a[0] == a[1],
    "min": lambda a: len(a) == 2 and a[0] == a[1],
}


def kink_at(tree: E.Expr, point: dict[str, float]) -> str | None:
    """The first non-smooth call (as text, e.g. ``"abs(x - 1)"``) whose kink lies at
    ``point``, or None when the expression is smooth there as far as its functions go."""
    import tape

    from .expr import read_as
    from .lower import to_tape

    names = sorted(point)
    stack = [tree]
    while stack:
        node = stack.pop()
        stack.extend(E.children(node))
        if not (isinstance(node, E.Call) and node.name in KINKS):
            continue
        values = []
        with np.errstate(all="ignore"):
            for arg in node.args:
                fn = to_tape(arg, names)
                out = fn(*[tape.constant(np.array([[point[n]]])) for n in names])
                values.append(float(np.asarray(out.numpy()).reshape(-1)[0]))
        if KINKS[node.name](values):
            return f"{node.name}({', '.join(read_as(a) for a in node.args)})"
    return None
