"""Numerical gradient checks, first and second order, of every op in SPEC section 2.

Each case is a function of float64 tensors and arguments drawn from a domain where the op is
smooth; shapes exercise broadcasting ((), (3,), (2, 3), (1, 3) with (2, 1)) and reductions
exercise axis=None/0/1/-1/tuples and keepdims. Derivatives come from the tape (second order via
nested GradientTapes) and are compared with central differences (see _gradcheck.py).
"""
import numpy as np
import pytest

import tape
from _gradcheck import check

rng = np.random.default_rng(20261122)


# -- domains --------------------------------------------------------------------------------
def U(shape, lo, hi):
    return rng.uniform(lo, hi, shape)


def away(shape, gap=0.3, hi=2.0):
    """Values in [-hi, -gap] U [gap, hi]."""
    return rng.choice([-1.0, 1.0], size=shape) * rng.uniform(gap, hi, shape)


def distinct(shape, lo=-2.0, hi=2.0):
    """Values with gaps of at least (hi-lo)/(2n) between any two (for max/min/sort-like ops)."""
    n = int(np.prod(shape))
    vals = np.linspace(lo, hi, max(n, 1)) + rng.uniform(-0.1, 0.1, max(n, 1)) * (hi - lo) / (4 * max(n, 1))
    return rng.permutation(vals)[:n].reshape(shape)


def pair_apart(sx, sy, gap=0.2):
    """x, y whose broadcast differences are at least ``gap`` apart (for maximum/minimum)."""
    while True:
        x, y = U(sx, -2, 2), U(sy, -2, 2)
        if np.all(np.abs(np.subtract(x, y)) > gap):
            return x, y


def mod_pair(sx, sy):
    """x, y with x / y far from integers (mod is smooth there)."""
    while True:
        x, y = U(sx, -3, 3), U(sy, 0.7, 1.5) * rng.choice([-1, 1], size=sy)
        q = np.divide(x, y)
        frac = q - np.floor(q)
        if np.all((frac > 0.1) & (frac < 0.9)):
            return x, y


UNARY_SHAPES = [(), (3,), (2, 3)]
BINARY_SHAPES = [((), ()), ((3,), ()), ((), (2, 3)), ((2, 3), (3,)), ((1, 3), (2, 1)),
                 ((2, 3), (2, 3))]

# name -> (op, domain(shape) -> array)
UNARY = {
    "negative": (tape.negative, lambda s: U(s, -2, 2)),
    "abs": (tape.abs, lambda s: away(s)),
    "square": (tape.square, lambda s: U(s, -2, 2)),
    "sqrt": (tape.sqrt, lambda s: U(s, 0.5, 2)),
    "rsqrt": (tape.rsqrt, lambda s: U(s, 0.5, 2)),
    "reciprocal": (tape.reciprocal, lambda s: away(s, 0.5)),
    "exp": (tape.exp, lambda s: U(s, -1, 1)),
    "expm1": (tape.expm1, lambda s: U(s, -1, 1)),
    "log": (tape.log, lambda s: U(s, 0.5, 2)),
    "log1p": (tape.log1p, lambda s: U(s, -0.5, 1)),
    "sin": (tape.sin, lambda s: U(s, -2, 2)),
    "cos": (tape.cos, lambda s: U(s, -2, 2)),
    "tan": (tape.tan, lambda s: U(s, -1.2, 1.2)),
    "asin": (tape.asin, lambda s: U(s, -0.8, 0.8)),
    "acos": (tape.acos, lambda s: U(s, -0.8, 0.8)),
    "atan": (tape.atan, lambda s: U(s, -2, 2)),
    "sinh": (tape.sinh, lambda s: U(s, -2, 2)),
    "cosh": (tape.cosh, lambda s: U(s, -2, 2)),
    "tanh": (tape.tanh, lambda s: U(s, -2, 2)),
    "asinh": (tape.asinh, lambda s: U(s, -2, 2)),
    "acosh": (tape.acosh, lambda s: U(s, 1.2, 3)),
    "atanh": (tape.atanh, lambda s: U(s, -0.8, 0.8)),
    "sigmoid": (tape.sigmoid, lambda s: U(s, -3, 3)),
    "softplus": (tape.softplus, lambda s: U(s, -3, 3)),
    "erf": (tape.erf, lambda s: U(s, -2, 2)),
    "nn.relu": (tape.nn.relu, lambda s: away(s)),
    "nn.sigmoid": (tape.nn.sigmoid, lambda s: U(s, -3, 3)),
    "nn.softplus": (tape.nn.softplus, lambda s: U(s, -3, 3)),
}


@pytest.mark.parametrize("shape", UNARY_SHAPES, ids=str)
@pytest.mark.parametrize("name", sorted(UNARY))
def test_unary(name, shape):
    op, domain = UNARY[name]
    check(op, [domain(shape)], order=2, label=name)


@pytest.mark.parametrize("name", [n for n in sorted(UNARY) if "." not in n])
def test_unary_also_under_tape_math(name):
    assert getattr(tape.math, name) is getattr(tape, name)


