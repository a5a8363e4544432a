"""The sweep's own cotangent arrays (engine/inplace.py): written over only when nothing else holds them.

The first-order sweep tracks, for the large-array steps of rules declared with
``returns_new_arrays``, which cotangents are arrays it made itself, adds later terms into them and
lets ``-g`` overwrite its ``g``. Its results must be bit for bit those of the same sweep without
that tracking (``sweep._BIG`` set out of reach), and no array anyone else can see (forward values,
seeds, gradients handed back) may change.
"""
import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings, strategies as st

import tape as tf
from tape.engine import inplace, sweep
from tape.engine.ops import math as M

N = 48                          # elements per array; the tests lower the size threshold to 1

UNARY = {"neg": tf.negative, "square": tf.square, "sqrt": tf.sqrt, "cbrt": M.cbrt, "exp": tf.exp,
         "log": tf.math.log, "sin": tf.sin, "cos": tf.cos, "tanh": tf.tanh,
         "sigmoid": tf.sigmoid}
BINARY = {"add": lambda a, b: a + b, "sub": lambda a, b: a - b, "mul": lambda a, b: a * b,
          "div": lambda a, b: a / b}
WITH_CONSTANT = {"pow2": lambda a: a ** 2, "pow3": lambda a: a ** 3.0, "times_c": lambda a: a * 0.75,
                 "plus_c": lambda a: 1.5 + a}


def _bits(a):
    a = np.ascontiguousarray(a)
    return a.view(np.uint8).tobytes(), a.dtype, a.shape


def assert_same_bits(got, want):
    for g, w in zip(got, want):
        assert (g is None) == (w is None)
        if g is not None:
            assert _bits(g) == _bits(w), (g, w)


@pytest.fixture
def tracking(monkeypatch):
    """Run a program's gradient with the tracking for every array size, and without it."""
    def run(program):
        monkeypatch.setattr(sweep, "_BIG", 1)
        tracked = program()
        monkeypatch.setattr(sweep, "_BIG", 10 ** 12)
        plain = program()
        return tracked, plain
    return run


@pytest.fixture
def count_tracked_steps(monkeypatch):
    calls = []
    step = sweep._tracked_step

    def spy(node, *rest):
        calls.append(node.op.name)
        return step(node, *rest)
    monkeypatch.setattr(sweep, "_tracked_step", spy)
    return calls


# -- programs drawn by hypothesis ---------------------------------------------------------------
VALUES = st.one_of(st.floats(-3, 3, allow_nan=False),
                   st.sampled_from([0.0, -0.0, 1.0, -1.0, np.inf, -np.inf, np.nan, 40.0, -40.0]))
STEP = st.tuples(st.sampled_from(sorted(UNARY) + sorted(BINARY) + sorted(WITH_CONSTANT)),
                 st.integers(0, 10 ** 6), st.integers(0, 10 ** 6))


@st.composite
def programs(draw):
    n_sources = draw(st.integers(1, 2))
    sources = [np.array(draw(st.lists(VALUES, min_size=N, max_size=N))) for _ in range(n_sources)]
    steps = draw(st.lists(STEP, min_size=1, max_size=12))
    outputs = draw(st.lists(st.integers(0, 10 ** 6), min_size=1, max_size=3))
    wanted = draw(st.lists(st.integers(0, 10 ** 6), max_size=2))
    persistent = draw(st.booleans())
    return sources, steps, outputs, wanted, persistent


def run_program(sources, steps, outputs, wanted, persistent, seed=None):
    """The gradient of the program's result with respect to its sources and the ``wanted``
    intermediates, and every array that must not change: (gradients, [(array, its copy)])."""
    xs = [tf.constant(s) for s in sources]
    with tf.GradientTape(persistent=persistent) as t, np.errstate(all="ignore"):
        for x in xs:
            t.watch(x)
        values = list(xs)
        for name, i, j in steps:
            a, b = values[i % len(values)], values[j % len(values)]
            if name in UNARY:
                values.append(UNARY[name](a))
            elif name in BINARY:
                values.append(BINARY[name](a, b))
            else:
                values.append(WITH_CONSTANT[name](a))
        total = values[outputs[0] % len(values)]
        for k in outputs[1:]:
            total = total + values[k % len(values)]
        y = tf.reduce_sum(total) if seed is None else total
    targets = xs + [values[k % len(values)] for k in wanted]
    frozen = [(v.numpy(), v.numpy().copy()) for v in values]
    kwargs = {} if seed is None else {"output_gradients": tf.constant(seed)}
    got = t.gradient(y, targets, **kwargs)
    if persistent:                  # a second sweep over the same tape gives the same again
        assert_same_bits([None if g is None else g.numpy() for g in t.gradient(y, targets, **kwargs)],
                         [None if g is None else g.numpy() for g in got])
    return [None if g is None else g.numpy() for g in got], frozen


