"""Complex gradients follow TensorFlow's convention; forward and Taylor modes stay unconjugated.

TensorFlow treats a complex number as a pair of reals and its gradient rules apply the transpose
of the real Jacobian: for a real loss L of z = x + iy the gradient is dL/dx + i dL/dy (for a
holomorphic f and upstream g, g * conj(f'(z))). The expected gradients here are computed without
the engine: central finite differences in x and in y of a NumPy reference of the loss
L(z) = sum(real(f(z) * conj(w))), w a fixed complex weight.

Forward mode pushes tangents unconjugated (f'(z) v); with the Hermitian <a, b> = sum(conj(a) b)
the two modes meet in Re <vjp(u), v> = Re <u, jvp(v)> (for holomorphic f without the Re).
"""
from __future__ import annotations

import numpy as np
import pytest

import tape
from tape.engine.ops.math import complex_
from tape.engine import series

H = 1e-6


def _points(shape, seed):
    """Complex points off every branch cut: real part in [-0.8, 0.8], imaginary in [0.2, 0.8]."""
    rng = np.random.default_rng(seed)
    return rng.uniform(-0.8, 0.8, shape) + 1j * rng.uniform(0.2, 0.8, shape)


def _weights(shape, seed):
    rng = np.random.default_rng(seed + 100)
    return rng.normal(size=shape) + 1j * rng.normal(size=shape)


def fd_gradient(loss, args, h=H):
    """For a real NumPy ``loss(*args)``: dL/dx + i dL/dy for each complex argument (dL/dx for a
    real one), by central differences."""
    args = [np.asarray(a) for a in args]
    grads = []
    for k, a in enumerate(args):
        g = np.zeros(a.shape, np.complex128 if a.dtype.kind == "c" else np.float64)
        steps = (1.0, 1j) if a.dtype.kind == "c" else (1.0,)
        for idx in np.ndindex(a.shape):
            for s in steps:
                plus = [b.copy() for b in args]
                minus = [b.copy() for b in args]
                plus[k][idx] += h * s
                minus[k][idx] -= h * s
                d = (loss(*plus) - loss(*minus)) / (2 * h)
                g[idx] += d * s
        grads.append(g)
    return grads


def tape_gradient(f, args, w, recorded):
    """Gradient of sum(real(f(*args) * conj(w))) with respect to each argument. ``recorded``: an
    outer tape records the sweep, so the tensor rules run instead of the raw NumPy ones."""
    ts = [tape.constant(a) for a in args]
    wt = tape.constant(np.conj(w))

    def run():
        with tape.GradientTape() as t:
            t.watch(ts)
            loss = tape.reduce_sum(tape.math.real(f(*ts) * wt))
        return t.gradient(loss, ts)

    if recorded:
        with tape.GradientTape() as outer:
            outer.watch(ts)
            grads = run()
    else:
        grads = run()
    return [g.numpy() for g in grads]


def check_against_fd(f, ref, args, seed=0, rtol=1e-6, atol=1e-7):
    out = np.asarray(ref(*args))
    w = _weights(out.shape, seed)
    expected = fd_gradient(lambda *a: np.sum(np.real(np.asarray(ref(*a)) * np.conj(w))), args)
    for recorded in (False, True):
        got = tape_gradient(f, args, w, recorded)
        for g, e, a in zip(got, expected, args):
            assert g.shape == np.shape(a)
            np.testing.assert_allclose(g, e, rtol=rtol, atol=atol,
                                       err_msg=f"recorded={recorded}")


