"""Every op tape.torch exposes, differentiated to second order and checked against central
differences by the engine's own checker (``tape.engine.testing.check_grads``, the one its registry
sweep uses) in reverse, forward and Taylor mode; then tape.torch's own graph (``autograd.grad``,
``create_graph=True`` for the second order) must give the engine's reverse-mode numbers."""
import zlib

import numpy as np
import pytest

import tape
import tape.torch as torch
from tape.engine.testing import check_grads

RNG = np.random.default_rng(7)


def _pos(shape):
    return RNG.uniform(0.5, 1.5, shape)


def _unit(shape):
    return RNG.uniform(-0.8, 0.8, shape)


def _any(shape):
    return RNG.standard_normal(shape)


def _big(shape):
    return RNG.uniform(1.2, 2.0, shape)


def _away(shape):           # away from 0, for kinks (abs, relu, max)
    return RNG.choice([-1, 1], shape) * RNG.uniform(0.3, 1.5, shape)


def _grid(offset):
    """Values on a lattice of step 1 shifted by ``offset`` (with a little noise): two inputs on
    lattices 0.5 apart are at least 0.3 apart everywhere, so a central difference never
    crosses a tie of maximum/minimum, and either may be the larger."""
    return lambda shape: (RNG.integers(-2, 2, shape) + offset
                          + RNG.uniform(-0.1, 0.1, shape))


def _distinct(shape):       # no two alike: max of a vector has one argmax, well apart
    return (RNG.permutation(np.prod(shape)) * 0.5 + RNG.uniform(-0.1, 0.1, shape)).reshape(shape)


