"""Property tests: random well-formed expressions, lowered to tape and differentiated in one
batch, agree with an independent NumPy evaluation and with mpmath's derivatives."""
from __future__ import annotations

import mpmath
import numpy as np
from hypothesis import assume, example, given, settings, strategies as st

from tape.calculus import derivatives
from tape.expr import parse as E, lower
from tape.calculus.derivatives import Component

# functions that are smooth and finite on the sampled region, with NumPy twins
SMOOTH = {"sin": np.sin, "cos": np.cos, "tanh": np.tanh, "atan": np.arctan,
          "sigmoid": lambda v: 1 / (1 + np.exp(-v)), "softplus": lambda v: np.log1p(np.exp(v)),
          "erf": None}
NUMPY = {"number": float, "pi": np.pi, "e": np.e, **SMOOTH}
# the same in mpmath, for a derivative reference computed at 30 digits
MPMATH = {"number": mpmath.mpf, "pi": mpmath.pi, "e": mpmath.e, "sin": mpmath.sin,
          "cos": mpmath.cos, "tanh": mpmath.tanh, "atan": mpmath.atan,
          "sigmoid": lambda v: 1 / (1 + mpmath.exp(-v)),
          "softplus": lambda v: mpmath.log(1 + mpmath.exp(v))}


def expressions():
    leaves = st.sampled_from(["x", "y", "2", "0.5", "pi", "3x", "2(y+1)"])

    def grow(children):
        binary = st.tuples(children, st.sampled_from(["+", "-", "*"]), children).map(
            lambda t: f"({t[0]} {t[1]} {t[2]})")
        call = st.tuples(st.sampled_from([n for n, f in SMOOTH.items() if f]), children).map(
            lambda t: f"{t[0]}({t[1]})")
        power = children.map(lambda c: f"({c})^2")
        return binary | call | power

    return st.recursive(leaves, grow, max_leaves=8)


def evaluate(tree, x, y, lib: dict):
    """``tree`` at (x, y) with the numbers, constants and functions of ``lib``."""
    def visit(node, kids):
        if isinstance(node, E.Number):
            return lib["number"](node.value)
        if isinstance(node, E.Constant):
            return lib[node.name]
        if isinstance(node, E.Variable):
            return {"x": x, "y": y}[node.name]
        if isinstance(node, E.Unary):
            return -kids[0]
        if isinstance(node, E.Binary):
            a, b = kids
            if node.op == "+":
                return a + b
            if node.op == "-":
                return a - b
            return a * b if node.op == "*" else a ** b
        return lib[node.name](kids[0])

    return E.fold(tree, visit)


def numpy_eval(tree, x, y):
    return evaluate(tree, x, y, NUMPY)


def mpmath_partials(tree, x: float, y: float) -> tuple[float, float]:
    """d/dx and d/dy of ``tree`` at (x, y), differentiated by mpmath at 30 significant digits:
    exact to float64 precision, unlike a float64 central difference whose error on a rapidly
    oscillating function (sin of a square of a square) exceeds any fixed tolerance."""
    with mpmath.workdps(30):
        point = (mpmath.mpf(x), mpmath.mpf(y))
        f = lambda a, b: evaluate(tree, a, b, MPMATH)  # noqa: E731
        return (float(mpmath.diff(f, point, (1, 0))), float(mpmath.diff(f, point, (0, 1))))


@settings(max_examples=60, deadline=None)
@given(expressions())
@example("sin(((pi * (2(y+1))^2))^2)")  # a float64 central difference is 1.6e-6 off here
def test_batched_gradients_match_mpmath(text):
    tree = E.parse(text)
    with np.errstate(all="ignore"):
        reference = numpy_eval(tree, np.linspace(-0.9, 0.8, 5), np.linspace(0.7, -0.6, 5))
    assume(np.all(np.abs(reference) < 1e6))        # keep to well-conditioned examples
    names = ["x", "y"]
    lower.check_shapes(tree, {"x": None, "y": None}, text)
    run = lower.to_tape(tree, names)
    xs = np.linspace(-0.9, 0.8, 5)
    ys = np.linspace(0.7, -0.6, 5)

    import tape

    def fn(a, b):
        out = run(tape.reshape(a, (-1, 1)), tape.reshape(b, (-1, 1)))
        return tape.reshape(out + tape.zeros((5, 1), dtype=tape.float64), (-1,))

    comps = [Component("x", 0, None), Component("y", 1, None)]
    value, parts = derivatives.partials(fn, [xs, ys], comps, 1)
    np.testing.assert_allclose(value, numpy_eval(tree, xs, ys) + 0 * xs, rtol=1e-12, atol=1e-12)
    dx, dy = np.array([mpmath_partials(tree, a, b) for a, b in zip(xs, ys)]).T
    # float64 evaluation of the chain rule: a few ulps per node, relative to the terms' size
    scale = 1 + np.abs(dx) + np.abs(dy)
    np.testing.assert_allclose(parts[(0,)], dx, rtol=1e-9, atol=1e-9 * scale.max())
    np.testing.assert_allclose(parts[(1,)], dy, rtol=1e-9, atol=1e-9 * scale.max())


_PIECES = ["x", "y", "v", "v[0]", "v[9]", "2", "0", "1e308", "-", "+", "*", "/", "^", "(", ")",
           "sin(", "log(", "sqrt(", "sum(", "dot(", "atan2(", ",", " ", "π", "2x", "'", ".",
           "[", "]", "__", "lambda", "e"]


@settings(max_examples=150, deadline=None)
@given(st.lists(st.sampled_from(_PIECES), min_size=1, max_size=12).map("".join),
       st.sampled_from(["grad", "hessian", "jacobian"]))
def test_the_cli_never_shows_a_traceback(text, command):
    from cli_helpers import tape_cli

    result = tape_cli(command, "--at", "x=0.5,y=-1,v=[1,2]", "--", text)
    assert result.exit_code in (0, 2), (text, result.stderr)
    for line in result.stderr.splitlines():
        assert line.startswith(("error:", "warning:", "note:")), (text, result.stderr)
