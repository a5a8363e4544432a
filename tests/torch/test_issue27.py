"""Issue 27's cases, not from PyTorch's test suite: each was a silent difference from PyTorch
(or an error PyTorch does not raise) in tape.torch. Written here from the issue; like the
ported tests, ``TAPE_TORCH_REFERENCE=1`` runs this file on PyTorch, so every assertion is
PyTorch's behaviour (checked with PyTorch 2.13).
"""
import math
import threading
import time

import pytest
from torch_port import assert_equal, torch

inf = math.inf


def test_grad_mode_is_thread_local():
    """Grad mode set in one thread does not change another's: a thread holding no_grad while
    this one runs backward, and threads started inside no_grad."""
    started, release = threading.Event(), threading.Event()

    def holds_no_grad():
        with torch.no_grad():
            started.set()
            release.wait(10)

    t = threading.Thread(target=holds_no_grad)
    t.start()
    try:
        started.wait(10)
        assert torch.is_grad_enabled()
        x = torch.ones(3, requires_grad=True)
        (x * x).sum().backward()
        assert_equal(x.grad, 2 * torch.ones(3))
    finally:
        release.set()
        t.join()

    results = []

    def worker():
        enabled = torch.is_grad_enabled()
        x = torch.tensor(3.0, requires_grad=True)
        y = x * x * 2
        (g,) = torch.autograd.grad(y, x)
        results.append((enabled, g.item()))

    with torch.no_grad():
        threads = [threading.Thread(target=worker) for _ in range(4)]
        for th in threads:
            th.start()
        for th in threads:
            th.join()
    assert results == [(True, 12.0)] * 4


def test_atan2_zero_zero_gradient():
    """PyTorch's atan2 rule at (0, 0) (derivatives.yaml, atan2_backward: the reciprocal of
    x^2 + y^2 masked to 0 there); PyTorch 2.13 gives 0 and -0."""
    a = torch.tensor([0., 0., 1.], requires_grad=True)
    b = torch.tensor([0., 1., 0.], requires_grad=True)
    torch.atan2(a, b).sum().backward()
    assert_equal(a.grad, torch.tensor([0., 1., 0.]))
    assert_equal(b.grad, torch.tensor([0., 0., -1.]))


def test_pow_zero_base_exponent_gradient():
    """PyTorch's pow rule in the exponent (pow_backward_exponent): 0 where the base is 0 and
    the exponent >= 0, else out * log(base): -inf at 0 ** -1, nan for a negative base."""
    b = torch.tensor([0., 1., 2., -1., 0.5], requires_grad=True)
    (0 ** b).sum().backward()
    assert_equal(b.grad, torch.tensor([0., 0., 0., -inf, 0.]))
    b = torch.tensor([0., 1., 2., -1., 0.5], requires_grad=True)
    torch.pow(torch.zeros(5), b).sum().backward()
    assert_equal(b.grad, torch.tensor([0., 0., 0., -inf, 0.]))
    x = torch.tensor([-2., 2.], requires_grad=True)
    e = torch.tensor([2., 2.], requires_grad=True)
    (x ** e).sum().backward()
    assert_equal(x.grad, torch.tensor([-4., 4.]))
    assert_equal(e.grad, torch.tensor([math.nan, 4 * math.log(2)]))


def test_max_min_dim_tie_gradient():
    """max(dim) / min(dim) send the whole gradient to the index they return (derivatives.yaml:
    value_selecting_reduction_backward); amax / amin split it among the ties."""
    x = torch.tensor([[1., 3., 3.], [2., 2., 0.]], requires_grad=True)
    values, indices = x.max(1)
    values.sum().backward()
    expected = torch.zeros(2, 3)
    for row, i in enumerate(indices.tolist()):
        expected[row, i] = 1
    assert_equal(x.grad, expected)
    x = torch.tensor([[1., 3., 3.], [2., 2., 0.]], requires_grad=True)
    values, indices = torch.min(x, 0, keepdim=True)
    assert tuple(values.shape) == (1, 3)
    values.sum().backward()
    expected = torch.zeros(2, 3)
    for col, i in enumerate(indices[0].tolist()):
        expected[i, col] = 1
    assert_equal(x.grad, expected)
    x = torch.tensor([1., 3., 3.], requires_grad=True)
    x.amax().backward()
    assert_equal(x.grad, torch.tensor([0., 0.5, 0.5]))


def test_add_sub_functions():
    """torch.add / torch.sub as functions (with alpha), as the methods (the issue's repro)."""
    x = torch.tensor([1., 2.], requires_grad=True)
    y = torch.tensor([3., 5.], requires_grad=True)
    z = torch.add(x, y) + torch.sub(x, y, alpha=2)
    assert_equal(z, torch.tensor([1. + 3. + 1. - 6., 2. + 5. + 2. - 10.]))
    z.sum().backward()
    assert_equal(x.grad, torch.tensor([2., 2.]))
    assert_equal(y.grad, torch.tensor([-1., -1.]))