def assert_untouched(frozen):
    for now, before in frozen:
        assert _bits(now) == _bits(before)


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(programs())
def test_tracked_sweep_is_bit_for_bit_the_plain_one(tracking, program):
    (got, frozen_a), (want, frozen_b) = tracking(lambda: run_program(*program))
    assert_same_bits(got, want)
    assert_untouched(frozen_a)
    assert_untouched(frozen_b)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(programs(), st.lists(VALUES, min_size=N, max_size=N))
def test_a_users_seed_is_never_written_over(tracking, program, seed_values):
    seed = np.array(seed_values)
    kept = seed.copy()
    (got, _), (want, _) = tracking(lambda: run_program(*program, seed=seed))
    assert_same_bits(got, want)
    assert _bits(seed) == _bits(kept)


# -- the cases the tracking must get right ------------------------------------------------------
def test_w3_takes_the_tracked_steps_and_matches_the_closed_form(count_tracked_steps):
    x_np = np.random.default_rng(5).standard_normal(2 * inplace.MIN_SIZE)
    x = tf.constant(x_np)
    with tf.GradientTape() as t:
        t.watch(x)
        y = tf.reduce_sum(tf.sin(x) * tf.exp(-x ** 2) + tf.tanh(x))
    got = t.gradient(y, x).numpy()
    assert count_tracked_steps == ["AddV2", "Tanh", "Mul", "Exp", "Neg", "Pow", "Sin"]
    closed = (np.cos(x_np) - 2 * x_np * np.sin(x_np)) * np.exp(-x_np ** 2) + 1 / np.cosh(x_np) ** 2
    np.testing.assert_allclose(got, closed, rtol=1e-13, atol=1e-15)


def test_negation_overwrites_only_a_cotangent_the_sweep_made(tracking, monkeypatch):
    overwritten = []
    rule = inplace._IN_PLACE[M.negative.fast]

    def counting(node, g):
        overwritten.append(g)
        return rule(node, g)
    monkeypatch.setitem(inplace._IN_PLACE, M.negative.fast, counting)
    x_np = np.linspace(-2, 2, N)

    def program():
        x = tf.constant(x_np)
        with tf.GradientTape() as t:
            t.watch(x)
            y = tf.reduce_sum(tf.sin(-tf.exp(x)))       # Neg's cotangent: cos(...) made by Sin
        return t.gradient(y, x).numpy()
    got, want = tracking(program)
    assert len(overwritten) == 1
    assert _bits(got) == _bits(want)
    np.testing.assert_allclose(got, -np.cos(-np.exp(x_np)) * np.exp(x_np), rtol=1e-15)


def test_a_wanted_intermediate_keeps_its_gradient_when_a_negation_follows(tracking):
    # w's cotangent is an array the sweep made, but it is also w's gradient: Neg must not
    # write -g over it
    x_np = np.linspace(-1, 1, N)

    def program():
        x = tf.constant(x_np)
        with tf.GradientTape() as t:
            t.watch(x)
            w = -tf.exp(x)
            y = tf.reduce_sum(tf.sin(w))
        gw, gx = t.gradient(y, [w, x])
        return gw.numpy(), gx.numpy()
    (gw, gx), want = tracking(program)
    assert_same_bits([gw, gx], want)
    np.testing.assert_allclose(gw, np.cos(-np.exp(x_np)), rtol=1e-15)
    np.testing.assert_allclose(gx, -np.cos(-np.exp(x_np)) * np.exp(x_np), rtol=1e-15)


