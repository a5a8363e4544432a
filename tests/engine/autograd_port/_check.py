"""The checks of autograd's test suite (``autograd.test_util.check_grads`` / ``combo_check``),
run on tape: the ported tests keep autograd's calls, this module answers them.

``check_grads(fun, argnum=0, modes=None, order=2)(*args, **kwargs)`` checks, for the arguments
in ``argnum`` (plain NumPy arrays and numbers, real or complex):

- the value of ``fun`` on tape tensors equals its value on arrays (NumPy's own);
- reverse mode: the gradient of ``L = sum(Re(y * conj(w)))`` (random weights ``w`` on every
  output) equals a central difference of ``L`` along a random direction; for complex
  arguments tape's gradient is TensorFlow's ``dL/dRe + i dL/dIm``;
- with ``order=2``, the same again for ``x -> <grad L(x), u>`` through nested tapes (real
  arguments);
- forward mode ("fwd" in ``modes``, real arguments): the ForwardAccumulator's JVP against the
  central difference;
- where autograd is installed: the gradient equals autograd's (whose complex gradients are the
  conjugate of tape's), computed from the same function with ``np`` bound to
  ``autograd.numpy``.
"""
from __future__ import annotations

import itertools
import types

import numpy as np

import tape

try:
    import autograd
    import autograd.numpy as anp
except ImportError:             # the finite differences still check every gradient
    autograd = anp = None

EPS = 1e-6
RTOL = 1e-5
ATOL = 1e-6
_rng = np.random.default_rng(20261129)


def _leaves(y):
    if type(y).__name__ == "SequenceBox":          # autograd's boxed list or tuple
        y = [y[i] for i in range(len(y))]
    if isinstance(y, (list, tuple)):
        return [leaf for part in y for leaf in _leaves(part)]
    return [y]


def _numeric(arg) -> bool:
    """A (nested) list of numbers: one array."""
    try:
        return np.asarray(arg).dtype.kind in "fciu"
    except ValueError:
        return False


def _structure(arg):
    """``(leaves, rebuild)`` of an argument: a list or tuple of arrays is a container of them
    (``np.concatenate((a, b))``), anything else one leaf."""
    if isinstance(arg, (list, tuple)) and not _numeric(arg) and \
            any(np.ndim(a) or isinstance(a, (list, tuple)) for a in arg):
        kind = type(arg)
        return list(arg), lambda values: kind(values)
    return [arg], lambda values: values[0]


def _float(x):
    x = np.asarray(x)
    return x.astype(np.complex128 if x.dtype.kind == "c" else np.float64)


def _random_like(x):
    x = np.asarray(x)
    v = _rng.standard_normal(x.shape)
    if x.dtype.kind == "c":
        v = v + 1j * _rng.standard_normal(x.shape)
    return v


def _differentiable(y) -> bool:
    return np.asarray(y.numpy() if isinstance(y, tape.Tensor) else y).dtype.kind in "fc"


def _loss(leaves, weights, lib=np):
    total = 0.0
    for y, w in zip(leaves, weights):
        total = total + lib.real(lib.sum(y * lib.conj(w)))
    return total


def check_grads(fun, argnum=0, modes=None, order=2):
    modes = ["fwd", "rev"] if modes is None else list(modes)
    nums = tuple(argnum) if isinstance(argnum, (tuple, list)) else (argnum,)

    def run(*args, **kwargs):
        _check(fun, nums, modes, order, list(args), kwargs)
    return run


def combo_check(fun, *check_args, **check_kwargs):
    """Every combination of the given argument values and keyword values (autograd's)."""
    def run(*arg_lists, **kwarg_lists):
        pairs = [[(k, v) for v in values] for k, values in kwarg_lists.items()]
        for args in itertools.product(*arg_lists):
            for kw in itertools.product(*pairs):
                check_grads(fun, *check_args, **check_kwargs)(*args, **dict(kw))
    return run


def _call(fun, args, nums, xs, kwargs):
    full = list(args)
    start = 0
    for i in nums:
        leaves, rebuild = _structure(args[i])
        full[i] = rebuild(list(xs[start:start + len(leaves)]))
        start += len(leaves)
    return fun(*full, **kwargs)