def test_randint_high_size():
    torch.manual_seed(0)
    r = torch.randint(3, (4, 5))
    assert tuple(r.shape) == (4, 5) and r.dtype == torch.int64
    assert 0 <= r.min().item() and r.max().item() < 3
    r = torch.randint(1, 3, (100,))
    assert 1 <= r.min().item() and r.max().item() < 3


def test_transpose_0d():
    x = torch.tensor(2.0, requires_grad=True)
    y = x.transpose(0, 0) * 3
    assert tuple(y.shape) == ()
    y.backward()
    assert x.grad.item() == 3.0
    assert torch.tensor(2.0).transpose(-1, 0).item() == 2.0
    with pytest.raises(IndexError, match="Dimension out of range"):
        torch.tensor(2.0).transpose(0, 1)


def test_grad_assignment_shape():
    x = torch.ones(2, requires_grad=True)
    with pytest.raises(RuntimeError, match="assigned|assign a gradient of size"):
        x.grad = torch.ones(3)
    x.grad = torch.ones(2)
    assert_equal(x.grad, torch.ones(2))


def test_sgd_step_through_data():
    """The hand-written SGD step of PyTorch's tutorials: ``p.data.sub_(lr * p.grad)`` moves ``p``
    (``.data`` shares storage); ``p.grad`` is the same tensor across backward passes."""
    p = torch.tensor([1.0, -2.0], requires_grad=True)
    (p * p).sum().backward()
    g = p.grad
    p.data.sub_(0.1 * p.grad)
    assert_equal(p, torch.tensor([0.8, -1.6]))
    (p * p).sum().backward()
    assert p.grad is g
    assert_equal(g, torch.tensor([2.0 + 1.6, -4.0 - 3.2]))
    with torch.no_grad():
        p -= 0.1 * p.grad
    assert_equal(p, torch.tensor([0.8 - 0.36, -1.6 + 0.72]))
    assert p.is_leaf and p.requires_grad


def test_inplace_on_views_and_detached():
    c = torch.zeros(3)
    c[0].fill_(5)
    assert_equal(c, torch.tensor([5., 0., 0.]))
    x = torch.ones(2, 3)
    x.view(-1)[4] = 7
    x.t()[0].mul_(2)
    assert_equal(x, torch.tensor([[2., 1., 1.], [2., 7., 1.]]))
    y = torch.tensor([1., 2.], requires_grad=True) * 1
    y.detach().zero_()
    assert_equal(y, torch.zeros(2))
    n = y.detach().numpy()
    assert_equal(n, torch.zeros(2))


def test_inplace_on_view_of_nonleaf_records_the_graph():
    """An in-place op on a view of a tensor that requires grad goes into its graph (CopySlices)."""
    a = torch.tensor([1., 2., 3.], requires_grad=True)
    b = a * 1
    b[1:].mul_(a[:2])           # b = [a0, a1 * a0, a2 * a1]
    b.sum().backward()
    assert_equal(b, torch.tensor([1., 2., 6.]))
    assert_equal(a.grad, torch.tensor([1. + 2., 1. + 3., 2.]))


def test_grad_frees_only_the_branches_it_ran():
    """Not from PyTorch's suite: issue 27's case, checked on PyTorch as well. autograd.grad
    without retain_graph frees what it ran (the branch to its inputs), not the rest."""
    a = torch.tensor([1., 2.], requires_grad=True)
    b = torch.tensor([3., 4.], requires_grad=True)
    loss = (a.exp() * 2).sum() + (b.sin() * b).sum()
    (ga,) = torch.autograd.grad(loss, [a])
    assert_equal(ga, 2 * a.exp())
    (gb,) = torch.autograd.grad(loss, [b], retain_graph=True)
    assert_equal(gb, b.cos() * b + b.sin())
    torch.autograd.grad(loss, [b])
    for wanted in ([b], [a]):
        with pytest.raises(RuntimeError, match="backward through the graph a second time"):
            torch.autograd.grad(loss, wanted)


def test_backward_while_another_thread_toggles_no_grad():
    """Not from PyTorch's suite: issue 27's case, checked on PyTorch as well. One thread enters
    and leaves no_grad over and over while another runs backward passes: every pass works and
    gives 12 (grad mode is per thread)."""
    stop = threading.Event()

    def toggler():
        while not stop.is_set():
            with torch.no_grad():
                time.sleep(0.0002)      # (lets the other thread run inside this no_grad)

    t = threading.Thread(target=toggler)
    t.start()
    errors, wrong = [], []
    try:
        for _ in range(2000):
            x = torch.tensor(3.0, requires_grad=True)
            try:
                (x * x * 2).backward()
            except RuntimeError as e:      # (a process-wide grad mode made these raise)
                errors.append(e)
                continue
            if x.grad.item() != 12.0:
                wrong.append(x.grad.item())
    finally:
        stop.set()
        t.join()
    assert not errors and not wrong

