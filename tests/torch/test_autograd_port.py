"""Tests of PyTorch's test/test_autograd.py (class TestAutograd; pytorch/pytorch, the file at
commit aaaabe9178bb2d8998a4df6a5bd257050153ccf8, and the newer test_retain_grad_inplace and
test_grad_materialize_grads) and test/autograd/test_inference_mode.py, ported: each keeps its
name and PyTorch's assertions, only for what docs/torch.md claims. ``TAPE_TORCH_REFERENCE=1``
runs this very file on PyTorch.

Adapted plumbing only: ``Variable(x, requires_grad=True)`` is ``x.requires_grad_()``;
``torch.LongTensor(l)`` is ``torch.tensor(l)``; a random boolean mask is a fixed one;
``gradcheck`` / ``gradgradcheck`` are torch_port's (the same checks on the claimed API).
"""
import math
import pickle
import warnings

import pytest
from torch_port import assert_equal, gradcheck, gradgradcheck, torch

inf = math.inf


def is_accumulate_grad(node):
    return type(node).__name__ == "AccumulateGrad"


# -- .grad and its accumulation -----------------------------------------------------------------
def test_tensor_grad_warnings():
    dummy = torch.empty(1)
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always")
        dummy.requires_grad_()
        dummy.grad                      # a leaf: no warning
        assert len(w) == 0
        dummy = dummy.clone()
        dummy.grad                      # a non-leaf
        assert len(w) == 1
        dummy.retain_grad()
        dummy.grad                      # a non-leaf that retains its grad
        assert len(w) == 1


def test_accumulate_grad():
    grad_output = torch.ones(5, 5)

    def compute_grad(create_graph):
        x = torch.randn(5, 5, requires_grad=True)
        y = x + 2
        y.backward(grad_output, retain_graph=True)
        x_grad = x.grad
        x_grad_clone = x.grad.clone()
        y.backward(grad_output, create_graph=create_graph)
        return x_grad, x_grad_clone

    x_grad, x_grad_clone = compute_grad(create_graph=False)     # accumulated in place
    assert_equal(x_grad, x_grad_clone * 2)
    x_grad, x_grad_clone = compute_grad(create_graph=True)      # out of place
    assert_equal(x_grad, x_grad_clone)


def test_accumulate_grad_tensor_reference():
    def _test_grad_tensor(params_grad_tensor, backward_grad_tensor, should_preserve_reference,
                          create_graph):
        params = torch.tensor([1.5, 1.5]).requires_grad_()
        params.grad = params_grad_tensor
        grad_saved = params.grad
        params.backward(backward_grad_tensor, create_graph=create_graph)
        assert (id(grad_saved) == id(params.grad)) == should_preserve_reference

    for create_graph in (False, True):
        # (the sparse cases of the original are not ported: no sparse tensors)
        _test_grad_tensor(torch.tensor([1.5, 1.5]), torch.tensor([1.5, 1.5]), not create_graph,
                          create_graph)


def test_sum_to_with_empty_dim_grad():
    a = torch.rand(4, 0, requires_grad=True)
    b = torch.rand(4, 1, requires_grad=True)
    c = a + b
    assert c.shape == (4, 0)
    c.sum().backward()
    assert_equal(b.grad, torch.zeros(4, 1))
    assert_equal(a.grad, torch.zeros(4, 0))


def test_hessian_vector():
    x = torch.randn(2, 2, requires_grad=True)
    y = torch.randn(2, 2, requires_grad=True)
    z = x ** 2 + y * x + y ** 2
    z.backward(torch.ones(2, 2), create_graph=True)
    with torch.no_grad():
        x_grad = 2 * x + y
        y_grad = x + 2 * y
    assert_equal(x.grad, x_grad)
    assert_equal(y.grad, y_grad)
    grad_sum = 2 * x.grad + y.grad
    grad_sum.backward(torch.ones(2, 2))
    x_hv = torch.ones(2, 2) * 5
    y_hv = torch.ones(2, 2) * 4
    assert_equal(x.grad, x_grad + x_hv)
    assert_equal(y.grad, y_grad + y_hv)


def test_grad():
    x = torch.randn(2, 2, requires_grad=True)
    y = torch.randn(2, 2, requires_grad=True)
    z = x ** 2 + y * x + y ** 2
    z.backward(torch.ones(2, 2), create_graph=True)
    x_grad = 2 * x + y
    y_grad = x + 2 * y
    assert_equal(x.grad, x_grad)
    assert_equal(y.grad, y_grad)
    grad_sum = 2 * x.grad + y.grad
    x_hv = torch.autograd.grad(outputs=[grad_sum], grad_outputs=[torch.ones(2, 2)], inputs=[x],
                               create_graph=True)
    assert_equal(x_hv[0], torch.ones(2, 2) * 5)
    assert_equal(x.grad, x_grad)
    assert_equal(y.grad, y_grad)
    grad_out = torch.ones(2)
    with pytest.raises(RuntimeError) as error:
        torch.autograd.grad(outputs=[grad_sum], grad_outputs=[grad_out], inputs=[x],
                            create_graph=True)
    assert str(error.value) == ("Mismatch in shape: grad_output[0] has a shape of "
                                + str(grad_out.shape) + " and output[0] has a shape of "
                                + str(grad_sum.shape) + ".")


def test_grad_nonleaf():
    x_init = torch.randn(2, 2, requires_grad=True)
    x = x_init
    y = torch.randn(2, 2, requires_grad=True)
    grad_output = torch.ones(2, 2)

    def fn(x):
        return x ** 2 + y * x + y ** 2

    for _ in range(5):
        grad_x, = torch.autograd.grad(fn(x), x, grad_outputs=grad_output, create_graph=True)
        grad_x_expected = 2 * x + y
        assert y.grad is None
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")         # (x is not a leaf after the first step)
            assert x.grad is None
        assert_equal(grad_x, grad_x_expected)
        x = x + 0.05 * grad_x
    val_init = fn(x_init).sum()
    val_final = fn(x).sum()
    assert val_final > val_init
    x.backward(grad_output)
    assert y.grad is not None
    assert x_init.grad is not None


def test_sharded_grad():
    leaves = [torch.zeros(5, 5, requires_grad=True) for _ in range(10)]
    intermediates = [l * i + l * l for i, l in enumerate(leaves)]  # noqa: E741
    loss = sum(v * i for i, v in enumerate(intermediates)).sum()

    def group(l, group_size):  # noqa: E741
        return (l[i:i + group_size] for i in range(0, len(l), group_size))

    # d loss / d intermediates in shards: each autograd.grad runs only the nodes it needs
    shard_size = 2
    d_intermediates = [d_i for intermediates_batch in group(intermediates, shard_size)
                       for d_i in torch.autograd.grad(loss, intermediates_batch)]
    torch.autograd.backward(intermediates, d_intermediates)
    for i, l in enumerate(leaves):  # noqa: E741
        assert_equal(l.grad, i * i * (1 + l))


