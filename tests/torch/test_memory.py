"""tape.torch's memory is PyTorch's: the graph lives as long as the tensors that need it, makes
no reference cycles, and a backward pass without retain_graph frees what the graph saved."""
import gc
import weakref

import numpy as np
import pytest

import tape.torch as torch


@pytest.fixture
def no_collector():
    """Only reference counting frees objects while the test runs (no cycle collection)."""
    gc.collect()
    was = gc.isenabled()
    gc.disable()
    yield
    if was:
        gc.enable()


def _intermediates(x):
    """y = sum(sin(x * 2) ** 2) and weak references to the arrays its graph saved."""
    a = x * 2
    b = torch.sin(a)
    y = (b ** 2).sum()
    refs = [weakref.ref(a._value), weakref.ref(b._value), weakref.ref(y.grad_fn),
            weakref.ref(b.grad_fn)]
    return y, refs


def test_del_output_frees_the_graph(no_collector):
    x = torch.rand(1000, requires_grad=True)
    y, refs = _intermediates(x)
    assert all(r() is not None for r in refs)        # the graph of y holds them
    del y
    assert all(r() is None for r in refs)            # ... and nothing else does


def test_backward_frees_saved_values(no_collector):
    x = torch.rand(1000, requires_grad=True)
    y, refs = _intermediates(x)
    node = y.grad_fn
    y.backward()
    assert refs[0]() is None and refs[1]() is None   # saved arrays are gone ...
    assert refs[2]() is node                         # ... the nodes live on with y
    np.testing.assert_allclose(x.grad.numpy(), 2 * np.sin(2 * x.detach().numpy()) *
                               np.cos(2 * x.detach().numpy()) * 2)


def test_retain_graph_keeps_saved_values(no_collector):
    x = torch.rand(100, requires_grad=True)
    y, refs = _intermediates(x)
    y.backward(retain_graph=True)
    assert refs[1]() is not None
    y.backward()
    assert refs[1]() is None


def test_no_reference_cycles():
    gc.collect()
    gc.set_debug(gc.DEBUG_SAVEALL)
    try:
        x = torch.rand(50, requires_grad=True)
        for _ in range(3):
            y = (torch.exp(x * 0.1) @ torch.ones(50) + x.sum()).sin()
            y.backward()
            (g,) = torch.autograd.grad((x ** 3).sum(), x, create_graph=True)
            (g.sum() * 2).backward()
            z = x.detach().requires_grad_()
            (z * z).sum().backward(retain_graph=True)
        del x, y, g, z
        assert gc.collect() == 0 and gc.garbage == []
    finally:
        gc.set_debug(0)
        gc.garbage.clear()


def test_a_leaf_lives_as_long_as_its_graph(no_collector):
    # PyTorch's lifetimes (checked against PyTorch 2.13): the graph's AccumulateGrad holds the
    # leaf, the leaf holds it only weakly; when the graph goes, so does the leaf
    x = torch.tensor(2.0, requires_grad=True)
    y = x * x
    ref = weakref.ref(x)
    acc = y.grad_fn.next_functions[0][0]
    del x
    assert ref() is not None and acc.variable is ref()
    y.backward()
    assert ref().grad.item() == 4.0
    del y, acc
    assert ref() is None


def test_a_100000_op_chain():
    x = torch.tensor(0.5, requires_grad=True)
    y = x
    for _ in range(25_000):
        y = torch.sin(y) * 0.01 + y - 0.001
    y.backward()
    # the same chain by forward-mode dual numbers in Python floats
    v, d = 0.5, 1.0
    for _ in range(25_000):
        import math
        v, d = math.sin(v) * 0.01 + v - 0.001, math.cos(v) * 0.01 * d + d
    assert y.item() == pytest.approx(v, rel=1e-12)
    assert x.grad.item() == pytest.approx(d, rel=1e-10)
    del y                                            # a long chain is freed without recursion


@pytest.mark.parametrize("change", [
    lambda a, x: a.mul_(2),
    lambda a, x: a.__setitem__(0, 5.0),
    lambda a, x: a[1:].mul_(x[:2]),
    lambda a, x: a.view(3, 1).add_(x.view(3, 1)),
    lambda a, x: a.fill_(1.0),
], ids=["mul_", "setitem", "view mul_", "reshape add_", "fill_"])
def test_inplace_ops_make_no_cycles(no_collector, change):
    # the nodes an in-place op makes read the values they saved, not the tensor it changed
    # (whose new grad_fn leads to them): with the collector off, the tensor is freed at del
    x = torch.ones(3, requires_grad=True)
    a = x * 1
    change(a, x)
    ref = weakref.ref(a)
    a.sum().backward()
    del a
    assert ref() is None


def test_detached_values_do_not_keep_the_graph(no_collector):
    # detach() shares values with its source (in place changes show in both), not the graph:
    # keeping loss.detach() for a log frees each step's graph, as in PyTorch
    x = torch.rand(100, requires_grad=True)
    log, refs = [], []
    for _ in range(3):
        y = torch.sin(x * 2)
        loss = (y ** 2).sum()
        refs.append(weakref.ref(loss.grad_fn))
        log.append(loss.detach())
        del y, loss
    assert all(r() is None for r in refs)
    assert all(isinstance(v.item(), float) for v in log)