# name -> (op, domain(sx, sy) -> (x, y))
BINARY = {
    "add": (tape.add, lambda sx, sy: (U(sx, -2, 2), U(sy, -2, 2))),
    "subtract": (tape.subtract, lambda sx, sy: (U(sx, -2, 2), U(sy, -2, 2))),
    "multiply": (tape.multiply, lambda sx, sy: (U(sx, -2, 2), U(sy, -2, 2))),
    "divide": (tape.divide, lambda sx, sy: (U(sx, -2, 2), away(sy, 0.5))),
    "truediv": (tape.truediv, lambda sx, sy: (U(sx, -2, 2), away(sy, 0.5))),
    "pow": (tape.pow, lambda sx, sy: (U(sx, 0.5, 2), U(sy, -2, 2))),
    "mod": (tape.mod, mod_pair),
    "atan2": (tape.atan2, lambda sx, sy: (U(sx, -2, 2), away(sy, 0.5))),
    "maximum": (tape.maximum, pair_apart),
    "minimum": (tape.minimum, pair_apart),
}


@pytest.mark.parametrize("shapes", BINARY_SHAPES, ids=str)
@pytest.mark.parametrize("name", sorted(BINARY))
def test_binary(name, shapes):
    op, domain = BINARY[name]
    check(op, list(domain(*shapes)), order=2, label=name)


@pytest.mark.parametrize("name", sorted(BINARY))
def test_binary_also_under_tape_math(name):
    assert getattr(tape.math, name) is getattr(tape, name)


def test_pow_of_negative_base_with_integer_exponent():
    x = U((2, 3), -2, -0.5)
    check(lambda a: tape.pow(a, 3.0), [x], label="pow(neg, 3)")
    check(lambda a: a ** 2, [x], label="neg ** 2")


def test_pow_scalar_exponents():
    x = U((3,), 0.5, 2)
    check(lambda a: a ** 0.5, [x])
    check(lambda a: a ** -1.5, [x])
    check(lambda a: 2.0 ** a, [x], label="rpow")


# -- Python operators -----------------------------------------------------------------------
OPERATORS = {
    "+": lambda a, b: a + b,
    "-": lambda a, b: a - b,
    "*": lambda a, b: a * b,
    "/": lambda a, b: a / b,
    "%": lambda a, b: a % b,
    "**": lambda a, b: a ** b,
}


@pytest.mark.parametrize("sym", sorted(OPERATORS))
def test_python_operators(sym):
    sx, sy = (2, 3), (3,)
    if sym == "%":
        x, y = mod_pair(sx, sy)
    elif sym == "**":
        x, y = U(sx, 0.5, 2), U(sy, -2, 2)
    else:
        x, y = U(sx, -2, 2), away(sy, 0.5)
    check(OPERATORS[sym], [x, y], label=sym)
    # with a Python number on either side
    check(lambda a: OPERATORS[sym](a, 1.7), [x], label=f"x {sym} 1.7")
    if sym not in ("%", "**"):
        check(lambda a: OPERATORS[sym](1.7, a), [y], label=f"1.7 {sym} y")


def test_unary_operators():
    x = away((2, 3))
    check(lambda a: -a, [x])
    check(lambda a: abs(a), [x])
    check(lambda a: +a * 1.0, [x])


def test_matmul_operator():
    check(lambda a, b: a @ b, [U((2, 3), -1, 1), U((3, 4), -1, 1)])


# -- piecewise constant ops: no gradient --------------------------------------------------
NO_GRADIENT = {
    "sign": lambda x: tape.sign(x),
    "floor": lambda x: tape.floor(x),
    "ceil": lambda x: tape.ceil(x),
    "round": lambda x: tape.round(x),
    "floordiv": lambda x: tape.floordiv(x, 0.7),
    "//": lambda x: x // 0.7,
}


@pytest.mark.parametrize("name", sorted(NO_GRADIENT))
def test_piecewise_constant_ops_have_no_gradient(name):
    x = tape.constant(away((2, 3)) * 1.37)
    with tape.GradientTape(persistent=True) as t:
        t.watch(x)
        y = NO_GRADIENT[name](x)
        z = x * y           # inside a larger expression: zero contribution through y
    assert t.gradient(y, x) is None
    np.testing.assert_allclose(t.gradient(z, x).numpy(), y.numpy(), rtol=1e-12)
    np.testing.assert_array_equal(
        t.gradient(y, x, unconnected_gradients=tape.UnconnectedGradients.ZERO).numpy(),
        np.zeros((2, 3)))


def test_floordiv_gradient_to_divisor_is_none():
    x, d = tape.constant([1.3, 2.7]), tape.constant(0.6)
    with tape.GradientTape() as t:
        t.watch([x, d])
        y = tape.floordiv(x, d)
    assert t.gradient(y, [x, d]) == [None, None]


def test_mod_gradient_closed_form():
    x, y = mod_pair((4,), (4,))
    tx, ty = tape.constant(x), tape.constant(y)
    with tape.GradientTape() as t:
        t.watch([tx, ty])
        z = tape.mod(tx, ty)
    gx, gy = t.gradient(z, [tx, ty])
    np.testing.assert_allclose(gx.numpy(), np.ones(4))
    np.testing.assert_allclose(gy.numpy(), -np.floor(x / y))