def test_backward_badcalls():
    x = torch.ones(1)
    with pytest.raises(RuntimeError, match="does not require grad"):
        x.backward()


def test_grad_badcalls():
    x = torch.ones(1)
    y = x ** 2
    with pytest.raises(RuntimeError, match="does not require grad"):
        torch.autograd.grad(x, y)
    with pytest.raises(RuntimeError, match="does not require grad"):
        torch.autograd.grad(y, x)
    x = torch.ones(1, requires_grad=True)
    y = x ** 2
    torch.autograd.grad(y, x)


def test_grad_empty_inputs():
    # (PyTorch 2.13 raises RuntimeError here; the older file expected ValueError)
    x = torch.tensor([1.0], requires_grad=True)
    with pytest.raises(RuntimeError, match="cannot be empty"):
        torch.autograd.grad(2 * x, [], grad_outputs=torch.tensor([1.0]))


def test_grad_unreachable():
    x = torch.ones(1, requires_grad=True)
    y = torch.ones(1, requires_grad=True)
    z = x * 2          # x and y get their grad accumulators
    w = y * 2  # noqa: F841
    grad_x, grad_y = torch.autograd.grad(x * 2, [x, y], allow_unused=True)
    assert_equal(grad_x, x * 2)
    assert grad_y is None
    z = torch.ones(1, requires_grad=True)
    grad_x, grad_z = torch.autograd.grad(x * 2, [x, z], allow_unused=True)
    assert_equal(grad_x, x * 2)
    assert grad_z is None
    with pytest.raises(RuntimeError, match="Set allow_unused=True"):
        torch.autograd.grad(x * 2, [x, y], allow_unused=False)


def test_grad_materialize_grads():
    x = torch.tensor(0.5, requires_grad=True)
    a = torch.tensor(1.0, requires_grad=True)
    y = x * a
    dydx = torch.autograd.grad(y, x, create_graph=True)
    d2ydx2_none = torch.autograd.grad(dydx, x, create_graph=True, allow_unused=True)
    d2ydx2 = torch.autograd.grad(dydx, x, create_graph=True, allow_unused=True,
                                 materialize_grads=True)
    d3ydx3 = torch.autograd.grad(d2ydx2, x, materialize_grads=True)
    assert d2ydx2_none[0] is None
    assert d2ydx2[0].item() == 0
    assert d3ydx3[0].item() == 0
    with pytest.raises(ValueError, match="Expected allow_unused to be True or not passed when"):
        torch.autograd.grad(y, x, allow_unused=False, materialize_grads=True)


def test_retain_grad():
    input = torch.rand(1, 3, requires_grad=True)
    h1 = input * 3
    out = (h1 * h1).sum()
    h1.retain_grad()
    h1.retain_grad()
    out.backward(retain_graph=True)
    assert_equal(h1 * 2, h1.grad)
    out.backward(retain_graph=True)
    assert_equal(h1 * 4, h1.grad)
    with torch.no_grad():
        input.grad.zero_()
    input.retain_grad()
    input.retain_grad()
    out.backward()
    assert_equal(input * 18, input.grad)


def test_retain_grad_inplace():
    a = torch.tensor([1.0], requires_grad=True).clone()
    a.retain_grad()
    a.mul_(2)
    a.sum().backward()
    assert_equal(a.grad, torch.tensor([1.0]))

    a = torch.tensor([1.0], requires_grad=True).clone()
    a.retain_grad()
    a.mul_(2)
    a.mul_(2)
    a.sum().backward()
    assert_equal(a.grad, torch.tensor([1.0]))

    # in place through a view: the retained grad is the latest version's
    x = torch.tensor([1.0], requires_grad=True).clone()
    x.retain_grad()
    x_view = x[:]
    x_view *= 2
    x *= 2
    x.sum().backward()
    assert_equal(a.grad, torch.tensor([1.0]))


def test_backward():
    v = torch.randn(5, 5, requires_grad=True)
    x = torch.randn(5, 5, requires_grad=True)
    y = (torch.rand(5, 5) + 0.1).requires_grad_(True)
    z = torch.randn(5, 5, requires_grad=True)
    grad_output = torch.randn(5, 5)
    v.backward(grad_output)
    assert_equal(v.grad, grad_output)
    a = x + (y * z) + 4 * z ** 2 * x / y
    a.backward(grad_output)
    x_grad = 4 * z.pow(2) / y + 1
    y_grad = z - 4 * x * z.pow(2) / y.pow(2)
    z_grad = 8 * x * z / y + y
    assert_equal(x.grad, x_grad * grad_output)
    assert_equal(y.grad, y_grad * grad_output)
    assert_equal(z.grad, z_grad * grad_output)


def test_multi_backward():
    x = torch.randn(5, 5, requires_grad=True)
    y = torch.randn(5, 5, requires_grad=True)
    q = torch.randn(5, 5, requires_grad=True)
    a = torch.randn(5, 5, requires_grad=True)
    b = torch.randn(5, 5, requires_grad=True)
    q2 = q * 2
    z = x + y + q2
    c = a * b + q2
    grad_z = torch.randn(5, 5)
    grad_c = torch.randn(5, 5)
    torch.autograd.backward([z, c], [grad_z, grad_c])
    assert_equal(x.grad, grad_z)
    assert_equal(y.grad, grad_z)
    assert_equal(a.grad, grad_c * b)
    assert_equal(b.grad, grad_c * a)
    assert_equal(q.grad, (grad_c + grad_z) * 2)


def test_multi_backward_no_grad():
    x = torch.randn(5, 5, requires_grad=True)
    y = torch.randn(5, 5, requires_grad=False)
    z = x + y
    q = y * 2
    with pytest.raises(RuntimeError):
        torch.autograd.backward([z, q], [torch.ones(5, 5), torch.ones(5, 5)])


def test_backward_with_inputs():
    x = torch.randn(2, 2, dtype=torch.double, requires_grad=True)
    y = torch.randn(2, 2, dtype=torch.double, requires_grad=True)

    def fn():
        return x ** 2 + y * x + y ** 2

    gradient = torch.ones(2, 2)
    x_grad_expected = 2 * x + y
    y_grad_expected = x + 2 * y

    @torch.no_grad()
    def reset_grad():
        x.grad.zero_()
        y.grad.zero_()

    torch.autograd.backward(fn(), gradient, inputs=[x, y])
    assert_equal(x.grad, x_grad_expected)
    assert_equal(y.grad, y_grad_expected)
    reset_grad()
    torch.autograd.backward(fn(), gradient, inputs=[x])
    assert_equal(x.grad, x_grad_expected)
    assert_equal(y.grad, torch.zeros(2, 2))
    reset_grad()
    torch.autograd.backward(fn(), gradient, inputs=[y])
    assert_equal(y.grad, y_grad_expected)
    assert_equal(x.grad, torch.zeros(2, 2))
    reset_grad()
    torch.autograd.backward(fn(), gradient, inputs=y)
    assert_equal(y.grad, y_grad_expected)
    assert_equal(x.grad, torch.zeros(2, 2))
    reset_grad()
    with pytest.raises(RuntimeError, match="cannot be empty"):
        torch.autograd.backward(fn(), gradient, inputs=[])


