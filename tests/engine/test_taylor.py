"""Taylor-mode n-th derivatives against SymPy (exact) and mpmath (60-digit) references."""
import math
import mpmath
import numpy as np
import pytest
import sympy as sp

import tape as tf
from tape.engine.ops.math import complex_
from tape.engine import registry
from tape.engine.taylor import taylor_coefficients

X = sp.Symbol("x")
X0 = sp.Rational(3, 10)

# (tape function, SymPy expression): SymPy differentiates these 20 times quickly.
SYMPY_CASES = {
    "sin*exp": (lambda x: tf.sin(x) * tf.exp(x), sp.sin(X) * sp.exp(X)),
    "log(1+x^2)": (lambda x: tf.log(1 + x ** 2), sp.log(1 + X ** 2)),
    "1/(1+x)": (lambda x: 1 / (1 + x), 1 / (1 + X)),
    "sqrt(1+x)": (lambda x: tf.sqrt(1 + x), sp.sqrt(1 + X)),
    "x^3.5": (lambda x: x ** 3.5, X ** sp.Rational(7, 2)),
    "atan": (lambda x: tf.atan(x), sp.atan(X)),
    "x^2*cos(3x)": (lambda x: x * x * tf.cos(3 * x), X ** 2 * sp.cos(3 * X)),
}


def sympy_derivatives(expr, n):
    out, d = [], expr
    for _ in range(n):
        d = sp.diff(d, X)
        out.append(float(d.evalf(40, subs={X: X0})))
    return out


@pytest.mark.parametrize("name", sorted(SYMPY_CASES))
def test_orders_1_to_20_match_sympy(name):
    f, expr = SYMPY_CASES[name]
    want = sympy_derivatives(expr, 20)
    for order in range(1, 21):
        got = float(tf.derivative(f, 0.3, order=order))
        assert got == pytest.approx(want[order - 1], rel=1e-10, abs=1e-300), (name, order)


M = mpmath
# Functions whose SymPy derivatives swell too fast for a unit test: 60-digit mpmath Taylor series.
MP_CASES = {
    "exp(sin)": (lambda x: tf.exp(tf.sin(x)), lambda x: M.exp(M.sin(x))),
    "tanh": (tf.tanh, M.tanh),
    "tan": (tf.tan, M.tan),
    "sigmoid": (lambda x: tf.sigmoid(2 * x), lambda x: 1 / (1 + M.exp(-2 * x))),
    "softplus": (tf.softplus, lambda x: M.log(1 + M.exp(x))),
    "erf": (tf.erf, M.erf),
    "x^x": (lambda x: x ** x, lambda x: x ** x),
    "2^x/x^2": (lambda x: 2.0 ** x * x ** -2, lambda x: 2 ** x / x ** 2),
    "log1p(sin)": (lambda x: tf.log1p(tf.sin(x)), lambda x: M.log(1 + M.sin(x))),
    "atan2": (lambda x: tf.atan2(x, 1 + x * x), lambda x: M.atan2(x, 1 + x * x)),
    "inverse_trig_hyp": (lambda x: tf.acos(x) * tf.asinh(x) + tf.acosh(2 + x) - tf.atanh(x / 2)
                         + tf.asin(x), lambda x: M.acos(x) * M.asinh(x) + M.acosh(2 + x)
                         - M.atanh(x / 2) + M.asin(x)),
    "rsqrt_recip_expm1_sinh_cosh": (
        lambda x: tf.rsqrt(x) + tf.reciprocal(x) + tf.square(tf.expm1(x)) + tf.sinh(x) / tf.cosh(x * x),
        lambda x: 1 / M.sqrt(x) + 1 / x + (M.exp(x) - 1) ** 2 + M.sinh(x) / M.cosh(x * x)),
    "logsumexp": (lambda x: tf.reduce_logsumexp(tf.stack([x, 2 * x, tf.sin(x)])),
                  lambda x: M.log(M.exp(x) + M.exp(2 * x) + M.exp(M.sin(x)))),
    "softmax_log_softmax": (lambda x: tf.nn.softmax(tf.stack([x, x * x, 1.0 + 0 * x]))[1]
                            + tf.nn.log_softmax(tf.stack([x, -x]))[0],
                            lambda x: M.exp(x * x) / (M.exp(x) + M.exp(x * x) + M.e)
                            + x - M.log(M.exp(x) + M.exp(-x))),
    "prod_norm_mean": (lambda x: tf.reduce_prod(tf.stack([x, x + 1, tf.exp(x)]))
                       + tf.linalg.norm(tf.stack([x, 2 * x + 1])) + tf.reduce_mean(tf.stack([x, x ** 2])),
                       lambda x: x * (x + 1) * M.exp(x) + M.sqrt(x * x + (2 * x + 1) ** 2)
                       + (x + x * x) / 2),
    "matrix_ops": (lambda x: tf.linalg.det(_matrix(x)) + tf.linalg.inv(_matrix(x))[0, 1]
                   + tf.linalg.solve(_matrix(x), tf.reshape(tf.stack([x, 1.0 + 0 * x]), (2, 1)))[1, 0]
                   + tf.matmul(_matrix(x), _matrix(x))[1, 1] + tf.einsum("ij,jk->ik", _matrix(x),
                                                                        _matrix(x))[0, 0],
                   lambda x: _mp_matrix_ops(x)),
    "shape_ops": (lambda x: tf.reduce_sum(tf.tile(tf.pad(tf.concat([tf.expand_dims(x, 0),
                                                                    tf.stack([x * x, 3.0 + 0 * x])], 0),
                                                          [[1, 1]]), [2])[1:5] ** 2)
                  + tf.cumsum(tf.stack([x, x ** 3]))[1] + tf.transpose(tf.reshape(tf.stack(
                      [x, 2 * x, 3 * x, x ** 4]), (2, 2)))[0, 1],
                  lambda x: (x ** 2 + x ** 4 + 9) + (x + x ** 3) + 3 * x),
    "max_min_relu_abs_where": (lambda x: tf.reduce_max(tf.stack([x, x * x, tf.sin(x)]))
                               + tf.maximum(x, 1 - x) + tf.minimum(tf.exp(x), 2.0) + tf.nn.relu(x)
                               + tf.abs(-x ** 3) + tf.where(x > 0, tf.exp(x), x),
                               lambda x: x + (1 - x) + M.exp(x) + x + x ** 3 + M.exp(x)),
}


