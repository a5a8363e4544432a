"""Points where an expression is not smooth: the kink of ``abs``/``relu`` at 0, a jump of
``sign``, ``floor``, ``ceil``, ``max``/``min`` where their arguments tie, ``norm`` at the zero
vector; and for ``--check`` also the vertical tangent of ``sqrt``, ``cbrt``, ``root`` and a
fractional power below 1 where their argument is 0 (``sqrt(x^2)`` is ``|x|``).

The engine differentiates such functions one-sidedly (``abs'(0) = 0``), which is right for
gradients but would make a tangent line or a Taylor polynomial there a wrong answer; the
commands that need smoothness ask ``kink_at`` first and refuse (exit 2). ``--check`` asks
``kink_mask`` which points lie on a kink: there tape's one-sided value and SymPy's convention
(``Heaviside(0) = 1/2``) may both be defensible, so a difference is reported as a point where f
may not be differentiable, not as a disagreement.

A point is on a kink when the argument is there to within its rounding error: ``sin(x)`` at
the float nearest pi is 1.2e-16, not 0, but pi itself was rounded to make that float, and
``|sin(x)|`` has its corner within that rounding. Each argument is evaluated with a
first-order running error bound (``_Bounds``): every input and every literal that is not a
whole number carries a relative error of ``EPS`` (it was rounded from what was typed), every
operation adds ``EPS * |its result|`` and passes its operands' bounds on through the absolute
values of its partial derivatives (written out for ``+ - * / **``; the function table's
derivative template for a call of one argument; the engine's gradient of the table's tape op
for the others). The bound follows the size of the terms, so ``abs(x)`` at 1e-300 (exact) or
``abs(x - 1)`` at 1.0000000001 is no kink.

A kink found here is a kink of one call inside the expression: the whole expression may still
be smooth there (``x*abs(x)`` at 0), so callers say "may not be differentiable".
"""
from __future__ import annotations

from typing import Callable, Iterator

import numpy as np

from . import tree as E

#: the relative rounding error of one correctly rounded float64 operation (half an ulp)
EPS = 2.0 ** -53
#: the first-order bound holds for correctly rounded operations on inputs rounded once; the
#: factor 2 makes room for NumPy's transcendental functions (within 1 ulp, not half), for an
#: input that was itself computed from what was typed (``0.1+0.2``: three roundings, 1.3 times
#: ``EPS * x``) and for the second-order terms the bound leaves out. It stays far below the
#: distance of a point typed a few ulps off a kink on purpose (``abs(x - 1)`` at 1+4e-16,
#: ``4 * EPS * x`` from 1 and twice its bound, is no kink).
SAFETY = 2.0

#: calls whose result is exact (no rounding of their own), so they add no ``EPS * |result|``
_EXACT = frozenset(("abs", "relu", "sign", "sgn", "floor", "ceil", "max", "min"))


# An overflowed argument has an infinite bound too: it is no kink (``abs(exp(x))`` at 800).
def _zero(a: list, b: list) -> np.ndarray:
    return (a[0] == 0) | (np.isfinite(a[0]) & (np.abs(a[0]) <= SAFETY * b[0]))


def _integer(a: list, b: list) -> np.ndarray:
    return np.isfinite(a[0]) & (np.abs(a[0] - np.rint(a[0])) <= SAFETY * b[0])


def _tie(a: list, b: list) -> np.ndarray:
    return (a[0] == a[1]) | (np.isfinite(a[0] - a[1])
                             & (np.abs(a[0] - a[1]) <= SAFETY * (b[0] + b[1])))


def _zero_vector(a: list, b: list) -> np.ndarray:
    """Every component within its rounding of 0: the zero vector is among the values the
    rounded argument may stand for."""
    near = _zero(a, b)
    return np.all(near, axis=-1) if a[0].ndim > 1 else near


def _root_at_zero(a: list, b: list) -> np.ndarray:
    """``root(x, n)`` is ``x^(1/n)``: a vertical tangent at x = 0 for n > 1."""
    return _zero(a, b) & (np.abs(a[1]) > 1)