def test_backward_with_nonleaf_inputs():
    x = torch.randn(2, 2, dtype=torch.double, requires_grad=True)
    x_nonleaf = x * 1
    y = torch.randn(2, 2, dtype=torch.double, requires_grad=True)
    z = torch.randn(2, 2, dtype=torch.double, requires_grad=True)
    out = x_nonleaf ** 2 + y * x_nonleaf + y ** 2
    out.backward(torch.ones(2, 2, dtype=torch.double), create_graph=True,
                 inputs=[x, y, x_nonleaf])
    x_grad_expected = 2 * x + y
    y_grad_expected = x + 2 * y
    x_non_leaf_expected = 2 * x_nonleaf + y
    assert_equal(y.grad, y_grad_expected)
    assert_equal(x.grad, x_grad_expected)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        assert_equal(x_nonleaf.grad, x_non_leaf_expected)
    out.backward(torch.ones(2, 2, dtype=torch.double), create_graph=True, inputs=[z])
    assert z.grad is None


def test_dependent_backward():
    x = torch.randn(10, requires_grad=True)
    y = x ** 2
    z = y ** 3
    go_y = torch.randn(10)
    go_z = torch.randn(10)
    torch.autograd.backward([y, z], [go_y, go_z])
    xd = x
    assert_equal(x.grad, 2 * xd * go_y + 6 * xd.pow(5) * go_z)


def test_free_deep_graph():
    def scope():
        depth = 150000
        x = torch.randn(1, requires_grad=True)
        y = x.clone()
        for _ in range(depth):
            y = y + y * 0.000001
    scope()                     # freeing the chain must not overflow the stack


def test_free_deep_graph_complicated():
    def scope():
        depth = 100000
        randchoice = torch.randint(2, [depth, 2])
        x = torch.randn(1, requires_grad=True)
        y = x.clone()
        prev_values = [None, None]
        for _ in range(depth):
            prev_tensors = [tensor for tensor in prev_values[:-1] if tensor is not None]
            prev_values.append(y)
            prev_values.pop(0)
            y += y * 0.000001
            nprev = len(prev_tensors)
            if nprev == 2:
                y += randchoice[depth].mul(torch.cat(prev_tensors)).sum()
    scope()


def test_no_unnecessary_save():
    mu = torch.ones(1, requires_grad=True)
    x = torch.empty(1)
    loss = 0
    for i in range(3):
        x.detach_()
        x.copy_(mu + i)
        ft = torch.tensor([float(i)])
        multiplied = x * ft
        s = multiplied.sum()
        loss += s
    loss.backward()


# -- grad mode ----------------------------------------------------------------------------------
def test_no_grad():
    x = torch.ones(5, 5, requires_grad=True)
    y = torch.ones(5, 5) * 4
    with torch.no_grad():
        w = x + y

    @torch.no_grad()
    def adder(x, y):
        return x + y

    z = adder(x, y)
    assert not w.requires_grad
    with pytest.raises(RuntimeError):
        w.backward(torch.ones(5, 5))
    assert w.grad_fn is None
    assert not z.requires_grad
    with pytest.raises(RuntimeError):
        z.backward(torch.ones(5, 5))
    assert z.grad_fn is None
    with torch.no_grad():
        assert not torch.is_grad_enabled()
        w = adder(x, y)
        assert not torch.is_grad_enabled()


def test_set_grad_generator_functions():
    @torch.no_grad()
    def gen_no_grad():
        for i in range(10):
            assert torch.is_grad_enabled() is False
            yield i

    with torch.enable_grad():
        for _ in gen_no_grad():
            assert torch.is_grad_enabled() is True

    @torch.enable_grad()
    def gen_enable_grad():
        for i in range(10):
            assert torch.is_grad_enabled() is True
            yield i

    with torch.no_grad():
        for _ in gen_enable_grad():
            assert torch.is_grad_enabled() is False


def test_set_grad_generator_functions_recursive():
    @torch.enable_grad()
    def enable_grad_decorator_recursive(depth):
        assert torch.is_grad_enabled()
        if depth > 0:
            no_grad_decorator_recursive(depth - 1)
            assert torch.is_grad_enabled()

    @torch.no_grad()
    def no_grad_decorator_recursive(depth):
        assert not torch.is_grad_enabled()
        if depth > 0:
            enable_grad_decorator_recursive(depth - 1)
            assert not torch.is_grad_enabled()

    def enable_grad_context_manager_recursive(depth):
        with torch.enable_grad():
            assert torch.is_grad_enabled()
            if depth > 0:
                no_grad_context_manager_recursive(depth - 1)
                assert torch.is_grad_enabled()

    def no_grad_context_manager_recursive(depth):
        with torch.no_grad():
            assert not torch.is_grad_enabled()
            if depth > 0:
                enable_grad_context_manager_recursive(depth - 1)
                assert not torch.is_grad_enabled()

    with torch.enable_grad():
        assert torch.is_grad_enabled()
        enable_grad_decorator_recursive(10)
        assert torch.is_grad_enabled()
        enable_grad_context_manager_recursive(10)
        assert torch.is_grad_enabled()
    with torch.no_grad():
        assert not torch.is_grad_enabled()
        enable_grad_decorator_recursive(10)
        assert not torch.is_grad_enabled()
        enable_grad_context_manager_recursive(10)
        assert not torch.is_grad_enabled()


def test_set_grad_coroutines():
    @torch.no_grad()
    def coro_no_grad(n=10):
        assert not torch.is_grad_enabled()
        for i in range(n):
            assert not torch.is_grad_enabled()
            r = yield i
            assert not torch.is_grad_enabled()
            assert i == r
        assert not torch.is_grad_enabled()

    @torch.enable_grad()
    def coro_enable_grad(n=10):
        assert torch.is_grad_enabled()
        for i in range(n):
            assert torch.is_grad_enabled()
            r = yield i
            assert torch.is_grad_enabled()
            assert i == r
        assert torch.is_grad_enabled()

    with torch.enable_grad():
        assert torch.is_grad_enabled()
        coro, r = coro_no_grad(), None
        try:
            while True:
                assert torch.is_grad_enabled()
                r = coro.send(r)
                assert torch.is_grad_enabled()
        except StopIteration:
            pass
    with torch.no_grad():
        assert not torch.is_grad_enabled()
        coro, r = coro_enable_grad(), None
        try:
            while True:
                assert not torch.is_grad_enabled()
                r = coro.send(r)
                assert not torch.is_grad_enabled()
        except StopIteration:
            pass


