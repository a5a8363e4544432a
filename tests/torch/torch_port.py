"""What the tests ported from PyTorch's own test suite share: the torch they run on, PyTorch's
``assertEqual`` and ``gradcheck`` in the small (on the API tape.torch claims).

They run on ``tape.torch``; with ``TAPE_TORCH_REFERENCE=1`` the same files run on the real
PyTorch (installed beside tape), so every ported assertion is checked to be PyTorch's behaviour.
PyTorch's autograd tests run with float64 as the default dtype, as tape.torch always does.
"""
from __future__ import annotations

import os

import numpy as np
import pytest

REFERENCE = os.environ.get("TAPE_TORCH_REFERENCE", "") not in ("", "0")

if REFERENCE:
    torch = pytest.importorskip("torch")
    torch.set_default_dtype(torch.float64)
else:
    import tape.torch as torch  # noqa: F401


def differs(reason):
    """A test of PyTorch behaviour tape.torch deliberately does not have (docs/torch.md says
    why): skipped on tape.torch, still run on PyTorch."""
    return pytest.mark.skipif(not REFERENCE, reason=f"tape.torch differs: {reason}")


def as_array(x):
    if x is None:
        return None
    if hasattr(x, "detach"):
        return np.asarray(x.detach().numpy(force=True))     # (force: PyTorch's zero tensors)
    return np.asarray(x)


def assert_equal(actual, expected, atol=1e-7, rtol=1e-7):
    """PyTorch's ``assertEqual`` for tensors, numbers and None (shapes must agree)."""
    if actual is None or expected is None:
        assert actual is expected, f"{actual!r} is not {expected!r}"
        return
    a, e = as_array(actual), as_array(expected)
    assert a.shape == e.shape, f"shape {a.shape} != {e.shape}"
    np.testing.assert_allclose(a, e, rtol=rtol, atol=atol, equal_nan=True)


def _outputs(out):
    return list(out) if isinstance(out, (tuple, list)) else [out]


def gradcheck(fn, inputs, eps=1e-6, atol=1e-5, rtol=1e-3, seed=0):
    """``torch.autograd.gradcheck`` in the small: for random output cotangents ``v``, the
    vector-Jacobian product from ``autograd.grad`` equals central differences of ``v . fn``."""
    inputs = list(inputs) if isinstance(inputs, (tuple, list)) else [inputs]
    wanted = [x for x in inputs if getattr(x, "requires_grad", False)]
    first = _outputs(fn(*inputs))
    used = [k for k, o in enumerate(first) if o.requires_grad]
    outs = [first[k] for k in used]
    rng = np.random.default_rng(seed)
    vs = [rng.standard_normal(tuple(o.shape)) for o in outs]
    got = torch.autograd.grad(outs, wanted, [torch.from_numpy(v.copy()) for v in vs],
                              allow_unused=True)

    def value(arrays):
        args = []
        k = 0
        for x in inputs:
            if getattr(x, "requires_grad", False):
                args.append(torch.from_numpy(arrays[k]).requires_grad_())   # (fn may differentiate)
                k += 1
            else:
                args.append(x)
        ys = [_outputs(fn(*args))[k] for k in used]
        return sum(float((as_array(y) * v).sum()) for y, v in zip(ys, vs))

    base = [as_array(x).astype(np.float64).copy() for x in wanted]
    for i, g in enumerate(got):
        numeric = np.zeros_like(base[i])
        flat = numeric.reshape(-1)
        for j in range(base[i].size):
            plus = [b.copy() for b in base]
            minus = [b.copy() for b in base]
            plus[i].reshape(-1)[j] += eps
            minus[i].reshape(-1)[j] -= eps
            flat[j] = (value(plus) - value(minus)) / (2 * eps)
        analytic = np.zeros_like(numeric) if g is None else as_array(g)
        np.testing.assert_allclose(analytic, numeric, rtol=rtol, atol=atol)
    return True


def gradgradcheck(fn, inputs, **kwargs):
    """``gradgradcheck`` in the small: ``gradcheck`` of the vector-Jacobian product itself
    (built with ``create_graph=True``)."""
    inputs = list(inputs) if isinstance(inputs, (tuple, list)) else [inputs]
    wanted_at = [i for i, x in enumerate(inputs) if getattr(x, "requires_grad", False)]
    outs0 = [o for o in _outputs(fn(*inputs)) if o.requires_grad]
    rng = np.random.default_rng(1)
    vs = [torch.from_numpy(rng.standard_normal(tuple(o.shape))) for o in outs0]

    def vjp(*xs):
        outs = [o for o in _outputs(fn(*xs)) if o.requires_grad]
        got = torch.autograd.grad(outs, [xs[i] for i in wanted_at], vs, create_graph=True,
                                  allow_unused=True)
        return tuple(g for g in got if g is not None and g.requires_grad)

    return gradcheck(vjp, inputs, **kwargs)
