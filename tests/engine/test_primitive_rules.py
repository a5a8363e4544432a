"""tape.primitive with all of its rules: grad=, jvp=, taylor= (SPEC section 7)."""
import math

import numpy as np
import pytest

import tape as tf
from tape.engine import series
from tape.engine.testing import check_grads


def _cube(calls):
    def jvp(op, t):
        calls.append("jvp")
        return 3 * op.inputs[0] ** 2 * t

    def taylor(op, a, order):
        calls.append("taylor")
        assert a.shape[0] == order + 1
        return series.mul(a, series.mul(a, a))
    return tf.primitive(lambda a: a ** 3, name="CubeAllRules",
                        grad=lambda op, g: [g * 3 * op.inputs[0] ** 2], jvp=jvp, taylor=taylor)


def test_grad_keyword_registers_the_gradient():
    cube = _cube([])
    x = tf.constant([0.5, 2.0])
    with tf.GradientTape() as t:
        t.watch(x)
        y = cube(x)
    np.testing.assert_allclose(t.gradient(y, x).numpy(), [0.75, 12.0])


def test_jvp_rule_is_used_by_forward_mode():
    calls = []
    cube = _cube(calls)
    x = tf.constant([0.5, 2.0])
    with tf.ForwardAccumulator(x, [1.0, -1.0]) as acc:
        y = cube(x)
    np.testing.assert_allclose(acc.jvp(y).numpy(), [0.75, -12.0])
    assert calls == ["jvp"]


def test_taylor_rule_is_used_by_derivative():
    calls = []
    cube = _cube(calls)
    f = lambda x: cube(tf.sin(x))
    # (sin x)^3 = (3 sin x - sin 3x) / 4: its 5th derivative is (3 cos x - 243 cos 3x) / 4
    want = (3 * math.cos(0.3) - 243 * math.cos(0.9)) / 4
    assert float(tf.derivative(f, 0.3, order=5)) == pytest.approx(want, rel=1e-12)
    assert calls == ["taylor"]


def test_all_modes_agree_with_central_differences():
    cube = _cube([])
    check_grads(lambda x: cube(x) * x, [np.array([0.4, 0.9, 1.3])], order=2,
                modes=("rev", "fwd", "taylor"))


def test_without_any_rule_derivative_names_the_op():
    op = tf.primitive(lambda a: a * 2, name="NoRulesAtAll")
    with pytest.raises(LookupError, match="NoRulesAtAll"):
        tf.derivative(lambda x: op(x), 0.3, order=2)


def test_rules_must_be_callable():
    with pytest.raises(TypeError, match="jvp"):
        tf.primitive(lambda a: a, name="Bad", jvp=3)


def test_check_grads_catches_a_wrong_rule_in_each_mode():
    wrong = tf.primitive(lambda a: a ** 3, name="CubeWrongRules",
                         grad=lambda op, g: [g * 3 * op.inputs[0] ** 2],
                         jvp=lambda op, t: 2 * op.inputs[0] ** 2 * t,
                         taylor=lambda op, a, order: series.mul(a, a))
    x = [np.array([0.4, 0.9])]
    check_grads(wrong, x, modes=("rev",))
    for mode in ("fwd", "taylor"):
        with pytest.raises(AssertionError, match="mismatch"):
            check_grads(wrong, x, modes=(mode,))


@pytest.mark.parametrize("name", ["Neg", "Sin", "Mul", "Sum"])
def test_a_primitive_may_not_take_a_built_in_ops_name(name):
    # gradient rules are found by name: an op named Neg would silently get negation's rule
    x = tf.constant([1.0, 2.0])
    with pytest.raises(ValueError, match=f"'{name}' is the name of a built-in op"):
        tf.primitive(lambda a: a * 3.0, name=name)
    with pytest.raises(ValueError, match="built-in"):
        tf.primitive(lambda a: a * 3.0, name=name, grad=lambda op, g: [g * 3.0])
    with tf.GradientTape() as t:        # the built-in's own rule is untouched
        t.watch(x)
        y = tf.reduce_sum(tf.negative(x) * x)
    np.testing.assert_array_equal(t.gradient(y, x).numpy(), [-2.0, -4.0])


def _hypot_primitive():
    """hypot(a, b) = sqrt(a^2 + b^2) as a user would define it, every rule of SPEC section 7."""
    def grad(op, g):
        a, b = op.inputs
        r = op.outputs[0]
        return [g * a / r, g * b / r]

    def jvp(op, ta, tb):
        a, b = op.inputs
        r = op.outputs[0]
        out = 0.0
        if ta is not None:
            out = out + ta * a / r
        if tb is not None:
            out = out + tb * b / r
        return out

    def taylor(op, a, b, order):
        # every input is a full coefficient array, a constant one too: (order + 1,) + shape
        assert a.shape[0] == b.shape[0] == order + 1
        return series.pow_scalar(series.mul(a, a) + series.mul(b, b), 0.5)
    return tf.primitive(lambda a, b: np.sqrt(a * a + b * b), name="HypotUserDefined",
                        grad=grad, jvp=jvp, taylor=taylor)


def test_a_user_primitive_through_reverse_forward_and_taylor_mode():
    import mpmath
    hypot = _hypot_primitive()
    mp = mpmath.mp.clone()
    mp.dps = 40
    x0 = 0.7
    g = lambda x: hypot(tf.sin(x), 2 * x + 1)
    ref = lambda x: mp.sqrt(mp.sin(x) ** 2 + (2 * x + 1) ** 2)
    want = mp.taylor(ref, mp.mpf(x0), 12)           # f^(k)(x0) / k!

    x = tf.constant(x0)
    with tf.GradientTape() as t:                     # reverse mode: the grad rule
        t.watch(x)
        y = g(x)
    assert float(t.gradient(y, x)) == pytest.approx(float(want[1]), rel=1e-13)
    with tf.ForwardAccumulator(x, 1.0) as acc:      # forward mode: the jvp rule
        y = g(x)
    assert float(acc.jvp(y)) == pytest.approx(float(want[1]), rel=1e-13)
    for k in range(13):                              # Taylor mode: the taylor rule
        got = float(tf.derivative(g, x0, order=k))
        assert got == pytest.approx(float(want[k] * mp.factorial(k)), rel=1e-10), k
    # a constant input (b = 3 does not depend on x) reaches the rule as [3, 0, 0, ...]
    h = lambda x: hypot(x, 3.0)
    assert float(tf.derivative(h, 4.0, order=2)) == pytest.approx(9 / 125, rel=1e-13)
    check_grads(lambda a, b: hypot(a, b) * a, [np.array([0.4, -1.3]), np.array([0.9, 0.2])],
                order=2, modes=("rev", "fwd", "taylor"))


def test_the_order_is_passed_by_keyword_as_in_the_spec():
    seen = []

    def taylor(op, *coefficients, order):
        seen.append((len(coefficients), order))
        return coefficients[0] * 2.0
    double = tf.primitive(lambda a: 2.0 * a, name="DoubleUserDefined", taylor=taylor)
    assert float(tf.derivative(lambda x: double(x * x), 1.5, order=2)) == 4.0
    assert seen == [(1, 2)]