def test_set_grad_coroutines_benign_exceptions():
    class RecoverableException(Exception):
        pass

    @torch.no_grad()
    def coro_no_grad(n=10):
        has_raised = False
        for i in range(n):
            try:
                assert not torch.is_grad_enabled()
                yield (-i if has_raised else i)
            except RecoverableException:
                assert not torch.is_grad_enabled()
                has_raised = True

    @torch.enable_grad()
    def coro_enable_grad(n=10):
        has_raised = False
        for i in range(n):
            try:
                assert torch.is_grad_enabled()
                yield (-i if has_raised else i)
            except RecoverableException:
                assert torch.is_grad_enabled()
                has_raised = True

    with torch.enable_grad():
        coro = coro_no_grad()
        assert 0 == next(coro)
        try:
            while True:
                r = coro.throw(RecoverableException)
                assert r < 0
        except StopIteration:
            pass
    with torch.no_grad():
        coro = coro_enable_grad()
        assert 0 == next(coro)
        try:
            while True:
                r = coro.throw(RecoverableException)
                assert r < 0
        except StopIteration:
            pass


def test_set_grad_coroutines_critical_exceptions():
    class UnrecoverableException(Exception):
        pass

    class SecondaryException(Exception):
        pass

    @torch.no_grad()
    def coro_no_grad(n=10):
        for i in range(n):
            try:
                assert not torch.is_grad_enabled()
                yield i
            except UnrecoverableException:
                assert not torch.is_grad_enabled()
                raise SecondaryException from None

    @torch.enable_grad()
    def coro_enable_grad(n=10):
        for i in range(n):
            try:
                assert torch.is_grad_enabled()
                yield i
            except UnrecoverableException:
                assert torch.is_grad_enabled()
                raise SecondaryException from None

    with torch.enable_grad():
        coro = coro_no_grad()
        assert 0 == next(coro)
        with pytest.raises(SecondaryException):
            coro.throw(UnrecoverableException)
    with torch.no_grad():
        coro = coro_enable_grad()
        assert 0 == next(coro)
        with pytest.raises(SecondaryException):
            coro.throw(UnrecoverableException)


def test_set_grad_coroutines_exit():
    @torch.no_grad()
    def coro_no_grad(state):
        for i in range(10):
            try:
                assert not torch.is_grad_enabled()
                yield i
            except GeneratorExit:
                assert not torch.is_grad_enabled()
                state.add("GeneratorExit")
                raise

    @torch.enable_grad()
    def coro_enable_grad(state):
        for i in range(10):
            try:
                assert torch.is_grad_enabled()
                yield i
            except GeneratorExit:
                assert torch.is_grad_enabled()
                state.add("GeneratorExit")
                raise

    state = set()
    with torch.enable_grad():
        coro = coro_no_grad(state)
        for _ in range(5):
            next(coro)
        coro.close()
    assert "GeneratorExit" in state
    state = set()
    with torch.no_grad():
        coro = coro_enable_grad(state)
        for _ in range(5):
            next(coro)
        coro.close()
    assert "GeneratorExit" in state


def test_set_grad_enabled():
    x = torch.tensor([1.], requires_grad=True)
    with torch.set_grad_enabled(False):
        y = x * 2
    assert not y.requires_grad
    with torch.set_grad_enabled(True):
        y = x * 2
    assert y.requires_grad
    with torch.set_grad_enabled(False):
        torch.set_grad_enabled(True)
        y = x * 2
    assert y.requires_grad


def test_inference_mode_context_manager():
    """test/autograd/test_inference_mode.py"""
    assert not torch.is_inference_mode_enabled()
    with torch.inference_mode():
        assert torch.is_inference_mode_enabled()
        with torch.inference_mode(False):
            assert not torch.is_inference_mode_enabled()
        assert torch.is_inference_mode_enabled()
    assert not torch.is_inference_mode_enabled()


def test_inference_mode_decorator():
    """test/autograd/test_inference_mode.py, with ``mode=`` as a keyword as well."""
    @torch.inference_mode()
    def func(x):
        assert torch.is_inference_mode_enabled()
        return x * x

    for requires_grad in (True, False):
        c = torch.ones(1, 2, 3, requires_grad=requires_grad)
        d = func(c)
        assert torch.is_inference(d)
        assert not d.requires_grad
    with torch.inference_mode(mode=False):
        assert not torch.is_inference_mode_enabled()
        assert torch.is_grad_enabled()


def test_inference_mode_tensor_creation():
    """test/autograd/test_inference_mode.py"""
    with torch.inference_mode():
        c = torch.ones(1, 2, 3)
        assert not c.requires_grad
        assert torch.is_inference(c)
        tmp = torch.ones(1, 2, 3, requires_grad=True)
        assert tmp.requires_grad
        assert torch.is_inference(tmp)
        tmp = torch.ones(1, 2, 3).requires_grad_(False)
        assert not tmp.requires_grad
        assert torch.is_inference(tmp)


def test_inference_mode_inf_tensor_in_inf_mode_view_op():
    """test/autograd/test_inference_mode.py"""
    with torch.inference_mode():
        for requires_grad in (True, False):
            c = torch.ones(1, 2, 3, requires_grad=requires_grad)
            view_out = c.view(-1)
            assert torch.is_inference(view_out)
            assert not view_out.requires_grad


def test_inference_mode_inf_tensor_in_normal_mode_view_op():
    """test/autograd/test_inference_mode.py"""
    for requires_grad in (True, False):
        with torch.inference_mode():
            c = torch.ones(1, 2, 3, requires_grad=requires_grad)

        out = c.view(-1)
        assert torch.is_inference(out)
        assert not out.requires_grad
        assert not out._is_view()
        assert out.is_leaf


def test_retain_grad_cycle():
    """``torch._C._WeakTensorRef(y)`` is ``weakref.ref(y)`` here."""
    import weakref
    x = torch.ones(5, 5, requires_grad=True)

    def run_test():
        y = x * 2
        y.retain_grad()
        return y / 2, weakref.ref(y)

    z, ref = run_test()
    assert ref() is None
    z.sum().backward()


def test_min_max_median_backprops_to_all_values():
    """test/test_autograd.py, TestAutogradDeviceType (on the CPU)."""
    for f in [torch.min, torch.max, torch.median, torch.nanmedian]:
        x1 = torch.tensor([1., 0., 1., 0., 1., 0.], requires_grad=True)
        x2 = torch.tensor([float('nan'), float('nan'), float('nan')], requires_grad=True)
        for x in [x1, x2]:
            y = f(x)
            y.backward()
            assert_equal(x.grad.sum(), 1.)
            assert_equal((x.grad == 1 / 3).sum(), 3)