# name -> (function of torch tensors, input generators and shapes)
OPS = {
    # unary functions and methods
    **{name: (getattr(torch, name), [(_any, (3,))]) for name in
       ("sin", "cos", "tanh", "sigmoid", "exp", "atan", "sinh", "cosh", "asinh", "erf", "square",
        "neg", "expm1")},
    "tan": (torch.tan, [(_unit, (3,))]),
    "asin": (torch.asin, [(_unit, (3,))]),
    "acos": (torch.acos, [(_unit, (3,))]),
    "atanh": (torch.atanh, [(_unit, (3,))]),
    "acosh": (torch.acosh, [(_big, (3,))]),
    "log": (torch.log, [(_pos, (3,))]),
    "log1p": (torch.log1p, [(_pos, (3,))]),
    "sqrt": (torch.sqrt, [(_pos, (3,))]),
    "rsqrt": (torch.rsqrt, [(_pos, (3,))]),
    "reciprocal": (torch.reciprocal, [(_pos, (3,))]),
    "abs": (torch.abs, [(_away, (3,))]),
    "relu": (torch.relu, [(_away, (3,))]),
    "method sin": (lambda x: x.sin(), [(_any, (2, 2))]),
    "method pow": (lambda x: x.pow(3), [(_any, (3,))]),
    # binary operators, with broadcasting
    "add": (lambda a, b: a + b, [(_any, (2, 3)), (_any, (3,))]),
    "sub": (lambda a, b: a - b, [(_any, (2, 1)), (_any, (2, 3))]),
    "mul": (lambda a, b: a * b, [(_any, (2, 3)), (_any, (1, 3))]),
    "div": (lambda a, b: a / b, [(_any, (3,)), (_pos, (3,))]),
    "pow tensor": (lambda a, b: a ** b, [(_pos, (3,)), (_any, (3,))]),
    "pow scalar": (lambda a: a ** 2.5, [(_pos, (3,))]),
    "rsub": (lambda a: 2.0 - a, [(_any, (3,))]),
    "rdiv": (lambda a: 2.0 / a, [(_pos, (3,))]),
    "rpow": (lambda a: 2.0 ** a, [(_any, (3,))]),
    "torch.pow": (lambda a, b: torch.pow(a, b), [(_pos, (3,)), (_any, (3,))]),
    "maximum": (torch.maximum, [(_grid(0.0), (4,)), (_grid(0.5), (4,))]),
    "minimum": (torch.minimum, [(_grid(0.0), (4,)), (_grid(0.5), (4,))]),
    "atan2": (torch.atan2, [(_pos, (3,)), (_pos, (3,))]),
    "mul method": (lambda a, b: a.mul(b).add(a, alpha=2.0), [(_any, (3,)), (_any, (3,))]),
    # reductions
    "sum": (torch.sum, [(_any, (2, 3))]),
    "sum dim": (lambda x: x.sum(dim=1), [(_any, (2, 3))]),
    "sum keepdim": (lambda x: x.sum(0, keepdim=True), [(_any, (2, 3))]),
    "mean": (torch.mean, [(_any, (2, 3))]),
    "mean dim": (lambda x: x.mean(dim=(0, 1)), [(_any, (2, 3, 2))]),
    "prod": (lambda x: x.prod(dim=1), [(_pos, (2, 3))]),
    "max": (lambda x: torch.max(x), [(_distinct, (5,))]),
    "max dim": (lambda x: x.max(dim=1).values, [(_any, (2, 5))]),
    "amin": (lambda x: torch.amin(x, dim=0), [(_any, (3, 2))]),
    "logsumexp": (lambda x: torch.logsumexp(x, dim=1), [(_any, (2, 3))]),
    "norm": (lambda x: x.norm(), [(_any, (4,))]),
    "std": (lambda x: x.std(), [(_any, (5,))]),
    "softmax": (lambda x: torch.softmax(x, dim=-1), [(_any, (2, 3))]),
    "log_softmax": (lambda x: torch.log_softmax(x, dim=1), [(_any, (2, 3))]),
    # linear algebra
    "matmul": (lambda a, b: a @ b, [(_any, (2, 3)), (_any, (3, 4))]),
    "mv": (torch.mv, [(_any, (2, 3)), (_any, (3,))]),
    "dot": (torch.dot, [(_any, (3,)), (_any, (3,))]),
    "bmm": (torch.bmm, [(_any, (2, 2, 3)), (_any, (2, 3, 2))]),
    "outer": (torch.outer, [(_any, (3,)), (_any, (2,))]),
    # shape and indexing
    "reshape": (lambda x: torch.reshape(x, (3, 2)) * torch.arange(6.0).reshape(3, 2), [(_any, (2, 3))]),
    "view": (lambda x: x.view(-1) ** 2, [(_any, (2, 3))]),
    "t": (lambda x: x.t() @ x, [(_any, (2, 3))]),
    "transpose": (lambda x: x.transpose(0, 2) ** 2, [(_any, (2, 3, 2))]),
    "permute": (lambda x: x.permute(1, 0) * torch.arange(6.0).reshape(3, 2), [(_any, (2, 3))]),
    "unsqueeze/squeeze": (lambda x: x.unsqueeze(0).squeeze() ** 3, [(_any, (3,))]),
    "flatten": (lambda x: x.flatten() ** 2, [(_any, (2, 2))]),
    "expand": (lambda x: x.expand(3, 2) * torch.arange(6.0).reshape(3, 2), [(_any, (1, 2))]),
    "index": (lambda x: x[1] * x[0, 2], [(_any, (2, 3))]),
    "slice": (lambda x: x[:, 1:] ** 2, [(_any, (2, 3))]),
    "step slice": (lambda x: x[::2] ** 2, [(_any, (5,))]),
    "fancy index": (lambda x: x[torch.tensor([0, 2, 2])] ** 2, [(_any, (3,))]),
    "cat": (lambda a, b: torch.cat([a, b * 2], dim=0) ** 2, [(_any, (2, 2)), (_any, (1, 2))]),
    "stack": (lambda a, b: torch.stack([a, b], dim=1) ** 2, [(_any, (3,)), (_any, (3,))]),
    "where": (lambda a, b: torch.where(a > 0, a * b, b ** 2), [(_away, (4,)), (_any, (4,))]),
    "clamp": (lambda x: torch.clamp(x, -0.5, 0.5) * x, [(_away, (4,))]),
    "unbind": (lambda x: torch.unbind(x)[1] * 3, [(_any, (2, 2))]),
}


def _on_engine_tensors(fn):
    """``fn`` taking the engine's tensors (as check_grads and GradientTape hand them over)."""
    return lambda *xs: fn(*[torch.as_tensor(x) for x in xs])


def _inputs(name):
    fn, specs = OPS[name]
    rng = np.random.default_rng(zlib.crc32(name.encode()))     # str hashes vary by process
    arrays = [make(shape) for make, shape in specs]
    with torch.no_grad():
        out = fn(*[torch.tensor(a) for a in arrays])
    weight = rng.standard_normal(np.shape(out.numpy()))
    directions = [rng.standard_normal(a.shape) for a in arrays]
    return fn, arrays, weight, directions