# -- elementwise unary ops -----------------------------------------------------------------
UNARY = {
    "negative": (tape.negative, np.negative),
    "abs": (tape.abs, np.abs),
    "square": (tape.square, np.square),
    "sqrt": (tape.sqrt, np.sqrt),
    "rsqrt": (tape.rsqrt, lambda z: 1 / np.sqrt(z)),
    "reciprocal": (tape.reciprocal, np.reciprocal),
    "exp": (tape.exp, np.exp),
    "expm1": (tape.expm1, np.expm1),
    "log": (tape.log, np.log),
    "log1p": (tape.log1p, np.log1p),
    "log2": (tape.math.log2, np.log2),
    "log10": (tape.math.log10, np.log10),
    "sin": (tape.sin, np.sin),
    "cos": (tape.cos, np.cos),
    "tan": (tape.tan, np.tan),
    "asin": (tape.asin, np.arcsin),
    "acos": (tape.acos, np.arccos),
    "atan": (tape.atan, np.arctan),
    "sinh": (tape.sinh, np.sinh),
    "cosh": (tape.cosh, np.cosh),
    "tanh": (tape.tanh, np.tanh),
    "asinh": (tape.asinh, np.arcsinh),
    "acosh": (tape.acosh, np.arccosh),
    "atanh": (tape.atanh, np.arctanh),
    "sigmoid": (tape.sigmoid, lambda z: 1 / (1 + np.exp(-z))),
    "conj": (tape.math.conj, np.conj),
    "real": (tape.math.real, np.real),
    "imag": (tape.math.imag, np.imag),
    "angle": (tape.math.angle, np.angle),
    "identity": (tape.identity, lambda z: z),
    "np.sin": (np.sin, np.sin),
    "np.exp": (np.exp, np.exp),
    "np.real": (np.real, np.real),
    "np.angle": (np.angle, np.angle),
}


@pytest.mark.parametrize("shape", [(), (3,)], ids=["scalar", "vector"])
@pytest.mark.parametrize("name", sorted(UNARY))
def test_unary_gradient_matches_finite_differences(name, shape):
    f, ref = UNARY[name]
    check_against_fd(f, ref, [_points(shape, 1)])


@pytest.mark.parametrize("name", ["sin", "exp", "log", "sqrt", "tanh", "square", "sigmoid"])
def test_unary_forward_values_are_complex_and_right(name):
    f, ref = UNARY[name]
    z = _points((4,), 2)
    got = f(tape.constant(z))
    assert got.dtype == tape.complex128
    np.testing.assert_allclose(got.numpy(), ref(z), rtol=1e-12)


def test_complex_values_of_sigmoid_are_not_real():
    # sigmoid of a complex number used to drop to float64 (its stable real formula)
    z = np.array([0.5 + 0.5j])
    np.testing.assert_allclose(tape.sigmoid(tape.constant(z)).numpy(), 1 / (1 + np.exp(-z)))


# -- binary arithmetic ---------------------------------------------------------------------
BINARY = {
    "add": (lambda a, b: a + b, np.add),
    "subtract": (lambda a, b: a - b, np.subtract),
    "multiply": (lambda a, b: a * b, np.multiply),
    "divide": (lambda a, b: a / b, np.divide),
    "pow": (lambda a, b: a ** b, np.power),
    "tape.multiply": (tape.multiply, np.multiply),
    "tape.divide": (tape.divide, np.divide),
    "tape.pow": (tape.pow, np.power),
}
SHAPES = [((), ()), ((3,), (3,)), ((3,), ()), ((), (3,)), ((2, 3), (3,))]


@pytest.mark.parametrize("shapes", SHAPES, ids=[f"{a}-{b}" for a, b in SHAPES])
@pytest.mark.parametrize("name", sorted(BINARY))
def test_binary_gradient_matches_finite_differences(name, shapes):
    f, ref = BINARY[name]
    check_against_fd(f, ref, [_points(shapes[0], 3), _points(shapes[1], 4)])


@pytest.mark.parametrize("shape", [(), (3,)], ids=["scalar", "vector"])
@pytest.mark.parametrize("power", [2, 3, 0.5, -1])
def test_power_with_a_python_number(power, shape):
    check_against_fd(lambda z: z ** power, lambda z: z ** power, [_points(shape, 5)])