def test_grad_assignment_checks_shape_and_dtype():
    """PyTorch's checks when ``.grad`` is assigned (python_variable.cpp)."""
    x = torch.randn(5, 5, requires_grad=True)
    with pytest.raises(RuntimeError, match="same size"):
        x.grad = torch.randn(2, 2)
    with pytest.raises(RuntimeError, match="different type"):
        x.grad = torch.randn(5, 5).long()
    with pytest.raises(RuntimeError, match="different type"):
        x.grad = torch.randn(5, 5).float()
    with pytest.raises(RuntimeError, match="its own grad"):
        x.grad = x
    with pytest.raises(TypeError):
        x.grad = 0
    x.grad = torch.randn(5, 5)
    assert x.grad.shape == (5, 5)


def test_median_along_a_dim_reads_the_value_at_its_index():
    x = torch.tensor([[3., 1., 2.], [5., 4., 6.]], requires_grad=True)
    values, indices = torch.median(x, dim=1)
    assert_equal(values, torch.tensor([2., 5.]))
    assert_equal(indices, torch.tensor([2, 0]))
    values.sum().backward()
    assert_equal(x.grad, torch.tensor([[0., 0., 1.], [1., 0., 0.]]))
    assert_equal(torch.median(torch.tensor([1., 2., 3., 4.])), torch.tensor(2.))


# -- indexing and assignment --------------------------------------------------------------------
def _compare_index(x, y, idx, indexed_tensor, indexed_var):
    indexed_var_t = indexed_var.data
    assert_equal(indexed_tensor, indexed_var_t)
    indexed_var.sum().backward()
    expected_grad = torch.empty(x.size()).fill_(0)
    expected_grad[idx] = 1
    assert_equal(y.grad, expected_grad)


def _check_index(x, y, idx):
    if y.grad is not None:
        with torch.no_grad():
            y.grad.zero_()
    indexed_tensor = x[idx]
    indexed_var = y[idx]
    _compare_index(x, y, idx, indexed_tensor, indexed_var)


_MASK = torch.tensor([[True, False, True, False], [False, False, True, True],
                      [True, True, False, False], [False, True, False, True]])


def test_indexing():
    x = torch.arange(1., 17).view(4, 4)
    y = x.clone().requires_grad_(True)
    for idx in (1, (1, 1), slice(1, None), slice(None, 2), (slice(None, 2), 2), (slice(1, 2), 2),
                (1, slice(2, None)), (slice(None, None), slice(2, None)), torch.tensor([0, 2]),
                _MASK, (Ellipsis, slice(2, None)), ([0], [0]), ([1, 2, 3], [0]),
                ([1, 2], [2, 1]), ([[1, 2], [3, 0]], [[0, 1], [2, 3]]),
                (slice(None), [2, 3]), ([2, 3], slice(None)), ([0],), ([0], )):
        _check_index(x, y, idx)
    x = torch.arange(1., 49).view(4, 3, 4)
    y = x.clone().requires_grad_(True)
    for idx in ((slice(None), [0], [0]), ([0], [0], slice(None)), (slice(None), [0, 1, 2], [0]),
                ([0, 1, 2], [0], slice(None)), (slice(None), [1, 2], [2, 1]),
                ([1, 2], [2, 1], slice(None)), (slice(None), [[1, 2], [2, 0]], [[0, 1], [2, 3]]),
                ([[1, 2], [3, 0]], [[0, 1], [2, 2]], slice(None)),
                (slice(None), slice(None), [2, 1]), (slice(None), [2, 1], slice(None)),
                ([2, 1], slice(None), slice(None)), ([0],), ([0], slice(None)),
                ([0], Ellipsis), ([1, 2], [0, 1]), ([1, 2], [0, 1], Ellipsis),
                (Ellipsis, [1, 2], [0, 1])):
        _check_index(x, y, idx)
    z = torch.tensor([0, 1])
    seq = (z, Ellipsis)
    if y.grad is not None:
        with torch.no_grad():
            y.grad.zero_()
    _compare_index(x, y, seq, x[seq], y[seq])


def test_indexing_duplicates():
    x = torch.arange(1., 17).view(4, 4)
    y = x.clone().requires_grad_(True)
    idx = torch.tensor([1, 1, 3, 2, 1, 2])
    y[idx].sum().backward()
    expected_grad = torch.zeros(4, 4)
    for i in idx:
        expected_grad[i] += 1
    assert_equal(y.grad, expected_grad)

    x = torch.arange(1., 17).view(4, 4)
    y = x.clone().requires_grad_(True)
    idx = ([1, 1, 3, 2, 1, 2], [0])
    y[idx].sum().backward()
    expected_grad = torch.zeros(4, 4)
    for i in idx[0]:
        for j in idx[1]:
            expected_grad[i][j] += 1
    assert_equal(y.grad, expected_grad)

    x = torch.arange(1., 17).view(4, 4)
    y = x.clone().requires_grad_(True)
    idx = ([[1, 2], [0, 0]], [[0, 1], [1, 1]])
    y[idx].sum().backward()
    expected_grad = torch.tensor([[0., 2., 0., 0.], [1., 0., 0., 0.], [0., 1., 0., 0.],
                                  [0., 0., 0., 0.]])
    assert_equal(y.grad, expected_grad)

    x = torch.arange(1., 65).view(4, 4, 4)
    y = x.clone().requires_grad_(True)
    idx = ([1, 1, 1], slice(None), slice(None))
    y[idx].sum().backward()
    expected_grad = torch.empty(4, 4, 4).zero_()
    expected_grad[1].fill_(3)
    assert_equal(y.grad, expected_grad)


def test_index_backward_does_not_save_tensor():
    a = torch.tensor([1., 0, 0])
    b = torch.zeros(3, requires_grad=True)
    tensor = b + 0
    tensor[a != 0] = tensor[a != 0]
    tensor.backward(torch.zeros_like(tensor))


def _test_setitem(size, index):
    x = torch.ones(*size, requires_grad=True)
    y = x + 2
    y[index] = 2
    y.backward(torch.ones(*size))
    expected_grad = torch.ones(*size)
    expected_grad[index] = 0
    assert_equal(x.grad, expected_grad)


def _test_setitem_tensor(size, index):
    x = torch.ones(*size, requires_grad=True)
    y = x + 2
    value = torch.zeros(x[index].size()).fill_(7)
    value.requires_grad = True
    y[index] = value
    y.backward(torch.ones(*size))
    expected_grad_input = torch.ones(*size)
    expected_grad_input[index] = 0
    assert_equal(x.grad, expected_grad_input)
    assert_equal(value.grad, torch.ones_like(value))
    # x broadcast as it is assigned to y[1]
    x = torch.randn(4, requires_grad=True)
    y = torch.zeros(2, 3, 4)
    y[1] = x
    y.backward(torch.randn(2, 3, 4))
    assert x.size() == x.grad.size()


