"""tape.torch against PyTorch's documented autograd behaviour (torch.autograd.backward,
Tensor.backward, torch.autograd.grad, no_grad, detach, requires_grad_, printing)."""
import numpy as np
import pytest

import tape
import tape.torch as torch


def test_grad_accumulates_across_backward_calls():
    # Tensor.backward docs: "This function accumulates gradients in the leaves"
    x = torch.tensor(2.0, requires_grad=True)
    (x * x).backward()
    assert x.grad.item() == 4.0
    (x * x * x).backward()
    assert x.grad.item() == 4.0 + 12.0
    x.grad.zero_()
    assert x.grad.item() == 0.0
    (3 * x).backward()
    assert x.grad.item() == 3.0


def test_second_backward_without_retain_graph_raises():
    x = torch.tensor(2.0, requires_grad=True)
    y = x * x
    y.backward()
    with pytest.raises(RuntimeError, match="Trying to backward through the graph a second time"):
        y.backward()


def test_retain_graph_allows_a_second_backward():
    x = torch.tensor(2.0, requires_grad=True)
    y = torch.sin(x) * x
    y.backward(retain_graph=True)
    first = x.grad.item()
    y.backward()
    assert x.grad.item() == pytest.approx(2 * first)
    with pytest.raises(RuntimeError, match="second time"):
        y.backward()


def test_ops_that_save_nothing_can_be_traversed_again():
    # y = x + 2 saves no tensor in PyTorch, so backward through it works twice
    x = torch.ones(2, 2, requires_grad=True)
    y = x + 2
    y.backward(torch.ones(2, 2))
    z = y * y
    z.backward(torch.ones(2, 2))
    np.testing.assert_array_equal(x.grad.numpy(), np.full((2, 2), 7.0))


def test_non_scalar_backward_needs_gradient():
    x = torch.tensor([1.0, 2.0], requires_grad=True)
    y = x * 3
    with pytest.raises(RuntimeError, match="grad can be implicitly created only for scalar outputs"):
        y.backward()
    y.backward(gradient=torch.tensor([1.0, 10.0]))
    np.testing.assert_array_equal(x.grad.numpy(), [3.0, 30.0])


def test_backward_gradient_shape_must_match():
    x = torch.tensor([1.0, 2.0], requires_grad=True)
    with pytest.raises(RuntimeError, match="Mismatch in shape"):
        (x * 2).backward(torch.ones(3))


def test_backward_of_a_tensor_without_grad_fn_raises():
    x = torch.tensor(1.0)
    with pytest.raises(RuntimeError, match="does not require grad and does not have a grad_fn"):
        (x * 2).backward()


def test_autograd_grad_returns_a_tuple_and_leaves_grad_alone():
    x = torch.tensor(3.0, requires_grad=True)
    w = torch.tensor(2.0, requires_grad=True)
    y = w * x ** 2
    gx, gw = torch.autograd.grad(y, (x, w))
    assert (gx.item(), gw.item()) == (12.0, 9.0)
    assert x.grad is None and w.grad is None


def test_autograd_grad_with_respect_to_an_intermediate():
    x = torch.tensor(3.0, requires_grad=True)
    h = x * x
    y = torch.sin(h)
    (gh,) = torch.autograd.grad(y, h, retain_graph=True)
    assert gh.item() == pytest.approx(np.cos(9.0))
    (gx,) = torch.autograd.grad(y, x)
    assert gx.item() == pytest.approx(np.cos(9.0) * 6.0)


def test_allow_unused():
    x = torch.tensor(1.0, requires_grad=True)
    z = torch.tensor(1.0, requires_grad=True)
    y = x * 2
    with pytest.raises(RuntimeError, match="Set allow_unused=True"):
        torch.autograd.grad(y, [x, z], retain_graph=True)
    gx, gz = torch.autograd.grad(y, [x, z], allow_unused=True, retain_graph=True)
    assert gx.item() == 2.0 and gz is None
    gx, gz = torch.autograd.grad(y, [x, z], materialize_grads=True)
    assert gz.item() == 0.0