# -- reductions -----------------------------------------------------------------------------
REDUCTIONS = {
    "reduce_sum": (tape.reduce_sum, lambda s: U(s, -2, 2)),
    "reduce_mean": (tape.reduce_mean, lambda s: U(s, -2, 2)),
    "reduce_max": (tape.reduce_max, distinct),
    "reduce_min": (tape.reduce_min, distinct),
    "reduce_prod": (tape.reduce_prod, lambda s: U(s, 0.5, 1.5) * rng.choice([-1, 1], size=s)),
    "reduce_logsumexp": (tape.reduce_logsumexp, lambda s: U(s, -2, 2)),
}
AXES = [((2, 3), None), ((2, 3), 0), ((2, 3), 1), ((2, 3), -1), ((2, 3), (0, 1)), ((2, 3), [0]),
        ((3,), None), ((3,), 0), ((), None), ((2, 3, 2), (0, 2)), ((2, 3, 2), 1)]


@pytest.mark.parametrize("keepdims", [False, True])
@pytest.mark.parametrize("shape, axis", AXES, ids=str)
@pytest.mark.parametrize("name", sorted(REDUCTIONS))
def test_reduction(name, shape, axis, keepdims):
    op, domain = REDUCTIONS[name]
    x = domain(shape)
    out = op(tape.constant(x), axis=axis, keepdims=keepdims)
    ref = {"reduce_sum": np.sum, "reduce_mean": np.mean, "reduce_max": np.max,
           "reduce_min": np.min, "reduce_prod": np.prod}.get(name)
    np_axis = tuple(axis) if isinstance(axis, list) else axis
    if ref is not None:
        np.testing.assert_allclose(out.numpy(), ref(x, axis=np_axis, keepdims=keepdims), rtol=1e-12)
    else:
        m = np.max(x, axis=np_axis, keepdims=True)
        want = np.log(np.sum(np.exp(x - m), axis=np_axis, keepdims=True)) + m
        if not keepdims:
            want = np.squeeze(want, axis=np_axis) if np_axis is not None else want.reshape(())
        np.testing.assert_allclose(out.numpy(), want, rtol=1e-12)
    check(lambda a: op(a, axis=axis, keepdims=keepdims), [x], label=f"{name}(axis={axis})")


@pytest.mark.parametrize("name", sorted(REDUCTIONS))
def test_reductions_also_under_tape_math(name):
    assert getattr(tape.math, name) is getattr(tape, name)


def test_reduce_prod_with_a_zero():
    x = np.array([[0.0, 1.5, -2.0], [0.7, 0.0, 1.2]])
    check(lambda a: tape.reduce_prod(a), [x], label="prod, zeros")
    check(lambda a: tape.reduce_prod(a, axis=1), [x], label="prod axis 1, zeros")
    y = np.array([0.0, 1.5, -2.0])
    t = tape.constant(y)
    with tape.GradientTape() as g:
        g.watch(t)
        p = tape.reduce_prod(t)
    np.testing.assert_allclose(g.gradient(p, t).numpy(), [-3.0, 0.0, 0.0])


def test_reduce_logsumexp_is_stable():
    x = tape.constant([1000.0, 1000.0])
    with tape.GradientTape() as g:
        g.watch(x)
        y = tape.reduce_logsumexp(x)
    np.testing.assert_allclose(y.numpy(), 1000.0 + np.log(2.0))
    np.testing.assert_allclose(g.gradient(y, x).numpy(), [0.5, 0.5])


@pytest.mark.parametrize("axis", [-1, 0, 1])
@pytest.mark.parametrize("name", ["softmax", "log_softmax"])
def test_softmax(name, axis):
    op = getattr(tape.nn, name)
    x = U((2, 3), -2, 2)
    check(lambda a: op(a, axis=axis), [x], label=f"{name}(axis={axis})")
    e = np.exp(x - x.max(axis=axis, keepdims=True))
    sm = e / e.sum(axis=axis, keepdims=True)
    want = sm if name == "softmax" else np.log(sm)
    np.testing.assert_allclose(op(tape.constant(x), axis=axis).numpy(), want, rtol=1e-12)


def test_softmax_default_axis_and_vector():
    check(tape.nn.softmax, [U((2, 3), -2, 2)])
    check(tape.nn.log_softmax, [U((4,), -2, 2)])


