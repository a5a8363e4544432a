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

    def taylor(op, ins, K):
        calls.append("taylor")
        return series.mul(ins[0], series.mul(ins[0], ins[0]))
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
                         taylor=lambda op, ins, K: series.mul(ins[0], ins[0]))
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