def _matrix(x):
    return tf.reshape(tf.stack([1 + x, x * x, tf.sin(x), 2.0 + 0 * x]), (2, 2))


def _mp_matrix_ops(x):
    A = M.matrix([[1 + x, x * x], [M.sin(x), 2]])
    inv = A ** -1
    sol = inv * M.matrix([[x], [1]])
    sq = A * A
    return M.det(A) + inv[0, 1] + sol[1, 0] + sq[1, 1] + sq[0, 0]


@pytest.mark.parametrize("name", sorted(MP_CASES))
def test_orders_to_20_match_mpmath(name):
    f, g = MP_CASES[name]
    M.mp.dps = 60
    ref = M.taylor(g, M.mpf(3) / 10, 20)
    got = taylor_coefficients(f, np.float64(0.3), 20)
    for k in range(21):
        want = float(ref[k])
        assert got[k] == pytest.approx(want, rel=1e-10, abs=1e-13 * max(1.0, abs(float(ref[0])))), \
            (name, k)


def test_every_differentiable_op_has_a_taylor_rule():
    # derived from the registry: a new op needs a rule (or to be declared linear)
    missing = {op.name for op in registry.primitives(built_in_only=True)
               if not op.nondiff and op.taylor is None and not op.linear}
    assert not missing, missing


def test_many_points_in_one_pass_match_pointwise():
    f = lambda x: tf.exp(tf.sin(x)) / (1 + x * x) + tf.tanh(x) * x ** 2.5
    xs = np.linspace(0.1, 2.0, 7)
    many = tf.derivative(f, xs, order=7).numpy()
    one = [float(tf.derivative(f, float(x), order=7)) for x in xs]
    np.testing.assert_allclose(many, one, rtol=1e-13)
    grid = xs.reshape(7, 1) * np.ones((1, 3))
    assert tf.derivative(f, grid, order=2).shape == (7, 3)


def test_integer_power_at_zero_is_exact():
    got = [float(tf.derivative(lambda x: x ** 3, 0.0, order=k)) for k in range(5)]
    assert got == [0.0, 0.0, 0.0, 6.0, 0.0]


def test_order_zero_and_one_agree_with_value_and_gradient():
    f = lambda x: tf.sin(x) * tf.exp(x)
    assert float(tf.derivative(f, 0.3, order=0)) == pytest.approx(math.sin(0.3) * math.exp(0.3))
    assert float(tf.derivative(f, 0.3, order=1)) == pytest.approx(float(tf.grad(f)(0.3)), rel=1e-14)