def test_grad_outputs_weight_the_outputs():
    x = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
    y = x ** 2
    (g,) = torch.autograd.grad(y, x, grad_outputs=torch.tensor([1.0, 0.5, 0.0]))
    np.testing.assert_allclose(g.numpy(), [2.0, 2.0, 0.0])


def test_create_graph_gives_higher_derivatives():
    x = torch.tensor(0.7, requires_grad=True)
    y = x ** 4 + torch.exp(x)
    (d1,) = torch.autograd.grad(y, x, create_graph=True)
    assert d1.requires_grad and d1.grad_fn is not None
    (d2,) = torch.autograd.grad(d1, x, create_graph=True)
    (d3,) = torch.autograd.grad(d2, x)
    e = np.exp(0.7)
    assert d1.item() == pytest.approx(4 * 0.7 ** 3 + e)
    assert d2.item() == pytest.approx(12 * 0.7 ** 2 + e)
    assert d3.item() == pytest.approx(24 * 0.7 + e)


def test_backward_create_graph_leaves_a_differentiable_grad():
    x = torch.tensor(1.5, requires_grad=True)
    (x ** 3).backward(create_graph=True)
    g = x.grad
    assert g.item() == pytest.approx(3 * 1.5 ** 2) and g.requires_grad
    (h,) = torch.autograd.grad(g, x)
    assert h.item() == pytest.approx(6 * 1.5)


def test_backward_inputs_restricts_accumulation():
    a = torch.tensor(1.0, requires_grad=True)
    b = torch.tensor(2.0, requires_grad=True)
    (a * b).backward(inputs=[a])
    assert a.grad.item() == 2.0 and b.grad is None


def test_no_grad_context_and_decorator():
    x = torch.tensor(1.0, requires_grad=True)
    with torch.no_grad():
        y = x * 2
    assert not y.requires_grad and y.grad_fn is None

    @torch.no_grad()
    def double(t):
        return t * 2
    assert not double(x).requires_grad

    @torch.no_grad
    def triple(t):
        return t * 3
    assert not triple(x).requires_grad and triple(x).item() == 3.0
    assert torch.is_grad_enabled()
    with torch.no_grad():
        with torch.enable_grad():
            assert (x * 2).requires_grad
    with torch.set_grad_enabled(False):
        assert not (x * 2).requires_grad
    assert (x * 2).requires_grad


def test_detach_and_requires_grad_():
    x = torch.tensor([1.0, 2.0], requires_grad=True)
    y = x * 2
    d = y.detach()
    assert not d.requires_grad and d.is_leaf and d.grad_fn is None
    np.testing.assert_array_equal(d.numpy(), [2.0, 4.0])
    z = torch.tensor([1.0, 2.0])
    assert not z.requires_grad
    assert z.requires_grad_() is z and z.requires_grad and z.is_leaf
    with pytest.raises(RuntimeError, match="floating point and complex dtype"):
        torch.tensor([1, 2]).requires_grad_()
    with pytest.raises(RuntimeError, match="leaf variables"):
        y.requires_grad_(False)


def test_is_leaf_and_requires_grad():
    a = torch.rand(3, requires_grad=True)
    b = torch.rand(3)
    c = a * 2
    assert a.is_leaf and b.is_leaf and not c.is_leaf
    assert (b * 2).is_leaf and not (b * 2).requires_grad
    assert c.requires_grad


def test_numpy_and_item():
    x = torch.tensor([1.5, 2.5], requires_grad=True)
    with pytest.raises(RuntimeError, match=r"Can't call numpy\(\) on Tensor that requires grad"):
        x.numpy()
    np.testing.assert_array_equal(x.detach().numpy(), [1.5, 2.5])
    assert torch.tensor(3.25).item() == 3.25 and isinstance(torch.tensor(3).item(), int)
    with pytest.raises(RuntimeError, match="a Tensor with 2 elements cannot be converted to Scalar"):
        x.item()


