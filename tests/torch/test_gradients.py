"""Every op tape.torch exposes, differentiated by its graph (first and second order) and
compared with central differences (the engine's own stencil, tape.engine.testing)."""
import numpy as np
import pytest

import tape.torch as torch
from tape.engine.testing import numerical_directional_derivative

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
    "maximum": (torch.maximum, [(_any, (4,)), (_any, (4,))]),
    "minimum": (torch.minimum, [(_any, (4,)), (_any, (4,))]),
    "atan2": (torch.atan2, [(_pos, (3,)), (_pos, (3,))]),
    "mul method": (lambda a, b: a.mul(b).add(a, alpha=2.0), [(_any, (3,)), (_any, (3,))]),
    # reductions
    "sum": (torch.sum, [(_any, (2, 3))]),
    "sum dim": (lambda x: x.sum(dim=1), [(_any, (2, 3))]),
    "sum keepdim": (lambda x: x.sum(0, keepdim=True), [(_any, (2, 3))]),
    "mean": (torch.mean, [(_any, (2, 3))]),
    "mean dim": (lambda x: x.mean(dim=(0, 1)), [(_any, (2, 3, 2))]),
    "prod": (lambda x: x.prod(dim=1), [(_pos, (2, 3))]),
    "max": (lambda x: torch.max(x), [(_any, (5,))]),
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


def _torch_scalar(fn, weight, xs):
    y = fn(*xs)
    return (y * torch.tensor(weight)).sum() if np.ndim(weight) else y * float(weight)


def _directional(fn, arrays, weight, directions, order):
    """d/dt of sum(w * fn(x + t d)) by tape.torch's graph; ``order`` 2 differentiates it again."""
    xs = [torch.tensor(a, requires_grad=True) for a in arrays]
    y = _torch_scalar(fn, weight, xs)
    grads = torch.autograd.grad(y, xs, create_graph=order > 1, allow_unused=True)
    total = 0.0
    for g, d in zip(grads, directions):
        if g is not None:
            total = total + (g * torch.tensor(d)).sum()
    if order == 1:
        return float(total.item() if hasattr(total, "item") else total)
    if not getattr(total, "requires_grad", False):
        return 0.0          # the first derivative does not depend on x (a linear op), as in PyTorch
    grads2 = torch.autograd.grad(total, xs, allow_unused=True)
    return float(sum((g2.detach() * torch.tensor(d)).sum().item()
                     for g2, d in zip(grads2, directions) if g2 is not None))


def _numeric(fn, arrays, weight, directions, order):
    def value(arrs):
        with torch.no_grad():
            return float(_torch_scalar(fn, weight, [torch.tensor(a) for a in arrs]).item())
    if order == 1:
        return numerical_directional_derivative(value, arrays, directions, eps=1e-5)

    def first(arrs):
        return _directional(fn, arrs, weight, directions, 1)
    return numerical_directional_derivative(first, arrays, directions, eps=1e-4)


@pytest.mark.parametrize("name", sorted(OPS))
@pytest.mark.parametrize("order", [1, 2])
def test_op_matches_central_differences(name, order):
    fn, specs = OPS[name]
    rng = np.random.default_rng(abs(hash(name)) % 2 ** 32)
    arrays = [make(shape) for make, shape in specs]
    with torch.no_grad():
        out = fn(*[torch.tensor(a) for a in arrays])
    weight = rng.standard_normal(np.shape(out.numpy()))
    directions = [rng.standard_normal(a.shape) for a in arrays]
    got = _directional(fn, arrays, weight, directions, order)
    want = _numeric(fn, arrays, weight, directions, order)
    assert got == pytest.approx(want, rel=1e-5 if order == 1 else 1e-4, abs=1e-6), \
        f"{name}: order {order}: graph {got}, central differences {want}"


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