#: functions that are not differentiable where ``at_kink(argument values, their rounding
#: bounds)`` is true (arrays of the batched layout: (N,) or (N, k))
KINKS: dict[str, Callable[[list, list], np.ndarray]] = {
    "abs": _zero,
    "relu": _zero,
    "sign": _zero,
    "sgn": _zero,
    "floor": _integer,
    "ceil": _integer,
    "max": _tie,
    "min": _tie,
    "norm": _zero_vector,
}
#: functions with a vertical tangent where ``at_vertical(argument values, bounds)`` is true; a
#: tangent or Taylor polynomial there is refused for its infinite slope, so only --check asks
#: for them
VERTICAL: dict[str, Callable[[list, list], np.ndarray]] = {
    "sqrt": _zero,
    "cbrt": _zero,
    "root": _root_at_zero,
}
#: what holds at a kink of each function, said of its arguments' texts, for a kink found only
#: to within rounding
_WHERE = {"abs": "{0} is 0", "relu": "{0} is 0", "sign": "{0} is 0", "sgn": "{0} is 0",
          "floor": "{0} is an integer", "ceil": "{0} is an integer", "max": "{0} and {1} tie",
          "min": "{0} and {1} tie", "norm": "{0} is the zero vector", "sqrt": "{0} is 0",
          "cbrt": "{0} is 0", "root": "{0} is 0", "**": "{0} is 0"}


def _zero_base_of_a_variable_power(a: list, b: list) -> np.ndarray:
    """``u^v`` with v varying: at u = 0 with v <= 1 there is no derivative (``x^x`` at 0 falls
    like x·ln x, with slope -inf from the right, and is 0^0 by convention only)."""
    return _zero(a, b) & (a[1] <= 1)


def _fractional_power_at_zero(a: list, b: list) -> np.ndarray:
    """``u^p`` with 0 < p < 1 not an integer: a vertical tangent at u = 0 (``(x^2)^(1/2)``)."""
    return _zero(a, b) & (a[1] > 0) & (a[1] < 1)


def _variable_power(node: E.Expr) -> bool:
    """``u^v`` with a variable in v (and in u: a constant base is smooth or constant)."""
    return (type(node) is E.Binary and node.op == "**" and bool(E.free_variables(node.right))
            and bool(E.free_variables(node.left)))


def _nodes(tree: E.Expr, vertical: bool
           ) -> Iterator[tuple[E.Expr, list[E.Expr], Callable]]:
    """Each non-smooth node with its arguments and kink test, outermost first (``vertical``:
    vertical tangents too)."""
    stack = [tree]
    while stack:
        node = stack.pop()
        stack.extend(reversed(E.children(node)))
        if isinstance(node, E.Call) and node.name in KINKS:
            yield node, list(node.args), KINKS[node.name]
        elif _variable_power(node):
            yield node, [node.left, node.right], _zero_base_of_a_variable_power
        elif not vertical:
            continue
        elif isinstance(node, E.Call) and node.name in VERTICAL:
            yield node, list(node.args), VERTICAL[node.name]
        elif isinstance(node, E.Binary) and node.op == "**":
            yield node, [node.left, node.right], _fractional_power_at_zero