def test_grad_fn_names_and_next_functions():
    x = torch.tensor(2.0, requires_grad=True)
    y = 2 * x ** 3 + 6
    assert y.grad_fn.name() == "AddBackward0"
    (mul, _), (none, _) = y.grad_fn.next_functions
    assert mul.name() == "MulBackward0" and none is None
    (const, _), (pow_, _) = mul.next_functions
    assert const is None and pow_.name() == "PowBackward0"
    ((acc, _), (none2, _)) = pow_.next_functions
    assert type(acc).__name__ == "AccumulateGrad" and acc.variable is x and none2 is None
    names = {
        "SubBackward0": x - 1, "DivBackward0": x / 2, "NegBackward0": -x, "SinBackward0": x.sin(),
        "ExpBackward0": torch.exp(x), "SumBackward0": x.sum(), "MeanBackward0": (x * 1).mean(),
        "RsubBackward1": 1 - x, "PowBackward1": x ** x, "TanhBackward0": torch.tanh(x),
    }
    for name, t in names.items():
        assert type(t.grad_fn).__name__ == name
    m = torch.ones(2, 2, requires_grad=True)
    assert (m @ m).grad_fn.name() == "MmBackward0"
    assert m.sum(dim=0).grad_fn.name() == "SumBackward1"
    assert m[0].grad_fn.name() == "SelectBackward0"
    assert m[:, 1:].grad_fn.name() == "SliceBackward0"


@pytest.mark.parametrize("make, text", [
    (lambda: torch.tensor(0.5, requires_grad=True), "tensor(0.5000, requires_grad=True)"),
    (lambda: torch.tensor(10.5), "tensor(10.5000)"),
    (lambda: torch.tensor(3.0), "tensor(3.)"),
    (lambda: torch.tensor([1.0, 2.0, 3.0]), "tensor([1., 2., 3.])"),
    (lambda: torch.tensor([1.0, 2.5]), "tensor([1.0000, 2.5000])"),
    (lambda: torch.tensor([1, 2, 3]), "tensor([1, 2, 3])"),
    (lambda: torch.tensor([True, False]), "tensor([ True, False])"),
    (lambda: torch.tensor([1e-5, 1.0]), "tensor([1.0000e-05, 1.0000e+00])"),
    (lambda: torch.tensor([0.5], dtype=torch.float32), "tensor([0.5000], dtype=torch.float32)"),
    (lambda: torch.tensor([[1.0, 2.0], [3.0, 4.5]]), "tensor([[1.0000, 2.0000],\n        [3.0000, 4.5000]])"),
    (lambda: torch.tensor([]), "tensor([])"),
    (lambda: torch.zeros(2, requires_grad=True) * 2, "tensor([0., 0.], grad_fn=<MulBackward0>)"),
    (lambda: torch.arange(2000.0), "tensor([0.0000e+00, 1.0000e+00, 2.0000e+00,  ..., 1.9970e+03, 1.9980e+03,\n        1.9990e+03])"),
])
def test_printing(make, text):
    assert repr(make()) == text
    assert str(make()) == text


def test_broadcasting_gradients_reduce_to_input_shapes():
    a = torch.ones(3, 1, requires_grad=True)
    b = torch.tensor([1.0, 2.0, 3.0, 4.0], requires_grad=True)
    (a * b).sum().backward()
    assert a.grad.shape == (3, 1) and b.grad.shape == (4,)
    np.testing.assert_array_equal(a.grad.numpy(), np.full((3, 1), 10.0))
    np.testing.assert_array_equal(b.grad.numpy(), np.full(4, 3.0))
    s = torch.tensor(2.0, requires_grad=True)
    (s * torch.ones(5)).sum().backward()
    assert s.grad.shape == () and s.grad.item() == 5.0


def test_indexing_and_slicing_gradients():
    x = torch.arange(12.0).reshape(3, 4).requires_grad_()
    y = x[1, 1:3].sum() * 2 + x[:, 0].sum() + x[torch.tensor([0, 0])].sum()
    y.backward()
    want = np.zeros((3, 4))
    want[1, 1:3] += 2
    want[:, 0] += 1
    want[0] += 2
    np.testing.assert_array_equal(x.grad.numpy(), want)


def test_sum_and_mean_with_dim_and_keepdim():
    x = torch.arange(6.0).reshape(2, 3).requires_grad_()
    s = x.sum(dim=1, keepdim=True)
    assert s.shape == (2, 1)
    m = torch.mean(x, dim=0)
    assert m.shape == (3,)
    np.testing.assert_allclose(m.detach().numpy(), [1.5, 2.5, 3.5])
    (s.sum() + m.sum()).backward()
    np.testing.assert_allclose(x.grad.numpy(), np.full((2, 3), 1.5))