def test_setitem():
    _test_setitem((5, 5), 1)
    _test_setitem((5,), 1)
    _test_setitem((1,), 0)
    _test_setitem((10,), ([0, 4, 2],))
    _test_setitem((5, 5), ([0, 4], [2, 2]))
    _test_setitem((5, 5, 5), (slice(None), slice(None), [1, 3]))
    _test_setitem((5, 5, 5), (slice(None), [1, 3], slice(None)))
    _test_setitem((5, 5, 5), ([1, 3], slice(None), slice(None)))
    _test_setitem((5, 5, 5), (slice(None), [2, 4], [1, 3]))
    _test_setitem((5, 5, 5), ([1, 3], [2, 4], slice(None)))
    _test_setitem_tensor((5, 5), 3)
    _test_setitem_tensor((5, 5), ([0, 1], [1, 0]))
    _test_setitem_tensor((5,), 3)
    _test_setitem_tensor((5,), torch.tensor([3]).sum())
    _test_setitem_tensor((5,), ([0, 1, 2, 3],))
    _test_setitem_tensor((5, 5, 5), (slice(None), slice(None), [1, 3]))
    _test_setitem_tensor((5, 5, 5), (slice(None), [1, 3], slice(None)))
    _test_setitem_tensor((5, 5, 5), ([1, 3], slice(None), slice(None)))
    _test_setitem_tensor((5, 5, 5), (slice(None), [2, 4], [1, 3]))
    _test_setitem_tensor((5, 5, 5), ([1, 3], [2, 4], slice(None)))
    _test_setitem_tensor((5, 5, 5), (torch.tensor([1, 3]), [2, 4], slice(None)))


def test_setitem_mask():
    mask = _MASK.clone()
    mask[0, 0] = True
    _test_setitem((4, 4), mask)
    _test_setitem((4,), mask[0])
    _test_setitem((1,), mask[0, 0:1])
    _test_setitem_tensor((4, 4), mask)
    _test_setitem_tensor((4,), mask[0])


def test_leaf_assignment():
    x = torch.randn(5, 5)
    y = torch.randn(5, requires_grad=True)
    z = torch.randn(5, requires_grad=True)
    x[0] = y
    x[1] = 2 * z
    assert x.requires_grad
    assert x.grad_fn is not None
    x.sum().backward()
    assert_equal(y.grad, torch.ones(5))
    assert_equal(z.grad, torch.ones(5) * 2)


def test_no_grad_assignment():
    x = torch.randn(5, 5, requires_grad=True)
    y = torch.randn(5)
    with torch.no_grad():
        x[0] = y
    assert x.requires_grad
    assert x.grad_fn is None


def test_backward_twice_with_saved_values():
    b = torch.randn(3, requires_grad=True, dtype=torch.double)
    c = torch.zeros(3, dtype=torch.double)
    c[[1, 2]] = b[[1, 1]]
    c.backward(torch.tensor([1, 1, 1], dtype=torch.double))
    with pytest.raises(RuntimeError, match="Specify retain_graph=True"):
        c.backward(torch.tensor([1, 1, 1], dtype=torch.double))


def test_backward_twice_retained_graph_with_saved_values():
    b = torch.randn(3, requires_grad=True, dtype=torch.double)
    c = torch.zeros(3, dtype=torch.double)
    c[[1, 2]] = b[[1, 1]]
    c.backward(torch.tensor([1, 1, 1], dtype=torch.double), retain_graph=True)
    c.backward(torch.tensor([1, 1, 1], dtype=torch.double))


def test_backward_twice_without_saved_values():
    b = torch.randn(3, requires_grad=True, dtype=torch.double)
    c = b + 1
    c.backward(torch.tensor([1, 1, 1], dtype=torch.double))
    c.backward(torch.tensor([1, 1, 1], dtype=torch.double))


def test_backward_twice_retained_graph_without_saved_values():
    b = torch.randn(3, requires_grad=True, dtype=torch.double)
    c = torch.zeros(3, dtype=torch.double)
    c[[1, 2]] = b[[1, 1]]
    c.backward(torch.tensor([1, 1, 1], dtype=torch.double), retain_graph=True)
    c.backward(torch.tensor([1, 1, 1], dtype=torch.double))


def test_select_expanded_v():
    v_expanded = torch.rand(10).expand(10, 10)
    a = torch.rand(10, 10, 10, requires_grad=True)
    result, = torch.autograd.grad(a[0], a, v_expanded)
    expected = torch.zeros(10, 10, 10)
    expected[0] = v_expanded
    assert_equal(result, expected)


def test_slice_expanded_v():
    v_expanded = torch.rand(10, 1).expand(2, 10, 10)
    a = torch.rand(10, 10, 10, requires_grad=True)
    result, = torch.autograd.grad(a[3:5], a, v_expanded)
    expected = torch.zeros(10, 10, 10)
    expected[3:5] = v_expanded
    assert_equal(result, expected)


def test_unbind():
    stacked = torch.randn(3, 10, 10, requires_grad=True)
    x, y, z = stacked.unbind()
    grad = torch.randn(3, 10, 10)
    torch.autograd.backward([x, y, z], grad.unbind())
    assert_equal(stacked.grad, grad)
    for i in range(3):
        stacked = torch.randn(3, 10, 10, requires_grad=True)
        outs = stacked.unbind()
        gi = grad.unbind()[i]
        g, = torch.autograd.grad(outs[i], stacked, gi)
        g_expected = torch.stack([gi if j == i else torch.zeros_like(gi) for j in range(3)], dim=0)
        assert_equal(g, g_expected)


def test_fill():
    root = torch.randn(4, 5, requires_grad=True)

    def func(root):
        x = root.clone()
        x.fill_(2)
        return x

    assert gradcheck(func, [root])
    assert gradgradcheck(func, [root])


# -- requires_grad, leaves, in-place ------------------------------------------------------------
def test_requires_grad():
    x = torch.randn(5, 5)
    y = torch.randn(5, 5)
    z = torch.randn(5, 5, requires_grad=True)
    a = x + y
    assert not a.requires_grad
    b = a + z
    assert b.requires_grad
    b.backward(torch.ones(5, 5))


def test_requires_grad_():
    x = torch.randn(5, 5)
    y = torch.randn(5, 5, requires_grad=True)
    assert x is x.requires_grad_()
    assert x.requires_grad
    assert y is y.requires_grad_()
    assert y.requires_grad
    assert x is x.requires_grad_(True)
    assert x.requires_grad
    assert y is y.requires_grad_(True)
    assert y.requires_grad
    z = x * y
    with pytest.raises(RuntimeError):
        z.requires_grad_(False)
    assert z is z.requires_grad_()
    assert z.requires_grad
    assert z is z.requires_grad_(True)
    assert z.requires_grad
    assert x is x.requires_grad_(False)
    assert not x.requires_grad
    assert y is y.requires_grad_(False)
    assert not y.requires_grad