def test_one_new_array_handed_to_two_inputs_is_nobodys_own(monkeypatch):
    # a declared rule may give both inputs the same new array: it becomes a's first term, and
    # adding b's earlier one into it in place would change a's cotangent too
    pair = tf.primitive(lambda a, b: a + b, name="PairShared", grad=lambda op, g: [g, g])

    def shared(node, g):
        h = g * 1.0
        return [h, h]
    monkeypatch.setattr(pair, "fast", shared)
    monkeypatch.setattr(inplace, "_NEW_RESULTS", inplace._NEW_RESULTS | {shared})
    monkeypatch.setattr(sweep, "_BIG", 1)
    x_np = np.linspace(0.1, 2, N)
    x = tf.constant(x_np)
    with tf.GradientTape() as t:
        t.watch(x)
        a, b = tf.exp(x), tf.sin(x)
        late = a * 2.0                  # recorded before the pair: swept after it
        y = tf.reduce_sum(pair(a, b) * 3.0 + b + late)
    got = t.gradient(y, x).numpy()
    want = (3.0 + 2.0) * np.exp(x_np) + (3.0 + 1.0) * np.cos(x_np)
    np.testing.assert_allclose(got, want, rtol=1e-14)


def test_structural_zeros_keep_their_meaning(tracking):
    # where() hands the branch it did not take structural zeros: sqrt's infinite slope at 0
    # must give 0 there, through tracked steps on both sides
    x_np = np.concatenate([np.zeros(N // 2), np.linspace(0.5, 2, N - N // 2)])

    def program():
        x = tf.constant(x_np)
        with tf.GradientTape() as t:
            t.watch(x)
            r = tf.sqrt(x * x)
            y = tf.reduce_sum(tf.exp(-tf.where(x > 0, tf.sqrt(x) * r, tf.zeros_like(x))))
        return t.gradient(y, x).numpy()
    got, want = tracking(program)
    assert _bits(got) == _bits(want)
    pos = x_np > 0
    assert np.all(got[~pos] == 0)
    v = x_np[pos] ** 1.5
    np.testing.assert_allclose(got[pos], -np.exp(-v) * 1.5 * np.sqrt(x_np[pos]), rtol=1e-13)


def test_jacobian_rows_are_the_same_with_and_without_tracking(tracking):
    x_np = np.linspace(-1.5, 1.5, N)

    def program():
        x = tf.constant(x_np)
        with tf.GradientTape() as t:
            t.watch(x)
            y = -tf.tanh(tf.exp(x) * tf.sin(x)) + x * x
        return t.jacobian(y, x).numpy()
    got, want = tracking(program)
    assert _bits(got) == _bits(want)
    u = np.exp(x_np) * np.sin(x_np)
    d = -(1 - np.tanh(u) ** 2) * (np.exp(x_np) * (np.sin(x_np) + np.cos(x_np))) + 2 * x_np
    np.testing.assert_allclose(got, np.diag(d), rtol=1e-12, atol=1e-15)


def test_is_new_tells_made_arrays_from_everything_else():
    x = tf.constant(np.linspace(0, 1, N))
    with tf.GradientTape() as t:
        t.watch(x)
        y = tf.exp(x)
    node = t._log[-1]
    g = np.ones(N)
    assert inplace.is_new(g * 2.0, g, node)
    assert not inplace.is_new(g, g, node)
    assert not inplace.is_new(x.numpy(), g, node)
    assert not inplace.is_new(y.numpy(), g, node)
    assert not inplace.is_new((g * 2.0)[1:], g, node)            # a view
    assert not inplace.is_new(np.float64(2.0), g, node)


def test_declarations_need_a_fast_rule_and_come_before_an_in_place_rule():
    from tape.engine.ops.array import identity          # a fast rule, not declared
    slow = tf.primitive(lambda a: a * 2.0, name="NoFastRule", grad=lambda op, g: [g * 2.0])
    with pytest.raises(ValueError, match="no fast gradient rule"):
        inplace.returns_new_arrays(slow)
    with pytest.raises(ValueError, match="returns_new_arrays first"):
        inplace.in_place_rule(identity, lambda n, g: g)