@pytest.mark.parametrize("shape", [(), (3,)], ids=["scalar", "vector"])
def test_python_numbers_and_reflected_operators(shape):
    f = lambda z: (2 - 1j) * z + 3 / z - (1 + 1j) ** z      # noqa: E731
    check_against_fd(f, f, [_points(shape, 6)])


@pytest.mark.parametrize("shape", [(), (3,)], ids=["scalar", "vector"])
def test_real_variable_times_complex_weight(shape):
    # a real source's gradient is dL/dx (the real part of the complex cotangent)
    rng = np.random.default_rng(7)
    x = rng.uniform(0.5, 1.5, shape)
    c = _points(shape, 8)
    f = lambda x: x * c * x + tape.cast(x, tape.complex128) * c if isinstance(x, tape.Tensor) \
        else x * c * x + x * c  # noqa: E731
    got_ref = fd_gradient(lambda x: np.sum(np.real((x * c * x + x * c) * np.conj(c))), [x])[0]
    for recorded in (False, True):
        g = tape_gradient(f, [x], c, recorded)[0]
        assert g.dtype == np.float64
        np.testing.assert_allclose(g, got_ref, rtol=1e-6, atol=1e-7)


def test_pow_at_zero_base_has_no_nan():
    # d/dy x**y at x = 0 is 0 (log x only where x != 0), d/dx of 0**2 is 0
    x = tape.constant(np.array([0j, 1 + 1j]))
    y = tape.constant(np.array([2 + 0j, 2 + 0j]))
    with tape.GradientTape() as t:
        t.watch([x, y])
        loss = tape.reduce_sum(tape.math.real(x ** y))
    gx, gy = t.gradient(loss, [x, y])
    assert np.all(np.isfinite(gx.numpy())) and np.all(np.isfinite(gy.numpy()))
    np.testing.assert_allclose(gx.numpy(), [0, 2 * np.conj(1 + 1j)])
    assert gy.numpy()[0] == 0


def test_squared_modulus_loss():
    # L = |z - w|^2 is minimised by z = w: its gradient 2 (z - w) points uphill
    z, w = _points((3,), 9), _weights((3,), 9)
    zt = tape.constant(z)
    with tape.GradientTape() as t:
        t.watch(zt)
        loss = tape.reduce_sum(tape.square(tape.abs(zt - w)))
    np.testing.assert_allclose(t.gradient(loss, zt).numpy(), 2 * (z - w), rtol=1e-12)


def test_abs_at_zero_gives_zero():
    z = tape.constant(np.array([0j, 3 + 4j]))
    with tape.GradientTape() as t:
        t.watch(z)
        loss = tape.reduce_sum(tape.abs(z))
    np.testing.assert_allclose(t.gradient(loss, z).numpy(), [0, (3 + 4j) / 5])


def test_complex_from_real_parts():
    a, b = np.array([0.3, -0.5, 0.7]), np.array([0.2, 0.4, -0.1])
    check_against_fd(complex_, lambda a, b: a + 1j * b, [a, b])
    assert complex_(tape.constant(a), tape.constant(b)).dtype == tape.complex128


# -- reductions, shapes, linear algebra ----------------------------------------------------
def _mat(shape, seed):
    rng = np.random.default_rng(seed)
    return rng.normal(size=shape) + 1j * rng.normal(size=shape)


def _well_conditioned(n, seed):
    return _mat((n, n), seed) + 3 * np.eye(n)