def test_requires_grad_inplace():
    a = torch.randn(5, 5)
    b = torch.randn(5, 5, requires_grad=True)
    a += b
    assert a.requires_grad
    a = torch.randn(5, 5) + 0
    b = torch.randn(5, 5, requires_grad=True)
    a += b
    assert a.requires_grad


def test_no_requires_grad_inplace():
    a = torch.randn(2, 3)
    a.add_(5)
    a.requires_grad = True
    a.sum().backward()
    assert_equal(a.grad, torch.ones(2, 3))
    # the same through a view
    a = torch.randn(2, 3)
    b = a[:]
    b.add_(5)
    a.requires_grad = True
    a.sum().backward()
    assert_equal(a.grad, torch.ones(2, 3))
    # an in-place op on a leaf that requires grad, or on its view, raises
    a = torch.randn(2, 3)
    b = a[:]
    a.requires_grad = True
    with pytest.raises(RuntimeError):
        a.add_(5)
    with pytest.raises(RuntimeError):
        b.add_(5)


def test_attribute_deletion():
    x = torch.randn((5, 5), requires_grad=True)
    del x.grad
    assert x.grad is None
    with pytest.raises(RuntimeError):
        del x.data
    with pytest.raises(TypeError):
        x.data = None


def test_duplicate_backward_root():
    a = torch.randn(5, 5, requires_grad=True)
    b = torch.randn(5, 5, requires_grad=True)
    x = a * b
    grad_output = torch.randn_like(x)
    torch.autograd.backward([x, x], [grad_output, grad_output])
    assert_equal(a.grad, b * grad_output * 2)
    assert_equal(b.grad, a * grad_output * 2)


def test_backward_no_grad():
    a = torch.randn(5, 5, requires_grad=True)
    b = a + 2
    with pytest.raises(RuntimeError):
        torch.autograd.backward([b], [None])


def test_next_functions():
    x = torch.randn(5, 5, requires_grad=True)
    y = torch.randn(5, 5, requires_grad=True)
    a = x + y
    assert a.grad_fn is not None
    next_functions = a.grad_fn.next_functions
    assert len(next_functions) == 2
    assert is_accumulate_grad(next_functions[0][0])
    assert next_functions[0][1] == 0
    assert is_accumulate_grad(next_functions[1][0])
    assert next_functions[1][1] == 0
    b = a + 5
    next_functions = b.grad_fn.next_functions
    assert len(next_functions) == 2
    assert next_functions[0][0] is a.grad_fn
    assert next_functions[1][0] is None


def test_inplace():
    """(without its two ``_version`` lines: the version counter is not claimed)"""
    x = torch.ones(5, 5, requires_grad=True)
    y = (torch.ones(5, 5) * 4).requires_grad_(True)
    z = x * y
    q = z + y
    w = z * y
    z.add_(2)
    # Add doesn't need its inputs to do backward, so it shouldn't raise
    q.backward(torch.ones(5, 5), retain_graph=True)
    # Mul saves both inputs in forward, so it should raise
    with pytest.raises(RuntimeError):
        w.backward(torch.ones(5, 5))

    z = x * y
    q = z * y
    r = z + y
    w = z.add_(y)
    w.backward(torch.ones(5, 5), retain_graph=True)
    r.backward(torch.ones(5, 5), retain_graph=True)
    with pytest.raises(RuntimeError):
        q.backward(torch.ones(5, 5))

    with torch.no_grad():
        x.grad.zero_()
    m = x / 2
    z = m + y / 8
    q = z * y
    r = z + y
    w = z.exp_()
    r.backward(torch.ones(5, 5), retain_graph=True)
    assert_equal(x.grad, torch.ones(5, 5) / 2)
    w.backward(torch.ones(5, 5), retain_graph=True)
    assert_equal(x.grad, torch.empty(5, 5).fill_((1 + math.e) / 2))
    with pytest.raises(RuntimeError):
        q.backward(torch.ones(5, 5))

    leaf = torch.ones(5, 5, requires_grad=True)
    x = leaf.clone()
    x.add_(10)
    assert_equal(x, torch.ones(5, 5) * 11)
    y = x + 2
    y.backward(torch.ones(5, 5))
    assert_equal(leaf.grad, torch.ones(5, 5))
    z = x * y
    x.add_(2)
    with pytest.raises(RuntimeError):
        z.backward(torch.ones(5, 5))


def test_no_grad_modifies_version():
    x = torch.randn(5, requires_grad=True)
    y = torch.randn(5, requires_grad=True)
    z = (x * y).sum()
    with torch.no_grad():
        x *= 2
    with pytest.raises(RuntimeError, match="modified by an inplace operation"):
        z.backward()


def test_detach():
    x = torch.randn(10, 10, requires_grad=True)
    y = x + 2
    y = y.detach()
    z = y * 4 + 2
    assert not y.requires_grad
    assert not z.requires_grad

    x = torch.randn(10, 10, requires_grad=True)
    y = x * 2
    y = y.detach()
    assert not y.requires_grad
    assert y.grad_fn is None
    z = x + y
    z.sum().backward()
    assert_equal(x.grad, torch.ones(10, 10))

    x = torch.randn(10, 10, requires_grad=True)
    y = torch.randn(10, 10, requires_grad=True)
    a = x * 2
    (y + a).sum().backward(retain_graph=True)
    a.detach_()
    assert not a.requires_grad
    (y + a).sum().backward()
    assert_equal(x.grad, torch.ones(10, 10) * 2)
    assert_equal(y.grad, torch.ones(10, 10) * 2)

    view = x.narrow(0, 1, 4)
    with pytest.raises(RuntimeError, match="view"):
        view.detach_()


def test_detach_base():
    x = torch.randn(10, 10, requires_grad=True)
    view = x.narrow(0, 1, 4)
    x.detach_()
    assert not x.requires_grad
    assert view.requires_grad
    assert view.grad_fn is not None
    assert view._base is x


def test_shape():
    x = torch.randn(3, 4)
    assert 2 == len(x.shape)
    assert x.shape[0] == 3
    assert x.shape[1] == 4


def test_numpy_requires_grad():
    x = torch.randn(2, 2, requires_grad=True)
    with pytest.raises(RuntimeError, match=r"Can't call numpy\(\) on Tensor that requires grad. "
                                           r"Use tensor.detach\(\).numpy\(\) instead."):
        x.numpy()
    with torch.no_grad():
        x.numpy()
    x = torch.randn(2, 2)
    x.numpy()
    with torch.no_grad():
        x.numpy()