@pytest.mark.parametrize("name", sorted(OPS))
@pytest.mark.parametrize("mode", ["rev", "fwd", "taylor"])
def test_op_passes_the_engines_checker(name, mode):
    """The op as the engine's tapes, accumulators and Taylor mode see it (torch ops offer
    themselves to them), to second order, against central differences."""
    fn, arrays, _, _ = _inputs(name)
    check_grads(_on_engine_tensors(fn), arrays, order=2, modes=(mode,))


def _torch_graph(fn, arrays, weight, directions):
    """Gradient of sum(w * fn(x)) (twice) and its derivative along ``directions`` by tape.torch's
    graph."""
    xs = [torch.tensor(a, requires_grad=True) for a in arrays]
    y = (fn(*xs) * torch.tensor(weight)).sum()
    # first without create_graph (the ops' fast raw-NumPy rules), then with it (their tensor rules)
    fast = torch.autograd.grad(y, xs, retain_graph=True, allow_unused=True)
    grads = torch.autograd.grad(y, xs, create_graph=True, allow_unused=True)
    total = sum((g * torch.tensor(d)).sum() for g, d in zip(grads, directions) if g is not None)
    if not getattr(total, "requires_grad", False):      # a linear op: PyTorch gives no graph
        second = [None] * len(xs)
    else:
        second = torch.autograd.grad(total, xs, allow_unused=True)
    return ([None if g is None else g.numpy() for g in fast],
            [None if g is None else g.detach().numpy() for g in grads],
            [None if g is None else g.numpy() for g in second])


def _engine_tapes(fn, arrays, weight, directions):
    """The same two by the engine's nested GradientTapes."""
    f = _on_engine_tensors(fn)
    xs = [tape.constant(a) for a in arrays]
    with tape.GradientTape() as outer:
        outer.watch(xs)
        with tape.GradientTape() as inner:
            inner.watch(xs)
            y = tape.reduce_sum(f(*xs) * tape.constant(weight))
        grads = inner.gradient(y, xs)
        total = sum(tape.reduce_sum(g * tape.constant(d))
                    for g, d in zip(grads, directions) if g is not None)
    second = outer.gradient(total, xs)
    return ([None if g is None else g.numpy() for g in grads],
            [None if g is None else g.numpy() for g in second])


def _same(got, want, what):
    for i, (a, b) in enumerate(zip(got, want)):
        if b is None or not np.any(b):      # no path, or a zero one: PyTorch may say None
            assert a is None or not np.any(a), f"{what}, input {i}: {a} where the engine has {b}"
        else:
            assert a is not None, f"{what}, input {i}: None where the engine has {b}"
            np.testing.assert_allclose(a, b, rtol=1e-10, atol=1e-12, err_msg=f"{what}, input {i}")


@pytest.mark.parametrize("name", sorted(OPS))
def test_graph_gives_the_engines_derivatives(name):
    fn, arrays, weight, directions = _inputs(name)
    fast, first, second = _torch_graph(fn, arrays, weight, directions)
    want_first, want_second = _engine_tapes(fn, arrays, weight, directions)
    _same(fast, want_first, f"{name}: gradient")
    _same(first, want_first, f"{name}: gradient with create_graph")
    _same(second, want_second, f"{name}: second derivative along a direction")


def test_every_gradient_has_its_input_shape_and_dtype():
    for name, (fn, specs) in OPS.items():
        xs = [torch.tensor(make(shape), requires_grad=True) for make, shape in specs]
        y = fn(*xs).sum()
        for x, g in zip(xs, torch.autograd.grad(y, xs, allow_unused=True)):
            if g is not None:
                assert g.shape == x.shape and g.dtype == x.dtype, name


def test_float32_stays_float32():
    x = torch.tensor([0.5, 1.5], dtype=torch.float32, requires_grad=True)
    y = (torch.sin(x) * 2.0).sum()
    y.backward()
    assert y.dtype == torch.float32 and x.grad.dtype == torch.float32
    np.testing.assert_allclose(x.grad.numpy(), 2 * np.cos([0.5, 1.5]), rtol=1e-6)


def test_third_derivative_through_create_graph():
    x = torch.tensor(0.3, requires_grad=True)
    y = torch.sin(x) * torch.exp(x)
    g = x
    d = y
    for _ in range(3):
        (d,) = torch.autograd.grad(d, x, create_graph=True)
    # d^3/dx^3 e^x sin x = 2^(3/2) e^x sin(x + 3 pi / 4)
    assert d.item() == pytest.approx(2 ** 1.5 * np.exp(0.3) * np.sin(0.3 + 3 * np.pi / 4))
    assert g is x
