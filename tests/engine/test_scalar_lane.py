"""The scalar lane (tape/engine/lane.py): arithmetic on float64 scalars is kept as plain tuples
and swept with scalar rules. It must give bit for bit what the Node path gives (the same run
with the lane switched off), and every other reader of a tape must still see Nodes."""
import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import tape as tf
from tape.engine import lane, registry
from tape.engine.ops import math as ops_math

LANE_OPS = (ops_math.add, ops_math.subtract, ops_math.multiply, ops_math.divide, ops_math.pow)


def lane_entries(t):
    return sum(type(e) is tuple for e in t._log)


def poly(x):
    return 2 * x**3 + 4 * x**2 + 5 * x + 6


def test_the_polynomial_is_recorded_in_the_lane_and_its_gradient_is_exact():
    x = tf.Variable(0.5)
    with tf.GradientTape() as t:
        y = poly(x)
    assert lane_entries(t) == 8 and len(t._log) == 8
    g = t.gradient(y, x)
    assert type(g._value) is np.float64 and float(g) == 6 * 0.25 + 8 * 0.5 + 5
    assert t._log == []                         # released after use, as before


def test_readers_of_the_tape_see_nodes():
    x = tf.Variable(1.5)
    with tf.GradientTape(persistent=True) as t:
        y = x * x - x / 3.0 + x ** 2.5
    assert lane_entries(t) == 5
    assert [op.name for op in t.recorded_operations()] == ["Mul", "RealDiv", "Sub", "Pow", "AddV2"]
    assert lane_entries(t) == 0 and all(isinstance(n, registry.Node) for n in t._log)
    assert t._log[0].inputs == (x, x) and t._log[0].attrs == {}
    expected = 2 * 1.5 - 1 / 3 + 2.5 * 1.5 ** 1.5
    assert math.isclose(float(t.gradient(y, x)), expected, rel_tol=1e-15)
    assert math.isclose(float(t.gradient(y, x)), expected, rel_tol=1e-15)   # persistent


def test_a_persistent_tape_sweeps_its_lane_twice():
    x = tf.Variable(0.75)
    with tf.GradientTape(persistent=True) as t:
        y = poly(x)
    first, second = t.gradient(y, x), t.gradient(y, x)
    assert lane_entries(t) == 8                 # (the raw sweep leaves the entries as they are)
    assert float(first) == float(second) == 6 * 0.75**2 + 8 * 0.75 + 5


def test_nested_tapes_differentiate_the_lane_again():
    x = tf.Variable(0.5)
    with tf.GradientTape() as outer:
        with tf.GradientTape() as inner:
            y = poly(x)
        dy = inner.gradient(y, x)
    d2y = outer.gradient(dy, x)
    assert float(dy) == 10.5 and float(d2y) == 12 * 0.5 + 8


def test_nested_tapes_see_ops_recorded_in_the_lane_after_the_inner_one_left():
    # the outer tape records alone (the lane) after the inner one has left, then differentiates
    # the inner tape's gradient, recorded on it as tensor rules
    x = tf.constant(2.0)
    with tf.GradientTape(persistent=True) as outer:
        outer.watch(x)
        with tf.GradientTape() as inner:
            inner.watch(x)
            y = x ** 3.0
        dy = inner.gradient(y, x)
        z = dy * x                               # 3 x^3, in the outer tape's lane
    assert lane_entries(outer) >= 1
    assert float(outer.gradient(z, x)) == 9 * 2.0**2
    assert float(outer.gradient(dy, x)) == 6 * 2.0


def test_the_exponent_of_pow_takes_the_fast_rule():
    a, b = tf.Variable(1.7), tf.Variable(2.3)
    with tf.GradientTape() as t:
        y = a ** b
    assert lane_entries(t) == 1
    ga, gb = t.gradient(y, [a, b])
    assert math.isclose(float(ga), 2.3 * 1.7 ** 1.3, rel_tol=1e-15)
    assert math.isclose(float(gb), 1.7 ** 2.3 * math.log(1.7), rel_tol=1e-15)


def test_jacobian_and_batched_cotangents_take_the_node_way():
    x = tf.Variable(0.5)
    with tf.GradientTape(persistent=True) as t:
        y = poly(x)
    assert float(t.jacobian(y, x)) == 10.5
    v = tf.Variable([0.5, 1.0])
    with tf.GradientTape() as t2:
        s = v[0] * v[1] + v[1] ** 2.0            # scalars out of a vector
    assert lane_entries(t2) == 3
    np.testing.assert_array_equal(t2.jacobian(s, v).numpy(), [1.0, 0.5 + 2.0])


