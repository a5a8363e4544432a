"""tape.torch and the engine's scalar lane (tape/engine/lane.py): the backward pass applies an
op's scalar rule to float64 scalar nodes, and torch ops inside a GradientTape are recorded in
the tape's lane. Both must give bit for bit what the Node / fast-rule path gives."""
import math

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

import tape as tf
import tape.torch as torch
from tape.engine import lane

# each small, so that a last-bit difference of one rule is not absorbed by a larger term
PROGRAMS = (
    lambda x, c: 0.7 * (x - c) / (x * c + 1.0),
    lambda x, c: (x / c) * (c / (x + 0.1)) * 1.3,
    lambda x, c: 1.3 * x ** c + (0.7 * x) ** 2.5 - 0.3 * x ** 3.0,
    lambda x, c: 0.9 * (c - x) ** 0.0 + c ** x,
    lambda x, c: x * x * x - (x + x) * c,
)


def torch_grads(x0, c0):
    out = []
    for program in PROGRAMS:
        x = torch.tensor(x0, dtype=torch.float64, requires_grad=True)
        c = torch.tensor(c0, dtype=torch.float64, requires_grad=True)
        out += [g.numpy() for g in torch.autograd.grad(program(x, c), (x, c))]
    return out


VALUES = st.one_of(st.sampled_from([0.0, -0.0, 1.0, -1.0, 2.0, 0.5, math.inf, -math.inf,
                                    math.nan, 1e-300, 1e300]), st.floats(-1e3, 1e3))


@settings(max_examples=150, deadline=None)
@given(x0=VALUES, c0=VALUES)
def test_the_backward_pass_gives_the_fast_rules_bits(x0, c0):
    with np.errstate(all="ignore"):
        with_lane = torch_grads(x0, c0)
        with lane.disabled():
            without = torch_grads(x0, c0)
    for got, want in zip(with_lane, without):
        assert type(got) is type(want) is np.float64
        assert np.array_equal(got, want, equal_nan=True) and np.signbit(got) == np.signbit(want)


def test_torch_ops_in_a_gradient_tape_use_its_lane():
    xe = tf.constant(0.5)
    with tf.GradientTape() as t:
        t.watch(xe)
        x = torch.as_tensor(xe)                 # (recorded: an Identity node)
        y = 2 * x**3 + 4 * x**2 + 5 * x + 6
    assert sum(type(e) is tuple for e in t._log) == 8
    assert [op.name for op in t.recorded_operations()][:3] == ["Identity", "Pow", "Mul"]
    assert float(t.gradient(y, xe)) == 10.5


def test_a_second_backward_pass_and_create_graph_still_work():
    x = torch.tensor(1.5, dtype=torch.float64, requires_grad=True)
    y = x * x * x
    (g,) = torch.autograd.grad(y, (x,), create_graph=True)
    (h,) = torch.autograd.grad(g, (x,))
    assert float(g) == 3 * 1.5**2 and float(h) == 6 * 1.5
    z = x / 3.0
    z.backward(retain_graph=True)
    z.backward()
    assert float(x.grad) == 2 / 3.0