def _check(fun, nums, modes, order, args, kwargs):
    xs = [_float(leaf) for i in nums for leaf in _structure(args[i])[0]]
    plain = _leaves(_call(fun, args, nums, [x.copy() for x in xs], kwargs))
    got = _leaves(_call(fun, args, nums, [tape.constant(x) for x in xs], kwargs))
    assert len(got) == len(plain), f"{_name(fun)}: {len(got)} outputs, NumPy gives {len(plain)}"
    for g, p in zip(got, plain):
        g = np.asarray(g.numpy() if isinstance(g, tape.Tensor) else g)
        np.testing.assert_allclose(g, np.asarray(p), rtol=1e-9, atol=1e-12,
                                   err_msg=f"{_name(fun)}: value differs from NumPy's")
    if not any(_differentiable(p) for p in plain):
        return
    weights = [_random_like(p) if _differentiable(p) else None for p in plain]
    keep = [w is not None for w in weights]
    weights = [w for w in weights if w is not None]

    def loss_np(values):
        out = [y for y, k in zip(_leaves(_call(fun, args, nums, values, kwargs)), keep) if k]
        return float(_loss([np.asarray(y) for y in out], weights))

    def loss_tape(values):
        out = [y for y, k in zip(_leaves(_call(fun, args, nums, values, kwargs)), keep) if k]
        return _loss(out, weights)

    grads = _tape_gradient(loss_tape, xs)
    directions = [_random_like(x) for x in xs]
    numeric = _central(loss_np, xs, directions)
    analytic = sum(float(np.real(np.sum(np.conj(g) * v))) for g, v in zip(grads, directions))
    _close(analytic, numeric, f"{_name(fun)}: reverse-mode gradient")
    if autograd is not None:
        _against_autograd(fun, nums, args, kwargs, xs, keep, weights, grads)
    real = all(x.dtype.kind == "f" for x in xs)
    if "fwd" in modes and real:
        _check_forward(loss_tape, xs, directions, numeric, fun)
    if order > 1 and real and "rev" in modes:
        us = [_random_like(x) for x in xs]

        def inner(values):
            gs = _tape_gradient(loss_tape, values, keep_tensors=True)
            return sum(tape.reduce_sum(g * u) for g, u in zip(gs, us))

        second = _tape_gradient(inner, xs)
        dirs2 = [_random_like(x) for x in xs]
        num2 = _central(lambda vals: float(inner([tape.constant(v) for v in vals])), xs, dirs2)
        ana2 = sum(float(np.sum(g * v)) for g, v in zip(second, dirs2))
        _close(ana2, num2, f"{_name(fun)}: second-order gradient", rtol=1e-4, atol=1e-5)


def _tape_gradient(loss, xs, keep_tensors=False):
    ts = [x if isinstance(x, tape.Tensor) else tape.constant(x) for x in xs]
    with tape.GradientTape() as t:
        t.watch(ts)
        y = loss(ts)
    if not isinstance(y, tape.Tensor):          # a function that does not use its argument
        gs = [tape.zeros_like(x) for x in ts]
    else:
        gs = t.gradient(y, ts, unconnected_gradients="zero")
    return gs if keep_tensors else [np.asarray(g.numpy()) for g in gs]


def _central(loss_np, xs, directions, eps=EPS):
    def at(h):
        return loss_np([x + h * v for x, v in zip(xs, directions)])
    return (at(eps) - at(-eps)) / (2 * eps)


def _check_forward(loss_tape, xs, directions, numeric, fun):
    ts = [tape.constant(x) for x in xs]
    with tape.ForwardAccumulator(ts, [tape.constant(v) for v in directions]) as acc:
        y = loss_tape(ts)
    jvp = acc.jvp(y)
    value = 0.0 if jvp is None else float(np.asarray(jvp.numpy()))
    _close(value, numeric, f"{_name(fun)}: forward-mode JVP")


def _close(a, b, what, rtol=RTOL, atol=ATOL):
    assert abs(a - b) <= atol + rtol * max(abs(a), abs(b)), f"{what}: tape {a!r}, numeric {b!r}"


def _name(fun):
    return getattr(fun, "__name__", repr(fun))


# -- the reference ---------------------------------------------------------------------------
def twin(f):
    """``f`` with NumPy replaced by autograd.numpy: NumPy's functions by autograd's of the same
    name, and a Python function's global ``np`` (and the NumPy functions it closes over) too."""
    if isinstance(f, np.ufunc) or str(getattr(f, "__module__", "")).startswith("numpy"):
        module = anp
        for part in str(getattr(f, "__module__", "numpy")).split(".")[1:]:
            if hasattr(module, part.lstrip("_")):        # numpy.fft, numpy.linalg._linalg
                module = getattr(module, part.lstrip("_"))
        return getattr(module, f.__name__)
    if isinstance(f, types.FunctionType):
        env = dict(f.__globals__)
        for k, v in f.__globals__.items():
            if v is np:
                env[k] = anp
        cells = None
        if f.__closure__:
            cells = tuple(types.CellType(twin(c.cell_contents) if callable(c.cell_contents)
                                         else c.cell_contents) for c in f.__closure__)
        return types.FunctionType(f.__code__, env, f.__name__, f.__defaults__, cells)
    return f


def _against_autograd(fun, nums, args, kwargs, xs, keep, weights, grads):
    ref = twin(fun)

    def loss(*values):
        out = [y for y, k in zip(_leaves(_call(ref, args, nums, values, kwargs)), keep) if k]
        return _loss(out, weights, anp)

    try:
        expected = autograd.grad(loss, tuple(range(len(xs))))(*xs)
    except Exception:           # autograd cannot take this one: the finite differences did
        return
    for g, e, x in zip(grads, expected, xs):
        e = np.asarray(e)
        if x.dtype.kind == "c":
            e = np.conj(e)
        np.testing.assert_allclose(g, np.broadcast_to(e, g.shape), rtol=1e-6, atol=1e-8,
                                   err_msg=f"{_name(fun)}: gradient differs from autograd's")
