"""autograd's function transforms for the ported tests, each answered by tape's public API
(``tape.grad``, ``tape.GradientTape``, ``tape.ForwardAccumulator``...). The few that tape has no
counterpart for raise NotImplementedError when called: a test that needs one fails, and is
counted (docs/numpy.md lists them)."""
from __future__ import annotations

import builtins
import inspect

import numpy as np

import tape

tuple, list, dict = builtins.tuple, builtins.list, builtins.dict


def _plain(x):
    if isinstance(x, tape.Tensor):
        return np.asarray(x.numpy())
    if isinstance(x, (builtins.tuple, builtins.list)):
        return type(x)(_plain(v) for v in x)
    if isinstance(x, builtins.dict):
        return {k: _plain(v) for k, v in x.items()}
    return x


def check_equivalent(x, y):
    x, y = _plain(x), _plain(y)
    if isinstance(x, (builtins.tuple, builtins.list)) or isinstance(y, (builtins.tuple, builtins.list)):
        assert len(x) == len(y), (x, y)
        for a, b in zip(x, y):
            check_equivalent(a, b)
        return
    np.testing.assert_allclose(np.asarray(x), np.asarray(y), rtol=1e-6, atol=1e-6)


def isbox(x):
    """autograd's boxes are the values it traces: for tape, tensors some tape tracks."""
    from tape.engine.tensor import tracked_by_a_tape
    return isinstance(x, tape.Tensor) and tracked_by_a_tape(x)


def grad(fun, argnum=0):
    return tape.grad(fun, argnum)


def value_and_grad(fun, argnum=0):
    return tape.value_and_grad(fun, argnum)


def elementwise_grad(fun, argnum=0):
    return tape.elementwise_grad(fun, argnum)


def jacobian(fun, argnum=0):
    return tape.jacobian(fun, argnum)


def hessian(fun, argnum=0):
    return tape.hessian(fun, argnum)


def deriv(fun, argnum=0):
    def call(*args):
        x = tape.constant(np.asarray(args[argnum], dtype=float))
        full = builtins.list(args)
        full[argnum] = x
        with tape.ForwardAccumulator(x, tape.ones_like(x)) as acc:
            y = fun(*full)
        return acc.jvp(y)
    return call


def hessian_tensor_product(fun, argnum=0):
    """``(*args, v) -> H v``: the gradient of <grad f, v>, as autograd defines it."""
    first = tape.grad(fun, argnum)

    def along(*args, **kwargs):
        *args, v = args
        return np.tensordot(first(*args, **kwargs), v, np.ndim(v))
    return tape.grad(along, argnum)


hessian_vector_product = hessian_tensor_product


def tensor_jacobian_product(fun, argnum=0):
    """``(*args, v) -> v J``: the Jacobian of <v, f>."""
    def along(*args, **kwargs):
        *args, v = args
        return np.tensordot(v, fun(*args, **kwargs), axes=np.ndim(v))
    return tape.jacobian(along, argnum)


vector_jacobian_product = tensor_jacobian_product


def make_vjp(fun, argnum=0):
    def call(*args, **kwargs):
        full = builtins.list(args)
        x = full[argnum] = tape.constant(np.asarray(args[argnum], dtype=float))
        with tape.GradientTape(persistent=True) as t:
            t.watch(x)
            y = fun(*full, **kwargs)
        return (lambda g: t.gradient(y, x, output_gradients=tape.constant(np.asarray(g, float)),
                                     unconnected_gradients="zero")), y
    return call


def make_jvp(fun, argnum=0):
    def call(*args, **kwargs):
        def jvp(v):
            full = builtins.list(args)
            x = full[argnum] = tape.constant(np.asarray(args[argnum], dtype=float))
            with tape.ForwardAccumulator(x, tape.constant(np.asarray(v, dtype=float))) as acc:
                y = fun(*full, **kwargs)
            t = acc.jvp(y)
            return y, (t if t is not None else tape.zeros_like(y))
        return jvp
    return call


def make_hvp(fun, argnum=0):
    def call(*args, **kwargs):
        return make_vjp(tape.grad(fun, argnum), argnum)(*args, **kwargs)
    return call


def make_ggnvp(f, g=lambda x: 1.0 / 2 * np.sum(x ** 2, axis=-1), f_argnum=0):
    """The generalised Gauss-Newton product J_f^T H_g J_f v."""
    def call(*args, **kwargs):
        f_vjp, f_x = make_vjp(f, f_argnum)(*args, **kwargs)
        g_hvp, _ = make_hvp(g)(f_x)
        f_jvp = make_jvp(f, f_argnum)(*args, **kwargs)
        return lambda v: f_vjp(g_hvp(f_jvp(v)[1]))
    return call


def grad_and_aux(fun, argnum=0):
    def call(*args, **kwargs):
        aux = []

        def first(*a, **k):
            value, extra = fun(*a, **k)
            aux.append(extra)
            return value
        return tape.grad(first, argnum)(*args, **kwargs), aux[-1]
    return call


def multigrad_dict(fun):
    names = builtins.list(inspect.signature(fun).parameters)

    def call(*args, **kwargs):
        bound = inspect.signature(fun).bind(*args, **kwargs)
        values = [bound.arguments[n] for n in names if n in bound.arguments]
        grads = tape.grad(lambda *v: fun(*v), builtins.tuple(range(len(values))))(*values)
        return builtins.dict(zip([n for n in names if n in bound.arguments], grads))
    return call


def checkpoint(fun):
    return fun


def _missing(name):
    def call(*args, **kwargs):
        raise NotImplementedError(f"tape has no counterpart of autograd.{name}")
    call.__name__ = name
    return call


for _name in ("holomorphic_grad", "grad_named", "primitive", "defvjp", "defjvp"):
    globals()[_name] = _missing(_name)
