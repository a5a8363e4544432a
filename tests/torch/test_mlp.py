"""A 2-layer MLP trained with manual SGD in PyTorch style; its gradients equal GradientTape's."""
import numpy as np
import pytest

import tape
import tape.torch as torch
import tape.torch.nn as nn


def _data():
    rng = np.random.default_rng(0)
    X = rng.standard_normal((64, 3))
    Y = np.sin(X[:, :1]) + 0.5 * X[:, 1:2] * X[:, 2:3]
    return X, Y


def _init(seed=1):
    rng = np.random.default_rng(seed)
    return [rng.standard_normal((3, 16)) * 0.5, np.zeros(16), rng.standard_normal((16, 1)) * 0.5,
            np.zeros(1)]


def _loss_torch(X, Y, params):
    W1, b1, W2, b2 = params
    h = torch.tanh(X @ W1 + b1)
    out = h @ W2 + b2
    return ((out - Y) ** 2).mean()


def test_sgd_decreases_the_loss():
    X, Y = (torch.tensor(a) for a in _data())
    params = [torch.tensor(p, requires_grad=True) for p in _init()]
    losses = []
    for _ in range(200):
        loss = _loss_torch(X, Y, params)
        losses.append(loss.item())
        loss.backward()
        with torch.no_grad():
            for p in params:
                p -= 0.1 * p.grad
                p.grad.zero_()
    assert losses[-1] < 0.2 * losses[0]
    assert all(b <= a + 1e-12 for a, b in zip(losses[:50], losses[1:51]))
    assert all(p.is_leaf and p.requires_grad for p in params)


def test_gradients_match_the_gradient_tape():
    Xn, Yn = _data()
    init = _init(2)
    params = [torch.tensor(p, requires_grad=True) for p in init]
    _loss_torch(torch.tensor(Xn), torch.tensor(Yn), params).backward()

    variables = [tape.Variable(p) for p in init]
    with tape.GradientTape() as t:
        W1, b1, W2, b2 = variables
        h = tape.tanh(tape.constant(Xn) @ W1 + b1)
        loss = tape.reduce_mean((h @ W2 + b2 - Yn) ** 2)
    expected = t.gradient(loss, variables)
    for p, g in zip(params, expected):
        np.testing.assert_allclose(p.grad.numpy(), g.numpy(), rtol=1e-12, atol=1e-14)


def test_nn_modules_train_too():
    torch.manual_seed(0)
    X, Y = (torch.tensor(a) for a in _data())
    model = nn.Sequential(nn.Linear(3, 16), nn.Tanh(), nn.Linear(16, 1))
    loss_fn = nn.MSELoss()
    params = list(model.parameters())
    assert [tuple(p.shape) for p in params] == [(16, 3), (16,), (1, 16), (1,)]
    first = None
    for _ in range(150):
        loss = loss_fn(model(X), Y)
        first = loss.item() if first is None else first
        model.zero_grad()
        loss.backward()
        with torch.no_grad():
            for p in params:
                p -= 0.1 * p.grad
    assert loss.item() < 0.5 * first


@pytest.mark.parametrize("seed", [3, 4])
def test_linear_layer_gradient_by_hand(seed):
    torch.manual_seed(seed)
    layer = nn.Linear(4, 2)
    x = torch.randn(5, 4)
    layer(x).sum().backward()
    np.testing.assert_allclose(layer.weight.grad.numpy(), np.ones((5, 2)).T @ x.numpy())
    np.testing.assert_allclose(layer.bias.grad.numpy(), [5.0, 5.0])