def test_backward_copy():
    x = torch.ones(5, 5, requires_grad=True)
    y = torch.ones(5, 5, requires_grad=True)
    a = x + 2
    b = y + 2
    c = x + 2
    add1 = a + b
    add2 = add1 + c
    for _ in range(4):
        a = a * 2
        b = b * 2
        c = c * 2
    branch = a + b + c
    out = add2 + branch
    out.backward(torch.ones(5, 5))
    assert_equal(x.grad, torch.ones(5, 5) * 34)
    assert_equal(y.grad, torch.ones(5, 5) * 17)


def test_pickle():
    x = torch.randn(10, 10, requires_grad=True)
    y = torch.randn(10, 10, requires_grad=False)
    for p in range(3):
        xc, yc = pickle.loads(pickle.dumps([x, y], protocol=p))
        assert_equal(xc, x)
        assert xc.requires_grad == x.requires_grad
        assert_equal(yc, y)
        assert yc.requires_grad == y.requires_grad


def test_variable_traverse():
    def get_out_and_unrefed_cycle():
        inp = torch.randn(10, requires_grad=True)
        tmp = inp.view(10, 1)
        out = tmp.view(10)
        my_list = []
        my_list.append(tmp)
        my_list.append(my_list)
        return out

    out = get_out_and_unrefed_cycle()
    import gc
    gc.collect()
    out.backward(torch.randn(out.size()))


# -- gradients at kinks and singular points -----------------------------------------------------
def test_maximum_and_minimum_subgradient():
    def run_test(f, a, b, expected_a_grad, expected_b_grad):
        a = torch.tensor(a, requires_grad=True)
        b = torch.tensor(b, requires_grad=True)
        z = f(a, b)
        z.sum().backward()
        assert_equal(a.grad, expected_a_grad)
        assert_equal(b.grad, expected_b_grad)

    run_test(torch.maximum, [0., 1., 2.], [1., 1., 1.], [0., 0.5, 1.], [1., 0.5, 0.])
    run_test(torch.minimum, [0., 1., 2.], [1., 1., 1.], [1., 0.5, 0.], [0., 0.5, 1.])


def test_norm_subgradient():
    def run_test(input_size, norm_deg):
        input = torch.zeros(*input_size, requires_grad=True)
        input.norm(norm_deg).backward()
        assert input.grad.abs().sum().item() == 0

    run_test((10,), 2)
    run_test((10, 10), 2)
    run_test((10,), 3)
    run_test((10,), 1)
    run_test((10,), 1.5)
    run_test((10,), inf)


def test_norm_inf_subgradient():
    def run_test(input, expected, dim=None):
        x = torch.tensor(input, requires_grad=True)
        out = x.norm(inf, dim=dim, keepdim=True)
        out.backward(torch.ones(out.size()))
        assert_equal(x.grad, expected)

    run_test([0., 0., 0.], [0., 0., 0.])
    run_test([1., 0., 1.], [0.5, 0., 0.5])
    run_test([[1., 0., 1.], [0., 1., 1.]], [[0.25, 0., 0.25], [0., 0.25, 0.25]])
    run_test([[1., 0., 1.], [0., 1., 0.]], [[0.5, 0., 0.5], [0., 1., 0.]], (1,))
    run_test(torch.ones((2, 2, 2)).tolist(), torch.full((2, 2, 2), 0.25), (0, 2))


def test_pow_zero_tensor_gradient():
    def run_test(input_size, exponent):
        input = torch.zeros(*input_size, requires_grad=True)
        input.pow(exponent).sum().backward()
        assert input.grad.abs().sum().item() == 0

    run_test((10,), torch.zeros(10))
    run_test((10, 10), torch.zeros(10, 10))
    run_test((10,), 0)


def test_pow_scalar_base():
    a = torch.arange(1, 13, dtype=torch.double).view(3, 4).requires_grad_()
    assert gradcheck(lambda a: torch.pow(2, a), (a,))


def test_inplace_on_view_leaf_errors():
    x = torch.zeros(1, requires_grad=True)
    y = x.view_as(x)
    with pytest.raises(RuntimeError, match="a view of a leaf Variable that requires grad is being "
                                           "used in an in-place operation."):
        y.add_(1)


def test_autograd_views_codegen():
    def run_test(grad_mode, requires_grad, is_view, should_raise_tuple):
        def maybe_check_raise(fn, should_raise):
            assert should_raise is None or isinstance(should_raise, str)
            if should_raise is not None:
                with pytest.raises(RuntimeError, match=should_raise):
                    fn()
            else:
                fn()

        inp = torch.rand(2, requires_grad=requires_grad).clone()
        with torch.set_grad_enabled(grad_mode):
            out = inp.view_as(inp)
        assert out._is_view() == is_view
        maybe_check_raise(lambda: out.add_(1), should_raise_tuple[0])

        inp = torch.rand(2, requires_grad=requires_grad).clone()
        with torch.set_grad_enabled(grad_mode):
            out = inp.unbind()
        assert out[0]._is_view() == is_view
        assert out[1]._is_view() == is_view
        maybe_check_raise(lambda: out[0].add_(1), should_raise_tuple[1])
        maybe_check_raise(lambda: out[1].add_(1), should_raise_tuple[2])

    run_test(grad_mode=True, requires_grad=False, is_view=True,
             should_raise_tuple=(None, None, None))
    # (PyTorch 2.13 names the node "Unbind"; the older file said "UnbindBackward")
    inp_change_err = "Output {} of Unbind is a view and is being modified inplace."
    run_test(grad_mode=True, requires_grad=True, is_view=True,
             should_raise_tuple=(None, inp_change_err.format("0"), inp_change_err.format("1")))
    leaf_grad_err = "A view was created in no_grad mode and is being modified inplace"
    run_test(grad_mode=False, requires_grad=True, is_view=True,
             should_raise_tuple=(leaf_grad_err, leaf_grad_err, leaf_grad_err))
    run_test(grad_mode=False, requires_grad=False, is_view=True,
             should_raise_tuple=(None, None, None))


def test_power_function():
    a = torch.tensor([0., 0., 0.])
    b = torch.tensor([-1., 0., 1.], requires_grad=True)
    c = torch.sum(a ** b)
    c.backward()
    assert_equal(b.grad, torch.tensor([-inf, 0., 0.]))
    s = 0
    b = torch.tensor([-1., 0., 1.], requires_grad=True)
    c = torch.sum(s ** b)
    c.backward()
    assert_equal(b.grad, torch.tensor([-inf, 0., 0.]))


def test_integer_outputs():
    """(the part on the ops docs/torch.md lists: argmax, argmin)"""
    inp = torch.rand(4, requires_grad=True)
    out = inp.argmax()
    assert not out.is_floating_point()
    assert not out.requires_grad
    out = inp.argmin()
    assert not out.is_floating_point()
    assert not out.requires_grad