# -- shape and indexing ---------------------------------------------------------------------
X23 = U((2, 3), -2, 2)
SHAPE_OPS = {
    "reshape(3,2)": (lambda a: tape.reshape(a, (3, 2)), [(2, 3)]),
    "reshape(-1)": (lambda a: tape.reshape(a, [-1]), [(2, 3)]),
    "reshape(1,6,1)": (lambda a: tape.reshape(a, (1, 6, 1)), [(2, 3)]),
    "transpose": (lambda a: tape.transpose(a), [(2, 3)]),
    "transpose(perm)": (lambda a: tape.transpose(a, perm=[2, 0, 1]), [(2, 3, 4)]),
    "expand_dims(0)": (lambda a: tape.expand_dims(a, 0), [(2, 3)]),
    "expand_dims(-1)": (lambda a: tape.expand_dims(a, -1), [(3,)]),
    "squeeze": (lambda a: tape.squeeze(a), [(1, 3, 1)]),
    "squeeze(axis)": (lambda a: tape.squeeze(a, axis=0), [(1, 3, 1)]),
    "concat(0)": (lambda a, b: tape.concat([a, b], axis=0), [(2, 3), (1, 3)]),
    "concat(1)": (lambda a, b: tape.concat([a, b, a], axis=1), [(2, 3), (2, 1)]),
    "concat(-1)": (lambda a, b: tape.concat([a, b], -1), [(2, 3), (2, 2)]),
    "stack(0)": (lambda a, b: tape.stack([a, b, a]), [(2, 3), (2, 3)]),
    "stack(1)": (lambda a, b: tape.stack([a, b], axis=1), [(2, 3), (2, 3)]),
    "stack(-1) scalars": (lambda a, b: tape.stack([a, b], axis=-1), [(), ()]),
    "unstack(0)": (lambda a: sum(u * (i + 1.0) for i, u in enumerate(tape.unstack(a))), [(2, 3)]),
    "unstack(1)": (lambda a: tape.stack(tape.unstack(a, axis=1)[::-1]), [(2, 3)]),
    "tile": (lambda a: tape.tile(a, [2, 3]), [(2, 3)]),
    "tile(1,2)": (lambda a: tape.tile(a, [1, 2]), [(1, 3)]),
    "broadcast_to": (lambda a: tape.broadcast_to(a, (4, 2, 3)), [(3,)]),
    "broadcast_to(1,3)": (lambda a: tape.broadcast_to(a, (2, 3)), [(1, 3)]),
    "broadcast_to(2,1)": (lambda a: tape.broadcast_to(a, (2, 3)), [(2, 1)]),
    "gather(0)": (lambda a: tape.gather(a, [1, 0, 1]), [(2, 3)]),
    "gather(1)": (lambda a: tape.gather(a, [2, 2, 0], axis=1), [(2, 3)]),
    "gather(tensor idx)": (lambda a: tape.gather(a, tape.constant([[0, 2], [2, 2]])), [(3,)]),
    "gather_nd": (lambda a: tape.gather_nd(a, [[1, 1], [0, 2], [1, 1]]), [(2, 3)]),
    "gather_nd rows": (lambda a: tape.gather_nd(a, [[1], [1], [0]]), [(2, 3)]),
    "x[i, 1:3]": (lambda a: a[1, 1:3], [(2, 3)]),
    "x[0]": (lambda a: a[0], [(2, 3)]),
    "x[-1]": (lambda a: a[-1], [(3,)]),
    "x[:, ::-1]": (lambda a: a[:, ::-1], [(2, 3)]),
    "x[..., None]": (lambda a: a[..., None], [(2, 3)]),
    "x[:, 1]": (lambda a: a[:, 1], [(2, 3)]),
    "x[::2]": (lambda a: a[::2], [(5,)]),
    "x[1:, :2] repeated": (lambda a: a[1:, :2] + a[1:, 1:] * a[1:, :2], [(3, 3)]),
    "iteration": (lambda a: sum(r * r for r in a), [(3, 2)]),
}


@pytest.mark.parametrize("name", sorted(SHAPE_OPS))
def test_shape_op(name):
    op, shapes = SHAPE_OPS[name]
    check(op, [U(s, -2, 2) for s in shapes], label=name)


def test_shape_ops_forward_values():
    x = np.arange(6.0).reshape(2, 3)
    t = tape.constant(x)
    np.testing.assert_array_equal(tape.gather(t, [2, 2, 0], axis=1).numpy(), x[:, [2, 2, 0]])
    np.testing.assert_array_equal(tape.gather_nd(t, [[1, 1], [0, 2]]).numpy(), [4.0, 2.0])
    np.testing.assert_array_equal(t[1, 1:3].numpy(), [4.0, 5.0])
    np.testing.assert_array_equal(tape.tile(t, [1, 2]).numpy(), np.tile(x, (1, 2)))
    assert [u.numpy().tolist() for u in tape.unstack(t, axis=1)] == [[0, 3], [1, 4], [2, 5]]


@pytest.mark.parametrize("shapes", [((2, 3), (2, 3), (2, 3)), ((2, 3), (3,), ()),
                                    ((2, 1), (1, 3), (2, 3))], ids=str)
def test_where(shapes):
    sc, sx, sy = shapes
    cond = tape.constant(rng.uniform(size=sc) > 0.5)
    check(lambda a, b: tape.where(cond, a, b), [U(sx, -2, 2), U(sy, -2, 2)], label="where")


def test_where_gradient_closed_form():
    cond = tape.constant([True, False, True])
    x, y = tape.constant([1.0, 2.0, 3.0]), tape.constant([4.0, 5.0, 6.0])
    with tape.GradientTape() as t:
        t.watch([x, y])
        z = tape.where(cond, x, y)
    gx, gy = t.gradient(z, [x, y])
    np.testing.assert_array_equal(gx.numpy(), [1.0, 0.0, 1.0])
    np.testing.assert_array_equal(gy.numpy(), [0.0, 1.0, 0.0])


def test_clip_by_value():
    x = away((2, 3), gap=0.1, hi=1.5) + 0.0
    x = np.where(np.abs(np.abs(x) - 0.5) < 0.1, x * 1.5, x)     # away from the bounds too
    check(lambda a: tape.clip_by_value(a, -0.5, 0.5), [x], label="clip")
    t = tape.constant(x)
    with tape.GradientTape() as g:
        g.watch(t)
        y = tape.clip_by_value(t, -0.5, 0.5)
    np.testing.assert_array_equal(g.gradient(y, t).numpy(), (np.abs(x) < 0.5).astype(float))