class _Bounds:
    """Each sub-expression's values at the N points (as ``lower.to_tape`` computes them: the
    same tape ops) with a first-order bound on their rounding error, one NumPy array each;
    a sub-expression shared by several kinks is computed once."""

    def __init__(self, names: list[str], inputs: list[np.ndarray]) -> None:
        import tape

        self.tape, self.slopes = tape, _Slopes(tape)
        self.memo: dict[int, tuple] = {}
        self.variables = {name: (tape.constant(a), EPS * np.abs(a))
                          for name, a in zip(names, inputs)}

    def of(self, tree: E.Expr) -> tuple[np.ndarray, np.ndarray]:
        """``tree``'s values and their rounding bounds (>= 0, possibly inf)."""
        memo = self.memo
        results: list = []
        for node, n in E.postorder(tree):
            kids = results[len(results) - n:] if n else []
            if n:
                del results[len(results) - n:]
            key = id(node)      # the nodes live as long as the tree: their ids stay theirs
            if key not in memo:
                memo[key] = self._step(node, kids)
            results.append(memo[key])
        value, bound = results[0]
        return value.numpy(), np.asarray(bound, dtype=np.float64)

    def _step(self, node: E.Expr, kids: list) -> tuple:
        tape = self.tape
        if isinstance(node, E.Variable):
            return self.variables[node.name]
        if isinstance(node, (E.Number, E.Constant)):
            from .functions import CONSTANTS

            value = node.value if isinstance(node, E.Number) else CONSTANTS[node.name][0]
            whole = not np.isfinite(value) or (value == int(value) and abs(value) <= 2.0 ** 53)
            return tape.constant(np.float64(value)), 0.0 if whole else EPS * abs(value)
        if isinstance(node, E.Unary):
            value, bound = kids[0]
            return (-value if node.op == "-" else value), bound
        if isinstance(node, E.Index):
            (value, bound), i = kids[0], node.index
            cut = slice(i, i + 1 if i != -1 else None)
            return value[:, cut], (bound[:, cut] if np.ndim(bound) else bound)
        return self._operation(node, kids)

    def _operation(self, node: E.Expr, kids: list) -> tuple:
        """A Binary or Call node: its value, and its operands' bounds times the absolute
        partial derivatives plus its own rounding."""
        from .functions import FUNCTIONS

        tensors = [t for t, _ in kids]
        moving = [i for i, (_, b) in enumerate(kids)
                  if (b.any() if type(b) is np.ndarray else b)]
        if isinstance(node, E.Binary):
            value = _BINARY[node.op](*tensors)
            bound = self._passed(kids, moving, _binary_slopes(node.op, tensors, value, moving))
            return value, _rounded(bound, EPS, value.numpy())
        entry = FUNCTIONS[node.name]
        if not moving:
            value, bound = entry.tape(*tensors), 0.0
        elif entry.derivative is not None and len(tensors) == 1:
            value = entry.tape(*tensors)
            slope = entry.derivative(self.slopes, tensors[0])
            bound = self._passed(kids, moving, [slope.numpy() if hasattr(slope, "numpy")
                                                else slope])
        else:
            # the engine gives the total partial for a tensor watched twice: watch it once
            ids = [id(t) for t in tensors]
            moving = [i for i in moving if ids.index(ids[i]) == i]
            value, slopes = self._engine_slopes(entry.tape, tensors, moving)
            bound = self._passed(kids, moving, slopes)
            if entry.kind != "elementwise":     # the partials of a reduction, summed
                bound = np.sum(bound, axis=-1, keepdims=True) if np.ndim(bound) else bound
        if node.name in _EXACT:
            return value, bound
        if entry.kind != "elementwise":
            # a reduction over k components rounds up to k times, each time relative to the
            # partial results: bounded by k * EPS * (the function of the magnitudes)
            k = np.shape(tensors[0])[-1]
            size = entry.tape(*[self.tape.abs(t) for t in tensors]).numpy()
            return value, _rounded(bound, k * EPS, size)
        return value, _rounded(bound, EPS, value.numpy())

    def _engine_slopes(self, op: Callable, tensors: list, moving: list[int]) -> tuple:
        """``op(*tensors)`` and its partial derivatives in the ``moving`` operands by the
        engine (None where it has none: ``floor``), one per point and component."""
        tape = self.tape
        tensors = list(tensors)
        shape = np.broadcast_shapes(*(np.shape(t) for t in tensors))
        for i in moving:        # a broadcast operand's partial would be summed over points
            if np.shape(tensors[i]) != shape:
                tensors[i] = tape.broadcast_to(tensors[i], shape)
        with tape.GradientTape() as g:
            g.watch([tensors[i] for i in moving])
            value = op(*tensors)
        partials = g.gradient(value, [tensors[i] for i in moving])
        return value, [None if p is None else p.numpy() for p in partials]

    @staticmethod
    def _passed(kids: list, moving: list[int], slopes: list) -> np.ndarray | float:
        """The moving operands' bounds times their absolute partial derivatives, summed. An
        operand that is another's very tensor (``x*x``, ``x - x``) is one error, passed on
        through the sum of its partial derivatives."""
        total: dict[int, list] = {}
        for i, slope in zip(moving, slopes):
            if slope is not None:       # None: floor, ceil, sign, derivative 0
                key = id(kids[i][0])
                total[key] = [kids[i][1], total[key][1] + slope if key in total else slope]
        bound = None
        for error, slope in total.values():
            passed = np.multiply(np.abs(slope), error)
            # fmax takes 0 for nan: an operand known exactly passes nothing on, even through
            # an infinite slope (0*inf), and a nan slope (off the domain) has no first-order
            # term to give
            passed = np.fmax(passed, 0.0, out=passed if np.ndim(passed) else None)
            bound = passed if bound is None else _sum(bound, passed)
        return 0.0 if bound is None else bound


