"""Tests of PyTorch's test/autograd/test_node_lifecycle.py (pytorch/pytorch, the file at commit
5ea12f1da308124cf5f018cada6a23703d81a18b), ported for the built-in ("CPP") nodes: graph
nodes, the leaf's AccumulateGrad and saved tensors live exactly as long as the graph that uses
them. ``TAPE_TORCH_REFERENCE=1`` runs this very file on PyTorch.

Not ported (not claimed by docs/torch.md): custom ``autograd.Function`` nodes, tensor and
grad_fn hooks, ``Tensor._use_count``, ``split``.
"""
import gc
import weakref

from torch_port import torch


class Marker:
    """A weakly referenceable object to watch an object's lifetime."""


def _run(backward_state):
    a = torch.randn(4, requires_grad=True)
    b = a * 2
    marker = Marker()
    marker_ref = weakref.ref(marker)
    grad_fn = b.grad_fn
    if backward_state == "backward":
        b.sum().backward()
    elif backward_state == "retain":
        b.sum().backward(retain_graph=True)
    return a, b, marker, marker_ref, grad_fn


def _check_freed_by_refcount(backward_state):
    a, b, marker, marker_ref, grad_fn = _run(backward_state)
    del a, b, marker, grad_fn
    assert marker_ref() is None


def test_cpp_no_hook_no_backward_refcount():
    _check_freed_by_refcount(None)


def test_cpp_no_hook_backward_refcount():
    _check_freed_by_refcount("backward")


def test_cpp_no_hook_retain_refcount():
    _check_freed_by_refcount("retain")


def test_deep_chain_no_stack_overflow():
    x = torch.randn(2, requires_grad=True)
    for _ in range(2000):
        x = x + torch.randn(2)
    del x


def test_accumulate_grad_releases_leaf():
    """TestLeafNodeLifecycle (test_accumulate_grad_freed_*), with a weak reference in place of
    ``_use_count``: the graph holds the leaf until the graph goes."""
    for backward_state in (None, "backward", "retain"):
        a = torch.randn(2, requires_grad=True)
        b = (a * 2).sum()
        ref = weakref.ref(a)
        if backward_state == "backward":
            b.backward()
        elif backward_state == "retain":
            b.backward(retain_graph=True)
        del a
        assert ref() is not None
        del b
        assert ref() is None


def test_cpp_saved_freed_on_graph_free():
    a = torch.randn(2, requires_grad=True)
    b = a + 1
    ref = weakref.ref(b)
    c = b ** 2             # PowBackward0 saves b
    del b
    assert ref() is not None
    del c
    assert ref() is None


def test_cpp_saved_freed_after_backward():
    a = torch.randn(2, requires_grad=True)
    b = a + 1
    ref = weakref.ref(b)
    c = (b ** 2).sum()
    del b
    assert ref() is not None
    c.backward()
    assert ref() is None


def test_cpp_saved_kept_with_retain_graph():
    a = torch.randn(2, requires_grad=True)
    b = a + 1
    ref = weakref.ref(b)
    c = (b ** 2).sum()
    del b
    c.backward(retain_graph=True)
    assert ref() is not None
    del c
    assert ref() is None


def test_no_cycle_needs_the_collector():
    """All of the above hold with the cycle collector off: nothing is a reference cycle."""
    was = gc.isenabled()
    gc.disable()
    try:
        test_cpp_saved_freed_on_graph_free()
        test_accumulate_grad_releases_leaf()
        _check_freed_by_refcount("backward")
    finally:
        if was:
            gc.enable()