# -- creation -------------------------------------------------------------------------------
def test_fill_gradient_to_value():
    check(lambda v: tape.fill([2, 3], v), [np.array(0.7)], label="fill")


def test_linspace_gradient_to_endpoints():
    check(lambda a, b: tape.linspace(a, b, 5), [np.array(-1.0), np.array(2.0)], label="linspace")


@pytest.mark.parametrize("name", ["zeros_like", "ones_like"])
def test_like_ops_do_not_depend_on_values(name):
    op = getattr(tape, name)
    x = tape.constant(X23)
    with tape.GradientTape(persistent=True) as t:
        t.watch(x)
        y = op(x)
        z = x * y + y
    g = t.gradient(y, x)
    assert g is None or not np.any(g.numpy())
    np.testing.assert_array_equal(t.gradient(z, x).numpy(), y.numpy())


def test_creation_ops_inside_differentiated_expressions():
    x = U((3, 3), -2, 2)
    check(lambda a: a * tape.eye(3) + tape.ones((3, 3)) * a, [x], label="eye/ones")
    check(lambda a: a * tape.one_hot([0, 2, 1], 3), [x], label="one_hot")
    check(lambda a: a * tape.cast(tape.range(3), tape.float64) + tape.zeros((3,)), [x[0]],
          label="range/zeros")
    check(lambda a: a * tape.linspace(0.0, 1.0, 3), [x[0]], label="linspace const")


def test_creation_dtypes():
    assert tape.zeros((2,)).dtype == tape.float64
    assert tape.ones((2,)).dtype == tape.float64
    assert tape.fill((2,), 1.5).dtype == tape.float64
    assert tape.linspace(0.0, 1.0, 3).dtype == tape.float64
    assert tape.eye(2).dtype == tape.float64
    assert tape.random.normal((2,)).dtype == tape.float64
    assert tape.random.uniform((2,)).dtype == tape.float64
    assert tape.range(3).dtype == tape.int64
    assert tape.zeros_like(tape.constant([1, 2])).dtype == tape.int64


def test_random_is_seeded_and_reproducible():
    tape.random.set_seed(11)
    a = tape.random.normal((3, 2)).numpy()
    b = tape.random.uniform((4,), minval=-1.0, maxval=2.0).numpy()
    tape.random.set_seed(11)
    np.testing.assert_array_equal(tape.random.normal((3, 2)).numpy(), a)
    np.testing.assert_array_equal(tape.random.uniform((4,), minval=-1.0, maxval=2.0).numpy(), b)
    assert np.all((b >= -1.0) & (b < 2.0))
    assert not np.array_equal(tape.random.normal((3, 2)).numpy(), a)


# -- linear algebra -------------------------------------------------------------------------
def _well_conditioned(shape):
    n = shape[-1]
    return np.eye(n) * 2.0 + U(shape, -0.4, 0.4)


LINALG = {
    "matmul": (lambda a, b: tape.matmul(a, b), [U((2, 3), -1, 1), U((3, 4), -1, 1)]),
    "matmul batched": (lambda a, b: tape.matmul(a, b), [U((2, 2, 3), -1, 1), U((2, 3, 4), -1, 1)]),
    "matmul broadcast batch": (lambda a, b: tape.matmul(a, b), [U((2, 2, 3), -1, 1), U((3, 4), -1, 1)]),
    "matmul broadcast batch 1": (lambda a, b: tape.matmul(a, b), [U((1, 2, 3), -1, 1), U((2, 3, 4), -1, 1)]),
    "matmul transpose_a": (lambda a, b: tape.matmul(a, b, transpose_a=True), [U((3, 2), -1, 1), U((3, 4), -1, 1)]),
    "matmul transpose_b": (lambda a, b: tape.matmul(a, b, transpose_b=True), [U((2, 3), -1, 1), U((4, 3), -1, 1)]),
    "matmul same arg": (lambda a: tape.matmul(a, a), [U((3, 3), -1, 1)]),
    "linalg.inv": (lambda a: tape.linalg.inv(a), [_well_conditioned((3, 3))]),
    "linalg.inv batched": (lambda a: tape.linalg.inv(a), [_well_conditioned((2, 3, 3))]),
    "linalg.det": (lambda a: tape.linalg.det(a), [_well_conditioned((3, 3))]),
    "linalg.det batched": (lambda a: tape.linalg.det(a), [_well_conditioned((2, 2, 2))]),
    "linalg.solve": (lambda a, b: tape.linalg.solve(a, b), [_well_conditioned((3, 3)), U((3, 2), -1, 1)]),
    "linalg.solve batched": (lambda a, b: tape.linalg.solve(a, b), [_well_conditioned((2, 3, 3)), U((2, 3, 1), -1, 1)]),
    "linalg.trace": (lambda a: tape.linalg.trace(a), [U((3, 3), -1, 1)]),
    "linalg.trace batched": (lambda a: tape.linalg.trace(a), [U((2, 3, 3), -1, 1)]),
    "linalg.norm": (lambda a: tape.linalg.norm(a), [away((2, 3))]),
    "linalg.norm vector": (lambda a: tape.linalg.norm(a), [away((3,))]),
    "linalg.norm axis 0": (lambda a: tape.linalg.norm(a, axis=0), [away((2, 3))]),
    "linalg.norm axis 1 keepdims": (lambda a: tape.linalg.norm(a, axis=1, keepdims=True), [away((2, 3))]),
    "tensordot 1": (lambda a, b: tape.tensordot(a, b, axes=1), [U((2, 3), -1, 1), U((3, 4), -1, 1)]),
    "tensordot pairs": (lambda a, b: tape.tensordot(a, b, axes=[[0, 2], [1, 0]]), [U((2, 3, 4), -1, 1), U((4, 2, 5), -1, 1)]),
    "tensordot 0": (lambda a, b: tape.tensordot(a, b, axes=0), [U((2,), -1, 1), U((3,), -1, 1)]),
    "tensordot 2": (lambda a, b: tape.tensordot(a, b, axes=2), [U((2, 3), -1, 1), U((2, 3), -1, 1)]),
    "einsum ij,jk->ik": (lambda a, b: tape.einsum("ij,jk->ik", a, b), [U((2, 3), -1, 1), U((3, 4), -1, 1)]),
    "einsum i,i->": (lambda a, b: tape.einsum("i,i->", a, b), [U((3,), -1, 1), U((3,), -1, 1)]),
    "einsum ii->": (lambda a: tape.einsum("ii->", a), [U((3, 3), -1, 1)]),
    "einsum ii->i": (lambda a: tape.einsum("ii->i", a), [U((3, 3), -1, 1)]),
    "einsum ij->ji": (lambda a: tape.einsum("ij->ji", a), [U((2, 3), -1, 1)]),
    "einsum bij,bjk->bik": (lambda a, b: tape.einsum("bij,bjk->bik", a, b), [U((2, 2, 3), -1, 1), U((2, 3, 2), -1, 1)]),
    "einsum ij,ij,ij->i": (lambda a, b: tape.einsum("ij,ij,ij->i", a, b, a), [U((2, 3), -1, 1), U((2, 3), -1, 1)]),
    "einsum implicit ij,jk": (lambda a, b: tape.einsum("ij,jk", a, b), [U((2, 3), -1, 1), U((3, 4), -1, 1)]),
    "einsum i,j->ij": (lambda a, b: tape.einsum("i,j->ij", a, b), [U((2,), -1, 1), U((3,), -1, 1)]),
}