def test_taylor_mode_reads_the_lane_as_nodes(monkeypatch):
    from tape.engine import tape as tape_module
    made = []
    monkeypatch.setattr(tape_module, "as_node", lambda e: made.append(e) or lane.as_node(e))
    d3 = tf.derivative(lambda x: 2 * x**3 + 4 * x**2 + 5 * x + 6, 0.5, order=3)
    assert float(d3) == 12.0 and len(made) == 8      # recorded in the lane, read as Nodes


def test_a_forward_accumulator_sees_ops_as_before():
    x = tf.Variable(0.5)
    with tf.ForwardAccumulator(x, 1.0) as acc:
        with tf.GradientTape() as t:
            y = poly(x)
    assert float(acc.jvp(y)) == 10.5 and float(t.gradient(y, x)) == 10.5


def test_assigning_a_variable_keeps_the_value_each_op_read():
    v = tf.Variable(2.0)
    with tf.GradientTape() as t:
        y = v * v
        v.assign(5.0)
        z = y * v
    assert float(t.gradient(z, v)) == 2 * 2.0 * 5.0 + 4.0


def test_an_overridden_gradient_turns_entries_back_into_nodes():
    x = tf.Variable(3.0)
    with tf.GradientTape() as t:
        y = x * x
    with lane.disabled():                    # what RegisterGradient("Mul") does to the op's rules
        assert lane_entries(t) == 1
        assert float(t.gradient(y, x)) == 6.0


def test_the_lane_skips_complex_and_integer_values():
    z = tf.constant(1.0 + 2.0j)
    with tf.GradientTape() as t:
        t.watch(z)
        w = z * z
    assert lane_entries(t) == 0
    assert complex(t.gradient(w, z)) == np.conj(2 * (1.0 + 2.0j))


def test_variables_read_first_by_a_lane_op_are_watched():
    a, b = tf.Variable(2.0), tf.Variable(3.0)
    c = tf.Variable(4.0, trainable=False)
    with tf.GradientTape() as t:
        y = a * b + c
    assert t.watched_variables() == (a, b)
    ga, gb, gc = t.gradient(y, [a, b, c])
    assert (float(ga), float(gb), gc) == (3.0, 2.0, None)


def test_user_rules_cannot_be_given_to_ops_without_a_fast_rule():
    with pytest.raises(LookupError, match="no built-in fast gradient rule"):
        registry.scalar_rule("NoSuchOp", lambda *a: None)


# -- bit for bit the Node path, singular points included -----------------------------------------
SPECIAL = st.sampled_from([0.0, -0.0, 1.0, -1.0, 2.0, 0.5, -2.5, 3.0, 1e-300, 1e300, math.inf,
                           -math.inf, math.nan])
VALUES = st.one_of(SPECIAL, st.floats(-1e3, 1e3))

PROGRAMS = {
    "poly": lambda x, c: 2 * x**3 + 4 * x**2 + 5 * x + 6,
    "ratio": lambda x, c: 0.7 * ((x - c) / (x * c + 1.0)),     # (cotangents other than 1)
    "quotients": lambda x, c: (x / c) * (c / (x + 0.1)) * 1.3,
    "powers": lambda x, c: x ** c + c ** x + x ** 0.0 + x ** -1.0,
    "scaled powers": lambda x, c: 1.3 * x ** c + (0.7 * x) ** 2.5 - 0.3 * (c ** 0.0 + x ** 3.0),
    "square root": lambda x, c: (x * x) ** 0.5 - c / x,
    "repeated": lambda x, c: x * x * x - (x + x) * c,
}


def _gradients(program, x0, c0):
    x, c = tf.Variable(x0), tf.Variable(c0)
    with tf.GradientTape() as t:
        y = program(x, c)
    return [None if g is None else g._value for g in t.gradient(y, [x, c])]


@pytest.mark.parametrize("name", sorted(PROGRAMS))
@settings(max_examples=60, deadline=None)
@given(x0=VALUES, c0=VALUES)
def test_the_lane_gives_the_node_paths_bits(name, x0, c0):
    program = PROGRAMS[name]
    with np.errstate(all="ignore"):
        with_lane = _gradients(program, x0, c0)
        with lane.disabled():
            without = _gradients(program, x0, c0)
    for got, want in zip(with_lane, without):
        assert type(got) is type(want)
        if want is not None:
            assert np.array_equal(got, want, equal_nan=True) and \
                np.signbit(got) == np.signbit(want), (got, want)


def test_the_lane_module_registers_its_rules_and_disabled_puts_them_back():
    rules = [op.scalar for op in LANE_OPS]
    assert all(rule is not None for rule in rules)
    with lane.disabled():
        assert all(op.scalar is None for op in LANE_OPS)
    assert [op.scalar for op in LANE_OPS] == rules
    node = lane.as_node((ops_math.multiply, 1, 2, 3))
    assert (node.op, node.inputs, node.outputs, node.attrs) == (ops_math.multiply, (1, 2), (3,), {})
