"""torch.nn.functional's losses on tape.torch: values and gradients by hand (NumPy), and, where
PyTorch itself is installed, against PyTorch running the same code."""
import importlib.util

import numpy as np
import pytest

import tape.torch as torch
import tape.torch.nn.functional as F


def _sigmoid(z):
    return 1 / (1 + np.exp(-z))


def test_the_pytorch_tutorial_autograd_example():
    # PyTorch's "Automatic differentiation with torch.autograd" tutorial, as written there
    x = torch.ones(5)  # input tensor
    y = torch.zeros(3)  # expected output
    w = torch.randn(5, 3, requires_grad=True)
    b = torch.randn(3, requires_grad=True)
    z = torch.matmul(x, w) + b
    loss = torch.nn.functional.binary_cross_entropy_with_logits(z, y)
    loss.backward()
    zn = np.ones(5) @ w.detach().numpy() + b.detach().numpy()
    assert loss.item() == pytest.approx(np.mean(-np.log(1 - _sigmoid(zn))))
    dz = _sigmoid(zn) / 3
    np.testing.assert_allclose(b.grad.numpy(), dz)
    np.testing.assert_allclose(w.grad.numpy(), np.outer(np.ones(5), dz))
    assert z.grad_fn.name() == "AddBackward0"


def test_cross_entropy_with_class_indices():
    logits = torch.randn(4, 3, requires_grad=True)
    target = torch.tensor([0, 2, 1, 2])
    loss = F.cross_entropy(logits, target)
    loss.backward()
    z = logits.detach().numpy()
    p = np.exp(z - z.max(1, keepdims=True))
    p /= p.sum(1, keepdims=True)
    onehot = np.eye(3)[[0, 2, 1, 2]]
    assert loss.item() == pytest.approx(-np.mean(np.log(p[range(4), [0, 2, 1, 2]])))
    np.testing.assert_allclose(logits.grad.numpy(), (p - onehot) / 4)


def test_other_losses():
    a = torch.tensor([0.2, 0.7], requires_grad=True)
    t = torch.tensor([0.0, 1.0])
    assert F.binary_cross_entropy(a, t).item() == pytest.approx(-np.mean(np.log([0.8, 0.7])))
    assert F.l1_loss(a, t).item() == pytest.approx(0.25)
    assert F.mse_loss(a, t, reduction="sum").item() == pytest.approx(0.04 + 0.09)
    with pytest.raises(ValueError, match="not a valid value for reduction"):
        F.mse_loss(a, t, reduction="avg")


PROGRAMS = {
    "poly": "x = torch.tensor(0.5, requires_grad=True)\ny = 2 * x ** 3 + 4 * x ** 2 + 5 * x + 6\ny.backward()\nout = [y, x.grad]",
    "vector": "x = torch.tensor([0.25, -1.5, 3.0], requires_grad=True)\ny = (torch.sin(x) * x.exp()).sum()\ny.backward()\nout = [y, x.grad]",
    "matrix": "a = torch.tensor([[1.0, 2.0], [3.0, 4.5]], requires_grad=True)\ny = (a @ a.t()).tanh()\ny.sum().backward()\nout = [y, a.grad]",
    "broadcast": "a = torch.tensor([[1.0], [2.0]], requires_grad=True)\nb = torch.tensor([0.5, 1.5, 2.5], requires_grad=True)\ny = (a * b + a / b).mean(dim=1)\ny.backward(torch.tensor([1.0, -2.0]))\nout = [y, a.grad, b.grad]",
    "second": "x = torch.tensor(1.25, requires_grad=True)\n(g,) = torch.autograd.grad(torch.log(x) * x ** 2, x, create_graph=True)\n(h,) = torch.autograd.grad(g, x)\nout = [g, h]",
    "index": "x = torch.arange(6.0).reshape(2, 3).requires_grad_()\ny = x[1, 1:] * x[0, :2]\ny.sum().backward()\nout = [y, x.grad]",
}


def _real_pytorch_installed() -> bool:
    # tests/ is on sys.path under pytest, so this folder would pass for a namespace package
    spec = importlib.util.find_spec("torch")
    return spec is not None and spec.origin not in (None, "namespace")


@pytest.mark.skipif(not _real_pytorch_installed(), reason="PyTorch is not installed")
@pytest.mark.parametrize("name", sorted(PROGRAMS))
def test_same_program_same_output_as_pytorch(name):
    import torch as real
    code = PROGRAMS[name]
    ours, theirs = {"torch": torch}, {"torch": real}
    real.set_default_dtype(real.float64)            # tape's default
    try:
        exec(code, ours)  # noqa: S102 - test programs above
        exec(code, theirs)  # noqa: S102
        for a, b in zip(ours["out"], theirs["out"]):
            assert repr(a) == repr(b)
            np.testing.assert_allclose(a.detach().numpy(), b.detach().numpy(), rtol=1e-12, atol=1e-15)
    finally:
        real.set_default_dtype(real.float32)