@pytest.mark.parametrize("name", sorted(LINALG))
def test_linalg(name):
    op, args = LINALG[name]
    check(op, args, label=name)


def test_linalg_forward_values():
    a = _well_conditioned((3, 3))
    b = U((3, 2), -1, 1)
    t = tape.constant(a)
    np.testing.assert_allclose(tape.linalg.inv(t).numpy(), np.linalg.inv(a), rtol=1e-10)
    np.testing.assert_allclose(tape.linalg.det(t).numpy(), np.linalg.det(a), rtol=1e-10)
    np.testing.assert_allclose(tape.linalg.solve(t, tape.constant(b)).numpy(), np.linalg.solve(a, b), rtol=1e-10)
    np.testing.assert_allclose(tape.linalg.trace(t).numpy(), np.trace(a), rtol=1e-12)
    np.testing.assert_allclose(tape.linalg.norm(t).numpy(), np.linalg.norm(a), rtol=1e-12)
    np.testing.assert_allclose(tape.einsum("ij,jk->ik", t, tape.constant(b)).numpy(), a @ b, rtol=1e-12)


def test_linalg_only_under_tape_linalg():
    for name in ["inv", "det", "solve", "trace", "norm"]:
        assert hasattr(tape.linalg, name)
    for name in ["matmul", "tensordot", "einsum"]:
        assert hasattr(tape, name)


# -- comparisons and logic: no gradient ---------------------------------------------------
COMPARISONS = ["less", "less_equal", "greater", "greater_equal", "equal", "not_equal"]


@pytest.mark.parametrize("name", COMPARISONS)
def test_comparison_has_no_gradient(name):
    x = tape.constant([0.5, 1.5, 2.5])
    y = tape.constant(1.5)
    with tape.GradientTape(persistent=True) as t:
        t.watch([x, y])
        c = getattr(tape, name)(x, y)
        z = tape.where(c, x * x, y * x)
    assert c.dtype == tape.bool
    want = getattr(np, name)(x.numpy(), y.numpy())
    np.testing.assert_array_equal(c.numpy(), want)
    with pytest.warns(UserWarning, match="bool"):
        g = t.gradient(c, [x, y])     # a bool target is not differentiable
    assert g == [None, None]
    gx = t.gradient(z, x).numpy()
    np.testing.assert_allclose(gx, np.where(want, 2 * x.numpy(), 1.5))


def test_python_comparisons_give_bool_tensors():
    x = tape.constant([0.5, 1.5])
    for res, want in [(x < 1.0, [True, False]), (x <= 0.5, [True, False]), (x > 1.0, [False, True]),
                      (x >= 1.5, [False, True])]:
        assert isinstance(res, tape.Tensor) and res.dtype == tape.bool
        assert res.numpy().tolist() == want


def test_logic_ops():
    a = tape.constant([True, True, False, False])
    b = tape.constant([True, False, True, False])
    assert tape.logical_and(a, b).numpy().tolist() == [True, False, False, False]
    assert tape.logical_or(a, b).numpy().tolist() == [True, True, True, False]
    assert tape.logical_not(a).numpy().tolist() == [False, False, True, True]