def _sum(bound, more):
    """``bound + more``, in place when ``bound`` is an array of the sum's shape (one this
    module made: never an input's or another node's)."""
    if type(bound) is np.ndarray and bound.shape == np.broadcast_shapes(bound.shape,
                                                                        np.shape(more)):
        return np.add(bound, more, out=bound)
    return bound + more


def _rounded(bound, eps: float, value: np.ndarray):
    """``bound + eps * |value|``."""
    own = np.abs(value)
    own *= eps
    return _sum(own, bound) if np.ndim(own) else own + bound


class _Slopes:
    """The builder the function table's derivative templates (``functions.Function``) are
    evaluated with here: on tape tensors, with the table's own functions."""

    number = staticmethod(float)
    add = staticmethod(lambda a, b: a + b)
    sub = staticmethod(lambda a, b: a - b)
    mul = staticmethod(lambda a, b: a * b)
    div = staticmethod(lambda a, b: a / b)
    neg = staticmethod(lambda a: -a)
    power = staticmethod(lambda base, k: base ** k)

    def __init__(self, tape) -> None:
        from .functions import FUNCTIONS

        self.functions, self.tape = FUNCTIONS, tape

    def call(self, name: str, *args):
        return self.functions[name].tape(*args)

    def sign(self, u):
        return self.tape.sign(u)


_BINARY: dict[str, Callable] = {
    "+": lambda a, b: a + b, "-": lambda a, b: a - b, "*": lambda a, b: a * b,
    "/": lambda a, b: a / b, "**": lambda a, b: a ** b,
}


def _binary_slopes(op: str, tensors: list, value, moving: list[int]) -> list:
    """The partial derivatives of ``a op b`` in the ``moving`` operands (0: a, 1: b)."""
    if not moving:
        return []
    a, b = (np.asarray(t.numpy()) for t in tensors)
    if op == "+":
        return [1.0 for _ in moving]
    if op == "-":
        return [1.0 if i == 0 else -1.0 for i in moving]
    if op == "*":
        return [b if i == 0 else a for i in moving]
    if op == "/":
        return [1.0 / b if i == 0 else -value.numpy() / b for i in moving]
    # a**b: b*a^(b-1) and a^b*log(a) (nan off the real domain: no first-order term)
    return [b * a ** (b - 1.0) if i == 0 else value.numpy() * np.log(a) for i in moving]


def _hits(tree: E.Expr, names: list[str], arrays: list[np.ndarray], vertical: bool
          ) -> Iterator[tuple[E.Expr, list[E.Expr], np.ndarray, np.ndarray]]:
    """Each non-smooth node of ``tree`` (outermost first) with its arguments, the (N,) mask
    of the points on its kink to within rounding and the mask of those exactly on it."""
    count = len(arrays[0]) if arrays else 1
    bounds = None
    for node, args, at_kink in _nodes(tree, vertical):
        if bounds is None:
            bounds = _Bounds(names, [np.asarray(a, dtype=np.float64) for a in arrays])
        with np.errstate(all="ignore"):
            values, errors = [], []
            for arg in args:
                value, error = bounds.of(arg)
                full = (count,) + value.shape[1:] if value.ndim else (count,)
                values.append(np.broadcast_to(value, full))
                errors.append(np.broadcast_to(error, full))
            if len(values) == 2 and values[0].ndim != values[1].ndim:  # a scalar and a vector
                values = [v if v.ndim > 1 else v[:, None] for v in values]
                errors = [e if e.ndim > 1 else e[:, None] for e in errors]
            hit = _per_point(at_kink(values, errors), count)
            exact = _per_point(at_kink(values, [0.0] * len(values)), count) if hit.any() \
                else hit
        yield node, args, hit, exact


def _per_point(hit, count: int) -> np.ndarray:
    hit = np.asarray(hit)
    return hit.reshape(count, -1).any(axis=1) if hit.ndim else np.full(count, bool(hit))