def test_matmul_forms():
    a = torch.randn(2, 3, requires_grad=True)
    b = torch.randn(3, 4, requires_grad=True)
    v = torch.randn(3, requires_grad=True)
    assert (a @ b).shape == (2, 4) and torch.mm(a, b).shape == (2, 4)
    assert torch.matmul(a, v).shape == (2,) and (v @ v).shape == ()
    (a @ b).sum().backward()
    np.testing.assert_allclose(a.grad.numpy(), np.ones((2, 4)) @ b.detach().numpy().T)
    np.testing.assert_allclose(b.grad.numpy(), a.detach().numpy().T @ np.ones((2, 4)))


def test_creation_functions_and_dtypes():
    assert torch.tensor(0.5).dtype == torch.float64
    assert torch.tensor(1).dtype == torch.int64 and torch.tensor(True).dtype == torch.bool
    assert torch.tensor([1.0], dtype=torch.float32).dtype == torch.float32
    assert torch.arange(5).dtype == torch.int64 and torch.arange(0.0, 1.0, 0.25).shape == (4,)
    np.testing.assert_allclose(torch.linspace(0, 1, 5).numpy(), [0, 0.25, 0.5, 0.75, 1.0])
    assert torch.zeros(2, 3).shape == torch.Size([2, 3]) and torch.ones((2,)).sum().item() == 2.0
    assert torch.full((2, 2), 7.0).sum().item() == 28.0
    x = torch.rand(4, 5)
    assert torch.zeros_like(x).shape == (4, 5) and torch.ones_like(x).sum().item() == 20.0
    assert repr(x.shape) == "torch.Size([4, 5])" and x.size(1) == 5 and x.dim() == 2


def test_manual_seed_is_reproducible():
    torch.manual_seed(3)
    a, b = torch.rand(5), torch.randn(2, 2)
    torch.manual_seed(3)
    np.testing.assert_array_equal(a.numpy(), torch.rand(5).numpy())
    np.testing.assert_array_equal(b.numpy(), torch.randn(2, 2).numpy())
    r = torch.rand(1000)
    assert 0 <= r.min().item() and r.max().item() < 1


def test_in_place_update_of_a_leaf_under_no_grad():
    w = torch.tensor([1.0, 2.0], requires_grad=True)
    (w * w).sum().backward()
    with torch.no_grad():
        w -= 0.5 * w.grad
    assert w.is_leaf and w.requires_grad
    np.testing.assert_array_equal(w.detach().numpy(), [0.0, 0.0])
    with pytest.raises(RuntimeError, match="a leaf Variable that requires grad"):
        w += 1


def test_retain_grad_keeps_a_non_leaf_gradient():
    x = torch.tensor(3.0, requires_grad=True)
    h = x * x
    h.retain_grad()
    (h * 2).backward()
    assert h.grad.item() == 2.0 and x.grad.item() == 12.0


def test_a_saved_value_changed_in_place_raises_as_in_pytorch():
    # a leaf changed in place after the forward pass: a rule that reads it may not run
    # (PyTorch's error, checked against PyTorch 2.13); one that does not read it runs
    w = torch.tensor(3.0, requires_grad=True)
    y = w * w
    z = w + 1
    with torch.no_grad():
        w.copy_(torch.tensor(100.0))
    with pytest.raises(RuntimeError, match="modified by an inplace operation"):
        y.backward()
    z.backward()
    assert w.grad.item() == 1.0
    # an output whose rule reads it (exp), changed in place
    x = torch.tensor([1.0, 2.0], requires_grad=True)
    e = x.exp()
    s = e.sum()
    e.mul_(2)
    with pytest.raises(RuntimeError, match="modified by an inplace operation"):
        s.backward()


def test_interoperates_with_gradient_tape():
    x = tape.Variable(0.5)
    with tape.GradientTape() as t:
        y = torch.sin(x) * 2 + x ** 2
    assert isinstance(y, torch.Tensor)
    assert float(t.gradient(y, x)) == pytest.approx(2 * np.cos(0.5) + 1.0)