# -- control flow, function, stop_gradient, custom_gradient, cast ---------------------------
def test_cond_gradient():
    def f(a):
        return tape.cond(tape.reduce_sum(a) > 0, lambda: tape.sin(a) * a, lambda: a ** 3)
    check(f, [U((3,), 0.2, 1)], label="cond true")
    check(f, [U((3,), -1, -0.2)], label="cond false")


def test_cond_runs_only_the_chosen_branch():
    ran = []
    tape.cond(tape.constant(True), lambda: ran.append("t") or tape.constant(1.0),
              lambda: ran.append("f") or tape.constant(2.0))
    assert ran == ["t"]


def test_while_loop_gradient():
    def f(a):
        i0 = tape.constant(0)
        _, out = tape.while_loop(lambda i, x: i < 3, lambda i, x: (i + 1, x * x), (i0, a))
        return out          # a ** 8
    check(f, [U((2,), 0.6, 1.1)], label="while_loop")


def test_while_loop_maximum_iterations_and_structure():
    out = tape.while_loop(lambda i: i < 100, lambda i: [i + 1], [tape.constant(0)],
                          maximum_iterations=5)
    assert isinstance(out, list) and int(out[0]) == 5


def test_python_loops_and_branches_are_recorded():
    def f(a):
        y = a
        for k in range(3):
            if k % 2 == 0:
                y = y * a
            else:
                y = tape.sin(y)
        return y
    check(f, [U((3,), -1, 1)], label="python control flow")


def test_function_decorator_gradient():
    @tape.function
    def f(a, b):
        return tape.exp(a) * b + a @ tape.transpose(b)

    check(f, [U((2, 2), -1, 1), U((2, 2), -1, 1)], label="function")
    # calling again with another shape gives consistent results
    check(f, [U((3, 3), -1, 1), U((3, 3), -1, 1)], label="function retrace")


def test_stop_gradient():
    x = tape.constant(U((3,), -1, 1))
    with tape.GradientTape() as t:
        t.watch(x)
        y = x * tape.stop_gradient(x * x)
    np.testing.assert_allclose(t.gradient(y, x).numpy(), x.numpy() ** 2, rtol=1e-12)
    with tape.GradientTape() as t:
        t.watch(x)
        y = tape.stop_gradient(x * 2.0)
    assert t.gradient(y, x) is None


def test_custom_gradient_first_order():
    @tape.custom_gradient
    def log1pexp(x):
        e = tape.exp(x)

        def grad(upstream):
            return upstream * (1 - 1 / (1 + e))
        return tape.math.log(1 + e), grad

    # first order only: grad uses `e` from the forward pass, which (as in TensorFlow) is
    # computed unrecorded inside the custom_gradient function
    check(log1pexp, [U((3,), -2, 2)], order=1, label="custom_gradient")
    x = tape.constant(100.0)
    with tape.GradientTape() as t:
        t.watch(x)
        y = log1pexp(x)
    assert float(t.gradient(y, x)) == pytest.approx(1.0)


def test_custom_gradient_second_order_through_grad_fn():
    # grad_fn written with differentiable ops on the input: an outer tape differentiates it
    @tape.custom_gradient
    def softplus(x):
        def grad(upstream):
            return upstream * tape.sigmoid(x)
        return tape.math.log(1 + tape.exp(x)), grad

    check(softplus, [U((3,), -2, 2)], order=2, label="custom_gradient 2nd order")


def test_custom_gradient_is_used_instead_of_the_real_one():
    @tape.custom_gradient
    def clip_grad(x):
        def grad(dy):
            return tape.clip_by_value(dy, -0.1, 0.1)
        return tape.identity(x), grad

    x = tape.constant([1.0, 2.0])
    with tape.GradientTape() as t:
        t.watch(x)
        y = clip_grad(x) * 5.0
    np.testing.assert_allclose(t.gradient(y, x).numpy(), [0.1, 0.1])


def test_cast_gradient():
    x = U((2, 3), -2, 2)
    # central differences of a float32-rounded function carry its rounding (about 6e-8 of
    # |f| <= 4) divided by the step: up to ~2.4e-5, so the tolerance is above that
    check(lambda a: tape.cast(tape.cast(a, tape.float32), tape.float64) * a, [x], order=1,
          rtol=1e-6, atol=5e-5, eps=1e-2, label="cast float32 round trip")
    t32 = tape.constant(x, dtype=tape.float32)
    with tape.GradientTape() as t:
        t.watch(t32)
        y = tape.reduce_sum(tape.cast(t32, tape.float64) ** 2)
    g = t.gradient(y, t32)
    assert g.dtype == tape.float32
    np.testing.assert_allclose(g.numpy(), 2 * x, rtol=1e-6)


def test_cast_to_integer_stops_gradient():
    x = tape.constant([1.2, 2.7])
    with tape.GradientTape() as t:
        t.watch(x)
        y = tape.cast(tape.cast(x, tape.int64), tape.float64) * 2.0
    assert t.gradient(y, x) is None


def test_float32_computation_stays_float32():
    x32 = tape.constant([1.0, 2.0], dtype=tape.float32)
    assert (x32 * 2.0).dtype == tape.float32
    assert (x32 * 2).dtype == tape.float32
    with tape.GradientTape() as t:
        t.watch(x32)
        y = tape.reduce_sum(tape.sin(x32) * x32)
    g = t.gradient(y, x32)
    assert g.dtype == tape.float32
    xs = np.array([1.0, 2.0])
    np.testing.assert_allclose(g.numpy(), np.cos(xs) * xs + np.sin(xs), rtol=1e-6)