CASES = {
    "reduce_sum": (lambda z: tape.reduce_sum(z), np.sum, [(2, 3)]),
    "reduce_sum_axis": (lambda z: tape.reduce_sum(z, axis=0), lambda z: np.sum(z, axis=0), [(2, 3)]),
    "reduce_mean": (lambda z: tape.reduce_mean(z, axis=1), lambda z: np.mean(z, axis=1), [(2, 3)]),
    "reduce_prod": (lambda z: tape.reduce_prod(z), np.prod, [(2, 3)]),
    "reduce_prod_axis": (lambda z: tape.reduce_prod(z, axis=1, keepdims=True),
                         lambda z: np.prod(z, axis=1, keepdims=True), [(2, 3)]),
    "norm": (lambda z: tape.linalg.norm(z), np.linalg.norm, [(2, 3)]),
    "norm_axis": (lambda z: tape.linalg.norm(z, axis=1), lambda z: np.linalg.norm(z, axis=1), [(2, 3)]),
    "norm_ord1": (lambda z: tape.linalg.norm(z, ord=1), lambda z: np.sum(np.abs(z)), [(4,)]),
    "cumsum": (lambda z: tape.math.cumsum(z), np.cumsum, [(4,)]),
    "transpose_conjugate": (lambda z: tape.transpose(z, conjugate=True), lambda z: np.conj(z.T),
                            [(2, 3)]),
    "slice_concat": (lambda z: tape.concat([z[1:], z[:1] * 2], axis=0),
                     lambda z: np.concatenate([z[1:], z[:1] * 2]), [(4,)]),
    "where": (lambda z: tape.where(np.array([True, False, True]), z, z * z),
              lambda z: np.where([True, False, True], z, z * z), [(3,)]),
    "matmul": (tape.matmul, np.matmul, [(2, 3), (3, 4)]),
    "matmul_operator": (lambda a, b: a @ b, np.matmul, [(2, 3), (3, 4)]),
    "matmul_batch": (tape.matmul, np.matmul, [(2, 2, 3), (3, 2)]),
    "matmul_vector": (tape.matmul, np.matmul, [(2, 3), (3,)]),
    "matmul_adjoint_a": (lambda a, b: tape.matmul(a, b, adjoint_a=True),
                         lambda a, b: np.conj(a).T @ b, [(3, 2), (3, 4)]),
    "matmul_adjoint_b": (lambda a, b: tape.matmul(a, b, adjoint_b=True),
                         lambda a, b: a @ np.conj(b).T, [(2, 3), (4, 3)]),
    "matmul_transpose_a": (lambda a, b: tape.matmul(a, b, transpose_a=True),
                           lambda a, b: a.T @ b, [(3, 2), (3, 4)]),
    "einsum": (lambda a, b: tape.einsum("ij,jk->ik", a, b), lambda a, b: np.einsum("ij,jk->ik", a, b),
               [(2, 3), (3, 2)]),
    "einsum_three": (lambda a, b, c: tape.einsum("i,ij,j->", a, b, c),
                     lambda a, b, c: np.einsum("i,ij,j->", a, b, c), [(2,), (2, 3), (3,)]),
    "tensordot": (lambda a, b: tape.tensordot(a, b, 1), lambda a, b: np.tensordot(a, b, 1),
                  [(2, 3), (3, 2)]),
    "trace": (tape.linalg.trace, np.trace, [(3, 3)]),
}
LINALG = {
    "inv": (tape.linalg.inv, np.linalg.inv),
    "inv_adjoint": (lambda a: tape.linalg.inv(a, adjoint=True), lambda a: np.conj(np.linalg.inv(a)).T),
    "det": (tape.linalg.det, np.linalg.det),
    "solve": (lambda a: tape.linalg.solve(a, _mat((3, 2), 11)), lambda a: np.linalg.solve(a, _mat((3, 2), 11))),
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_array_op_gradient_matches_finite_differences(name):
    f, ref, shapes = CASES[name]
    check_against_fd(f, ref, [_mat(s, 20 + i) for i, s in enumerate(shapes)])


@pytest.mark.parametrize("name", sorted(LINALG))
def test_linalg_gradient_matches_finite_differences(name):
    f, ref = LINALG[name]
    check_against_fd(f, ref, [_well_conditioned(3, 30)], rtol=1e-5, atol=1e-6)


def test_solve_gradient_for_both_operands():
    check_against_fd(tape.linalg.solve, np.linalg.solve, [_well_conditioned(3, 31), _mat((3, 2), 32)],
                     rtol=1e-5, atol=1e-6)


def test_reduce_prod_with_a_zero_factor():
    z = _mat((4,), 33)
    z[1] = 0
    check_against_fd(tape.reduce_prod, np.prod, [z])


def test_adjoint_options_conjugate_the_values():
    a, b = _mat((2, 2), 34), _mat((2, 2), 35)
    at, bt = tape.constant(a), tape.constant(b)
    np.testing.assert_allclose(tape.matmul(at, bt, adjoint_a=True).numpy(), np.conj(a).T @ b)
    np.testing.assert_allclose(tape.matmul(at, bt, adjoint_b=True).numpy(), a @ np.conj(b).T)
    np.testing.assert_allclose(tape.matmul(at, bt, transpose_b=True).numpy(), a @ b.T)
    np.testing.assert_allclose(tape.transpose(at, conjugate=True).numpy(), np.conj(a).T)
    np.testing.assert_allclose(tape.transpose(at).numpy(), a.T)
    np.testing.assert_allclose(np.vdot(at, bt).numpy(), np.vdot(a, b))


# -- second order: the rules are differentiable again under the same convention -------------
SECOND = {
    "multiply": lambda z: z * z * (0.5 - 1j),
    "exp_sin": lambda z: tape.exp(tape.sin(z)),
    "log_sqrt": lambda z: tape.log(z) * tape.sqrt(z),
    "divide": lambda z: 1 / (z + 2),
    "pow": lambda z: z ** (1.5 + 0.5j),
    "tanh_abs": lambda z: tape.tanh(z) * tape.cast(tape.abs(z), tape.complex128),
    "prod": lambda z: tape.reduce_prod(z) + z,
    "matmul": lambda z: tape.matmul(tape.reshape(z, (1, 3)), tape.reshape(z * z, (3, 1))),
}


@pytest.mark.parametrize("name", sorted(SECOND))
def test_gradient_of_a_gradient(name):
    # h(z) = sum |grad L(z)|^2 with L = sum(real(f(z) * conj(w))); its gradient by nested tapes
    # against finite differences of h (h itself from the first-order gradient, tested above)
    f = SECOND[name]
    z0 = _points((3,), 40)
    w = _weights((3,) if name != "matmul" else (1, 1), 40)

    def h(z, record=False):
        zt = tape.constant(z)
        with tape.GradientTape() as outer:
            outer.watch(zt)
            with tape.GradientTape() as inner:
                inner.watch(zt)
                loss = tape.reduce_sum(tape.math.real(f(zt) * np.conj(w)))
            g = inner.gradient(loss, zt)
            out = tape.reduce_sum(tape.math.real(g * tape.math.conj(g)))
        return (out, outer.gradient(out, zt)) if record else float(out)

    _, got = h(z0, record=True)
    expected = fd_gradient(lambda z: h(z), [z0])[0]
    np.testing.assert_allclose(got.numpy(), expected, rtol=1e-5, atol=1e-6)


# -- forward mode --------------------------------------------------------------------------
FORWARD = {name: (f, ref) for name, (f, ref) in UNARY.items() if not name.startswith("np.")}
FORWARD.update({
    "pow_zz": (lambda z: z ** (z + 1), lambda z: z ** (z + 1)),
    "divide": (lambda z: (z + 1) / (z * z + 2), lambda z: (z + 1) / (z * z + 2)),
    "prod": (lambda z: tape.reduce_prod(z), np.prod),
    "norm": (lambda z: tape.linalg.norm(z), np.linalg.norm),
    "matmul_adjoint": (lambda z: tape.matmul(tape.reshape(z, (3, 1)), tape.reshape(z, (3, 1)),
                                              adjoint_a=True),
                       lambda z: np.conj(z).reshape(1, 3) @ z.reshape(3, 1)),
    "det": (lambda z: tape.linalg.det(tape.reshape(z, (1, 3)) * tape.reshape(z, (3, 1)) + 3 * np.eye(3)),
            lambda z: np.linalg.det(z.reshape(1, 3) * z.reshape(3, 1) + 3 * np.eye(3))),
    "inv": (lambda z: tape.linalg.inv(tape.reshape(z, (1, 3)) * tape.reshape(z, (3, 1)) + 3 * np.eye(3)),
            lambda z: np.linalg.inv(z.reshape(1, 3) * z.reshape(3, 1) + 3 * np.eye(3))),
    "complex_parts": (lambda z: complex_(tape.math.imag(z), tape.math.real(z) * 2),
                      lambda z: np.imag(z) + 2j * np.real(z)),
})


def _jvp(f, z, v):
    zt = tape.constant(z)
    with tape.ForwardAccumulator(zt, tape.constant(v)) as acc:
        y = f(zt)
    return acc.jvp(y).numpy()


def _vjp(f, z, u):
    zt = tape.constant(z)
    with tape.GradientTape() as t:
        t.watch(zt)
        y = f(zt)
    return t.gradient(y, zt, output_gradients=tape.constant(u)).numpy()


@pytest.mark.parametrize("name", sorted(FORWARD))
def test_jvp_is_the_unconjugated_directional_derivative(name):
    f, ref = FORWARD[name]
    z, v = _points((3,), 50), _weights((3,), 50)
    expected = (np.asarray(ref(z + H * v)) - np.asarray(ref(z - H * v))) / (2 * H)
    np.testing.assert_allclose(_jvp(f, z, v), expected, rtol=1e-6, atol=1e-7)


@pytest.mark.parametrize("name", sorted(FORWARD))
def test_jvp_and_vjp_are_adjoint(name):
    # Re <vjp(u), v> = Re <u, jvp(v)>, <a, b> = sum(conj(a) * b) (np.vdot)
    f, ref = FORWARD[name]
    z, v = _points((3,), 51), _weights((3,), 51)
    out = np.asarray(ref(z))
    u = _weights(out.shape, 52)
    if out.dtype.kind != "c":
        u = u.real
    lhs = np.vdot(_vjp(f, z, u), v)
    rhs = np.vdot(u, _jvp(f, z, v))
    assert np.real(lhs) == pytest.approx(np.real(rhs), rel=1e-9, abs=1e-12)


HOLOMORPHIC = ["exp", "sin", "log", "sqrt", "tanh", "atanh", "reciprocal", "square", "pow_zz",
               "divide", "prod", "inv", "det"]


@pytest.mark.parametrize("name", HOLOMORPHIC)
def test_holomorphic_jvp_and_vjp_are_hermitian_adjoints(name):
    # for a holomorphic f the full identity holds: <vjp(u), v> = <u, jvp(v)>
    f, ref = FORWARD[name]
    z, v = _points((3,), 53), _weights((3,), 53)
    u = _weights(np.shape(ref(z)), 54)
    lhs = np.vdot(_vjp(f, z, u), v)
    rhs = np.vdot(u, _jvp(f, z, v))
    assert lhs == pytest.approx(rhs, rel=1e-9, abs=1e-12)


def _custom_square_times(c):
    """A new primitive z -> c z^2 with a TF-convention gradient rule and no JVP rule (forward
    mode falls back to the double-VJP trick) and no Taylor rule."""
    name = f"ComplexCubeTest{abs(hash(c))}"
    op = tape.primitive(lambda a: c * a * a, name=name)

    @tape.RegisterGradient(name)
    def _grad(node, g):
        return [g * tape.math.conj(2 * c * node.inputs[0])]
    return op


def test_double_vjp_fallback_gives_the_unconjugated_jvp():
    c = 0.5 - 2j
    op = _custom_square_times(c)
    z, v = _points((3,), 55), _weights((3,), 55)
    np.testing.assert_allclose(_jvp(op, z, v), 2 * c * z * v, rtol=1e-12)
    np.testing.assert_allclose(_vjp(op, z, v), v * np.conj(2 * c * z), rtol=1e-12)


def test_hessian_vector_product_forward_over_reverse():
    # forward-over-reverse: d/ds of the TF gradient of L(z + s v), against finite differences
    w = _weights((3,), 56)
    z, v = _points((3,), 56), _weights((3,), 57)

    def grad_at(z):
        return _vjp(lambda t: tape.reduce_sum(tape.math.real(tape.exp(t) * t * np.conj(w))), z, 1.0)

    zt = tape.constant(z)
    with tape.ForwardAccumulator(zt, tape.constant(v)) as acc:
        with tape.GradientTape() as t:
            t.watch(zt)
            loss = tape.reduce_sum(tape.math.real(tape.exp(zt) * zt * np.conj(w)))
        g = t.gradient(loss, zt)
    expected = (grad_at(z + H * v) - grad_at(z - H * v)) / (2 * H)
    np.testing.assert_allclose(acc.jvp(g).numpy(), expected, rtol=1e-6, atol=1e-7)


# -- Taylor mode ---------------------------------------------------------------------------
def test_taylor_derivatives_at_a_complex_point():
    z = np.array([0.3 + 0.4j, -0.2 + 0.7j])
    np.testing.assert_allclose(tape.derivative(lambda t: tape.exp(2 * t), z, order=3).numpy(),
                               8 * np.exp(2 * z), rtol=1e-12)
    np.testing.assert_allclose(tape.derivative(lambda t: t ** (1 + 1j), z, order=2).numpy(),
                               (1 + 1j) * 1j * z ** (-1 + 1j), rtol=1e-10)


def test_taylor_mode_refuses_a_complex_primitive_without_a_taylor_rule():
    c = 1.5 + 0.5j
    op = _custom_square_times(c)
    z = np.array([0.3 + 0.4j, -0.2 + 0.7j])
    with pytest.raises(LookupError, match=op.name):
        tape.derivative(op, z, order=1)
    # with a Taylor rule the series runs along the real axis, unconjugated
    ruled = tape.primitive(lambda a: c * a * a, name=op.name + "Ruled",
                           taylor=lambda node, a, order: c * series.mul(a, a))
    np.testing.assert_allclose(tape.derivative(ruled, z, order=1).numpy(), 2 * c * z, rtol=1e-12)
    np.testing.assert_allclose(tape.derivative(ruled, z, order=2).numpy(), 2 * c + 0 * z, rtol=1e-12)


def test_taylor_of_a_non_holomorphic_op_along_the_real_axis():
    # angle(z + s) = atan2(y, x + s): d/ds = -y/|z|^2, d2/ds2 = 2xy/|z|^4
    z = np.array([0.3 + 0.4j, -0.2 + 0.7j])
    x, y, r2 = z.real, z.imag, np.abs(z) ** 2
    np.testing.assert_allclose(tape.derivative(tape.math.angle, z, order=1).numpy(), -y / r2,
                               rtol=1e-12)
    np.testing.assert_allclose(tape.derivative(tape.math.angle, z, order=2).numpy(),
                               2 * x * y / r2 ** 2, rtol=1e-10)


@pytest.mark.parametrize("name", sorted(n for n in UNARY if not n.startswith("np.")))
def test_taylor_first_and_second_derivatives_along_the_real_axis(name):
    # derivative(f, z, order=n) is d^n/ds^n f(z + s) at s = 0 (s real), for complex z
    f, ref = UNARY[name]
    z = _points((3,), 60)
    h = 1e-4
    d1 = (ref(z + h) - ref(z - h)) / (2 * h)
    d2 = (ref(z + h) - 2 * ref(z) + ref(z - h)) / h ** 2
    np.testing.assert_allclose(tape.derivative(f, z, order=1).numpy(), d1, rtol=1e-7, atol=1e-7)
    np.testing.assert_allclose(tape.derivative(f, z, order=2).numpy(), d2, rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize("shape", [(), (2,)], ids=["scalar", "vector"])
@pytest.mark.parametrize("op", ["mul", "pow", "exp"])
def test_real_output_gradients_for_a_complex_target(op, shape):
    # a real output_gradients tensor weights a complex target as the complex number w + 0j
    z0 = np.full(shape, 1 + 1j)
    f = {"mul": lambda z: z * z, "pow": lambda z: z ** 2, "exp": tape.exp}[op]
    d = {"mul": 2 * z0, "pow": 2 * z0, "exp": np.exp(z0)}[op]
    z = tape.constant(z0)
    for w in (tape.constant(np.full(shape, 3.0)[()]), np.full(shape, 3.0)[()]):
        with tape.GradientTape() as t:
            t.watch(z)
            y = f(z)
        np.testing.assert_allclose(t.gradient(y, z, output_gradients=w).numpy(), 3 * np.conj(d))


def test_jacobian_rows_are_the_gradients_of_each_output():
    z0 = _points((3,), 70)
    z = tape.constant(z0)
    with tape.GradientTape(persistent=True) as t:
        t.watch(z)
        y = tape.exp(z) * z[::-1]
        rows = [y[i] for i in range(3)]
    jac = t.jacobian(y, z).numpy()
    assert jac.dtype == np.complex128
    for i in range(3):
        np.testing.assert_allclose(jac[i], t.gradient(rows[i], z).numpy(), rtol=1e-12)
    # row i, column j: conj(d y_i / d z_j)
    expected = np.conj(np.diag(np.exp(z0) * z0[::-1]) + np.exp(z0)[:, None] * np.eye(3)[::-1])
    np.testing.assert_allclose(jac, expected, rtol=1e-12)


@pytest.mark.parametrize("shape", [(), (3,)], ids=["scalar", "vector"])
def test_mixed_real_and_complex_operands(shape):
    # a real positive base to a complex power, and real times/over complex: the real operand's
    # gradient is dL/dx
    rng = np.random.default_rng(80)
    x = rng.uniform(0.5, 2.0, shape)
    z = _points(shape, 81)
    check_against_fd(lambda a, b: a ** b, np.power, [x, z])
    check_against_fd(lambda a, b: a * b - b / a, lambda a, b: a * b - b / a, [x, z])


@pytest.mark.parametrize("mode", ["auto", "forward", "reverse"])
def test_function_jacobian_agrees_with_the_tape_in_every_mode(mode):
    # more outputs than inputs: "auto" would pick forward mode on real values
    z0 = _points((2,), 90)
    f = lambda z: tape.concat([tape.exp(z), z * z[::-1], tape.sin(z)], 0)  # noqa: E731
    z = tape.constant(z0)
    with tape.GradientTape() as t:
        t.watch(z)
        y = f(z)
    expected = t.jacobian(y, z).numpy()
    np.testing.assert_allclose(tape.jacobian(f, mode=mode)(z).numpy(), expected, rtol=1e-12)
    np.testing.assert_allclose(expected[:2], np.conj(np.diag(np.exp(z0))), rtol=1e-12)


def test_complex_hessian_is_the_jacobian_of_the_gradient_not_symmetrised():
    # Under TF's convention the Jacobian of the (conjugated) gradient of a real loss of complex z
    # need not be symmetric; hessian() must return it as computed, not averaged with its transpose.
    f = lambda z: tape.math.real(z[0] * tape.math.conj(z[1])) * tape.math.imag(z[0])  # noqa: E731
    z = tape.constant(np.array([1 + 2j, 0.5 - 1j]))
    with tape.GradientTape() as outer:
        outer.watch(z)
        with tape.GradientTape() as inner:
            inner.watch(z)
            y = f(z)
        g = inner.gradient(y, z)
    want = outer.jacobian(g, z).numpy()
    got = tape.hessian(f)(z).numpy()
    assert not np.allclose(want, want.T)          # the case is one where symmetrising would change it
    np.testing.assert_allclose(got, want, rtol=1e-14)