def kink_notes(trees: list[E.Expr], orders: list, names: list[str],
               arrays: list[np.ndarray]) -> list[str]:
    """A note for each call with a kink or jump at some of the N points (``abs`` at 0, ``floor``
    at an integer, ``max`` at a tie, each also to within rounding): the derivative may not
    exist there, and the number shown is the engine's one-sided value. Worded alike for every
    block of points, so that a stream says it once. ``orders``: each tree's postorder list when
    the reader made one (None otherwise), so a tree without such calls is not walked again."""
    from .printer import read_as

    notes: dict[str, None] = {}
    for tree, order in zip(trees, orders):
        found = (any(type(node) is E.Call and node.name in KINKS or _variable_power(node)
                     for node, _ in order)
                 if order is not None else next(_nodes(tree, False), None) is not None)
        if not found:
            continue
        named = None        # a point is named once, by its outermost call (as kink_mask does)
        for node, args, hit, exact in _hits(tree, names, arrays, vertical=False):
            new = hit if named is None else hit & ~named
            named = hit if named is None else named | hit
            if not new.any():
                continue
            call = _text(node, read_as)
            if type(node) is E.Binary:      # a zero base of a varying power
                notes[f"{call} has no derivative where {read_as(node.left)} is 0 (0 to a "
                      f"varying power of at most 1, as x^x at 0): what is shown there is the "
                      f"engine's convention (TensorFlow's), not a derivative"] = None
            elif (exact & new).any():
                notes[f"{call} has a kink or jump at some of the points asked for: the "
                      f"derivative may not exist there, and what is shown is the one-sided "
                      f"value (as TensorFlow gives it)"] = None
            else:
                notes[f"{call} has a kink or jump at some of the points asked for, to within "
                      f"rounding ({_where(node, args, read_as)} there up to the rounding "
                      f"error of its terms): the derivative may not exist there, and what is "
                      f"shown is the derivative on the side the rounded point lies"] = None
    return list(notes)


def kink_mask(tree: E.Expr, names: list[str], arrays: list[np.ndarray],
              vertical: bool = True) -> tuple[np.ndarray, list[str | None]]:
    """Which of N points lie on a kink of ``tree`` (to within rounding): ``(mask, which)``
    where ``mask[i]`` is true when point i does and ``which[i]`` names the call
    (``"relu(x)"``) or is None.

    ``arrays[j]`` holds variable ``names[j]`` at every point, (N,) or (N, k). ``vertical``:
    count vertical tangents (``sqrt`` at 0) as kinks too.
    """
    from .printer import read_as

    count = len(arrays[0]) if arrays else 1
    mask = np.zeros(count, dtype=bool)
    which: list[str | None] = [None] * count
    for node, _, hit, _ in _hits(tree, names, arrays, vertical):
        text = _text(node, read_as)
        for i in np.flatnonzero(hit & ~mask).tolist():
            which[i] = text
        mask |= hit
    return mask, which


def _text(node: E.Expr, read_as) -> str:
    if isinstance(node, E.Call):
        return f"{node.name}({', '.join(read_as(a) for a in node.args)})"
    return read_as(node)


def _where(node: E.Expr, args: list[E.Expr], read_as) -> str:
    """What holds at the kink of ``node``, in words: ``"sin(x) is 0"``."""
    key = node.name if isinstance(node, E.Call) else node.op
    return _WHERE[key].format(*(read_as(a) for a in args))


def kink_at(tree: E.Expr, point: dict[str, float]) -> str | None:
    """The first non-smooth call (as text, e.g. ``"abs(x - 1)"``) whose kink lies at
    ``point``, or None when the expression is smooth there as far as its functions go. A kink
    that is there only to within rounding is named with what holds there, as a clause
    (``"abs(sin(x)), where sin(x) is 0 to within rounding,"``), for a message that goes on
    "... has a kink or jump there"."""
    from .printer import read_as

    names = sorted(point)
    arrays = [np.array([point[n]], dtype=np.float64) for n in names]
    for node, args, hit, exact in _hits(tree, names, arrays, vertical=False):
        if hit[0]:
            text = _text(node, read_as)
            return text if exact[0] else \
                f"{text}, where {_where(node, args, read_as)} to within rounding,"
    return None