# -- a composite: third order ----------------------------------------------------------------
def test_third_order_through_three_tapes():
    x = tape.constant(0.7)
    with tape.GradientTape() as t3:
        t3.watch(x)
        with tape.GradientTape() as t2:
            t2.watch(x)
            with tape.GradientTape() as t1:
                t1.watch(x)
                y = tape.sin(x) * tape.exp(x)
            d1 = t1.gradient(y, x)
        d2 = t2.gradient(d1, x)
    d3 = t3.gradient(d2, x)
    v = 0.7
    # (sin x e^x)' = e^x (sin + cos); '' = 2 e^x cos; ''' = 2 e^x (cos - sin)
    assert float(d1) == pytest.approx(np.exp(v) * (np.sin(v) + np.cos(v)), rel=1e-12)
    assert float(d2) == pytest.approx(2 * np.exp(v) * np.cos(v), rel=1e-12)
    assert float(d3) == pytest.approx(2 * np.exp(v) * (np.cos(v) - np.sin(v)), rel=1e-12)


def test_engine_checker_catches_a_wrong_gradient():
    """tape.engine.testing.check_grads must fail on a primitive with a wrong gradient rule."""
    testing = pytest.importorskip("tape.engine.testing")
    cube = tape.primitive(lambda a: a ** 3, name="TestsWrongCube")

    @tape.RegisterGradient("TestsWrongCube")
    def _wrong(op, g):
        return [g * 2.0 * op.inputs[0] ** 2]      # should be 3 x**2

    with pytest.raises(AssertionError):
        testing.check_grads(cube, [np.array([0.5, 1.2])], order=1)
    with pytest.raises(AssertionError):
        check(cube, [np.array([0.5, 1.2])], order=1)

    good = tape.primitive(lambda a: a ** 3, name="TestsRightCube")

    @tape.RegisterGradient("TestsRightCube")
    def _right(op, g):
        return [g * 3.0 * op.inputs[0] ** 2]
    # no taylor= rule: Taylor mode refuses it (SPEC section 7), the other modes check it
    testing.check_grads(good, [np.array([0.5, 1.2])], order=2, modes=("rev", "fwd"))
    with pytest.raises(LookupError, match="TestsRightCube"):
        testing.check_grads(good, [np.array([0.5, 1.2])], order=2, modes=("taylor",))
    check(good, [np.array([0.5, 1.2])], order=2)


# -- vectorized Jacobians and Hessians through every rule ---------------------------------------
# The Jacobian sweep sends a batch of cotangents through each gradient rule at once, and the
# Hessian (outer.jacobian of an inner gradient) sends it through the rules' own ops: each op
# is checked again that way.
from _gradcheck import check_jacobian  # noqa: E402

JACOBIAN_CASES = {}
for _name, (_op, _dom) in UNARY.items():
    JACOBIAN_CASES[f"unary {_name}"] = (_op, [_dom((2, 3))])
for _name, (_op, _dom) in BINARY.items():
    JACOBIAN_CASES[f"binary {_name} (2,3)x(3,)"] = (_op, list(_dom((2, 3), (3,))))
    JACOBIAN_CASES[f"binary {_name} (1,3)x(2,1)"] = (_op, list(_dom((1, 3), (2, 1))))
for _name, (_op, _dom) in REDUCTIONS.items():
    JACOBIAN_CASES[f"{_name} axis=1"] = ((lambda op: lambda a: op(a, axis=1))(_op), [_dom((2, 3))])
    JACOBIAN_CASES[f"{_name} axis=None keepdims"] = (
        (lambda op: lambda a: op(a, keepdims=True))(_op), [_dom((2, 3))])
for _name, (_op, _shapes) in SHAPE_OPS.items():
    JACOBIAN_CASES[f"shape {_name}"] = (_op, [U(s, -2, 2) for s in _shapes])
for _name, (_op, _args) in LINALG.items():
    JACOBIAN_CASES[f"linalg {_name}"] = (_op, _args)
for _name in ["softmax", "log_softmax"]:
    JACOBIAN_CASES[f"nn.{_name}"] = (getattr(tape.nn, _name), [U((2, 3), -2, 2)])
JACOBIAN_CASES["where"] = ((lambda c: lambda a, b: tape.where(c, a, b))(
    tape.constant([[True, False, True], [False, True, True]])), [U((2, 3), -2, 2), U((3,), -2, 2)])
JACOBIAN_CASES["clip_by_value"] = (lambda a: tape.clip_by_value(a, -0.5, 0.5),
                                   [np.array([[-0.9, -0.2, 0.3], [0.7, 0.1, -0.35]])])
JACOBIAN_CASES["cast round trip"] = (lambda a: tape.cast(a, tape.float64) * a, [U((3,), -1, 1)])
JACOBIAN_CASES["cond"] = (lambda a: tape.cond(tape.reduce_sum(a) > -10.0, lambda: a * tape.sin(a),
                                              lambda: a), [U((3,), -1, 1)])


@pytest.mark.parametrize("name", sorted(JACOBIAN_CASES))
def test_jacobian_and_hessian(name):
    op, args = JACOBIAN_CASES[name]
    check_jacobian(op, args, label=name)