def test_constant_function():
    assert float(tf.derivative(lambda x: tf.constant(3.0), 1.0, order=2)) == 0.0
    np.testing.assert_array_equal(tf.derivative(lambda x: 0 * x + 3.0, [1.0, 2.0], order=1).numpy(),
                                  [0.0, 0.0])


def test_a_primitive_without_a_taylor_rule_is_an_error_naming_it():
    # SPEC section 7: no silent fallback; the gradient rule alone does not make a Taylor rule
    cube = tf.primitive(lambda a: a ** 3, name="CubeTaylorTest")

    @tf.RegisterGradient("CubeTaylorTest")
    def _grad(op, g):
        return [g * 3 * op.inputs[0] ** 2]
    assert cube.taylor is None and not cube.linear
    f = lambda x: cube(tf.sin(x))
    for k in (1, 2, 5):
        with pytest.raises(LookupError, match="CubeTaylorTest.*taylor="):
            tf.derivative(f, 0.3, order=k)
    assert float(tf.derivative(f, 0.3, order=0)) == pytest.approx(math.sin(0.3) ** 3)


def test_a_custom_gradient_function_has_no_taylor_rule():
    @tf.custom_gradient
    def clipped(x):
        return x * x, lambda g: g * 2 * x
    with pytest.raises(LookupError, match="clipped"):
        tf.derivative(lambda x: clipped(x), 0.3, order=2)


def test_complex_and_angle_have_taylor_rules():
    # angle(e^(i x^2) (1 + x)) = x^2 (for small x), |.| = 1 + x
    f = lambda x: tf.math.angle(complex_(tf.cos(x * x), tf.sin(x * x)) * tf.cast(1 + x, tf.complex128))
    for k, want in [(1, 0.6), (2, 2.0), (3, 0.0)]:
        assert float(tf.derivative(f, 0.3, order=k)) == pytest.approx(want, abs=1e-12)
    g = lambda x: tf.math.abs(complex_(tf.sin(x), x * x))   # sqrt(sin^2 x + x^4)
    expr = sp.sqrt(sp.sin(X) ** 2 + X ** 4)
    want = sympy_derivatives(expr, 4)
    for k in range(1, 5):
        assert float(tf.derivative(g, 0.3, order=k)) == pytest.approx(want[k - 1], rel=1e-10)
    assert float(tf.derivative(lambda x: tf.math.angle(x - 1.0), 0.3, order=2)) == 0.0


def test_einsum_with_three_live_operands():
    f = lambda x: tf.einsum("i,i,i->", tf.stack([x, 1.0 + 0 * x]), tf.stack([x, x]),
                            tf.stack([tf.exp(x), x]))
    expr = X * X * sp.exp(X) + X * X
    want = sympy_derivatives(expr, 4)
    for k in range(1, 5):
        assert float(tf.derivative(f, 0.3, order=k)) == pytest.approx(want[k - 1], rel=1e-10)


def test_taylor_mode_runs_f_once_and_no_backward_sweep():
    # The cost model, without timing: one forward run of f, then array work per recorded op;
    # nested tapes would run one sweep per order over ever larger graphs.
    import tape.engine.tape as tape_module
    calls = []
    f = lambda x: calls.append(1) or tf.sin(x) * tf.exp(x)
    before = tape_module.sweep_count
    tf.derivative(f, 0.3, order=20)
    assert len(calls) == 1 and tape_module.sweep_count == before


@pytest.mark.parametrize("order, exc", [(-1, ValueError), (2.5, TypeError), ("3", TypeError),
                                        (True, TypeError)])
def test_bad_order(order, exc):
    with pytest.raises(exc, match="order"):
        tf.derivative(tf.sin, 0.3, order=order)


def test_bad_function_and_point():
    with pytest.raises(ValueError, match="scalar"):
        tf.derivative(lambda x: tf.stack([x, x]), 0.3, order=2)
    with pytest.raises(ValueError, match="elementwise"):
        tf.derivative(lambda x: tf.reduce_sum(x * x), [1.0, 2.0], order=1)
    with pytest.raises(TypeError, match="x"):
        tf.derivative(tf.sin, np.array([1, 2]), order=1)
    with pytest.raises(TypeError, match="x"):
        tf.derivative(tf.sin, tf.constant(1), order=1)
