"""Control flow and gradient control: cond, while_loop, function, stop_gradient, custom_gradient."""
from __future__ import annotations

import functools
import inspect

import numpy as np

from .. import nest
from ..registry import (Primitive, defop, is_recording, record, resume_recording,
                        suspend_recording)
from ..tensor import Tensor, _wrap, convert_to_tensor
from .creation import zeros_like
from .cast import cast, real
from .array import reduce_sum

stop_gradient = defop("StopGradient", lambda x: x, differentiable=False,
                      doc="The same values, but no gradient flows through: the tape sees a constant.")


def cond(pred, true_fn=None, false_fn=None, name=None):
    """Run ``true_fn()`` if ``pred`` is true, else ``false_fn()``; only the chosen branch runs."""
    if not callable(true_fn) or not callable(false_fn):
        raise TypeError("cond: true_fn and false_fn must both be callables taking no arguments")
    return true_fn() if bool(pred) else false_fn()


def while_loop(cond, body, loop_vars, shape_invariants=None, parallel_iterations=10,
               back_prop=True, swap_memory=False, maximum_iterations=None, name=None):
    """Repeat ``loop_vars = body(*loop_vars)`` while ``cond(*loop_vars)``; returns the last structure.

    The tape records each iteration's ops as they run, so gradients flow through the loop.
    """
    if not callable(cond) or not callable(body):
        raise TypeError("while_loop: cond and body must be callables")
    as_args = isinstance(loop_vars, (list, tuple))
    state = loop_vars
    if maximum_iterations is not None:
        maximum_iterations = int(maximum_iterations)
    step = 0
    while maximum_iterations is None or step < maximum_iterations:
        args = tuple(state) if isinstance(state, (list, tuple)) else (state,)
        if not bool(cond(*args) if as_args else cond(state)):
            break
        state = body(*args) if as_args else body(state)
        step += 1
    if step == 0:
        return nest.map_structure(lambda v: v if isinstance(v, Tensor) else convert_to_tensor(v), state)
    return state


def function(func=None, input_signature=None, autograph=True, jit_compile=None,
             reduce_retracing=False, experimental_relax_shapes=None, **kwargs):
    """Decorator kept for TensorFlow compatibility: runs the Python function as it is.

    Gradients flow through it exactly as through the undecorated function. As in TensorFlow its
    outputs are tensors: a Python number it returns becomes a tensor (None stays None). Where a
    TensorFlow function would turn Python ``if``/``else`` into a ``cond``, a branch returning a
    number is still connected to the function's tensor arguments, with derivative zero.
    """
    if func is None:
        return lambda f: function(f, input_signature, autograph, jit_compile, reduce_retracing)

    @functools.wraps(func)
    def wrapper(*args, **kw):
        result = func(*args, **kw)
        if not any(_is_python_number(r) or isinstance(r, np.ndarray) for r in nest.flatten(result)):
            return result
        sources = [a for a in nest.flatten((args, kw)) if isinstance(a, Tensor)
                   and a._value.dtype.kind in "fc"]
        return nest.map_structure(lambda r: _as_output(r, sources), result)
    wrapper.python_function = func
    return wrapper


def _is_python_number(value) -> bool:
    return isinstance(value, (int, float, complex)) and not isinstance(value, bool)


def _as_output(value, sources):
    """A function's output as a tensor; a Python number is tied to ``sources`` with derivative 0."""
    if not _is_python_number(value) or not sources or not is_recording():
        return value if value is None or isinstance(value, Tensor) else convert_to_tensor(value)
    return _constant_of(value)(*sources)


def _constant_of(value):
    @custom_gradient
    def constant_of(*xs):
        def grad(dy):
            # zeros that still depend on dy, so a JVP taken through this rule is 0, not None
            scale = reduce_sum(dy)
            return [scale * zeros_like(x) if x._value.dtype.kind == dy._value.dtype.kind
                    else zeros_like(x) for x in xs]
        return convert_to_tensor(value), grad
    return constant_of


def custom_gradient(f=None):
    """Decorator for a function returning ``(y, grad_fn)``; ``grad_fn(*dy)`` gives the input gradients.

    As in TensorFlow, the arguments may be nests: every leaf of the positional arguments is an
    input (tensors and numbers are recorded; anything else passes through unchanged) and
    ``grad_fn`` returns one gradient per leaf, flat or in the arguments' structure. Keyword
    arguments are passed through and get no gradient. The decorator works on methods too.

    Examples
    --------
    >>> @tape.custom_gradient
    ... def clip_grad(x):
    ...     def grad(dy):
    ...         return tape.clip_by_value(dy, -1.0, 1.0)
    ...     return tape.identity(x), grad
    """
    if f is None:
        return custom_gradient
    return _CustomGradient(f)


class _CustomGradient:
    """The decorated function; a descriptor, so that on a method ``self`` is bound, not an input."""

    def __init__(self, f):
        self._f = f
        functools.update_wrapper(self, f)

    def __get__(self, instance, owner=None):
        if instance is None:
            return self
        return _CustomGradient(self._f.__get__(instance, owner))

    def __call__(self, *args, **kwargs):
        return _call_with_custom_gradient(self._f, args, kwargs)


def _recordable(leaf) -> bool:
    return isinstance(leaf, (Tensor, np.ndarray, np.generic)) or _is_python_number(leaf)


def _call_with_custom_gradient(f, args, kwargs):
    from ..tape import GradientTape
    leaves = nest.flatten(args)
    inputs = [leaf if isinstance(leaf, Tensor) else convert_to_tensor(leaf) if _recordable(leaf)
              else None for leaf in leaves]
    paused = suspend_recording()
    probe = GradientTape()          # only to learn which variables f reads
    try:
        with probe:
            y, grad_fn = f(*args, **kwargs)
    finally:
        resume_recording(paused)
    # variables read inside f, as TensorFlow counts them: a variable passed in (positionally
    # or by keyword) is not one of them
    passed = [leaf for leaf in leaves + nest.flatten(kwargs) if isinstance(leaf, Tensor)]
    variables = [v for v in probe.watched_variables() if not any(v is p for p in passed)]
    flat_y = nest.flatten(y)
    outputs = [None if leaf is None else _wrap(convert_to_tensor(leaf)._value) for leaf in flat_y]
    recorded_outputs = tuple(o for o in outputs if o is not None)
    if recorded_outputs and is_recording():
        slots = [i for i, t in enumerate(inputs) if t is not None]
        op = Primitive(None, f"CustomGradient:{getattr(f, '__name__', 'f')}", "many")
        op.custom_grad = _custom_rule(f, grad_fn, len(leaves), slots, variables,
                                      [o is not None for o in outputs])
        record(op, tuple(inputs[i] for i in slots) + tuple(variables), recorded_outputs, {})
    return nest.pack_sequence_as(y, outputs)


def _custom_rule(f, grad_fn, n_leaves, slots, variables, output_present):
    """The gradient rule of one custom_gradient call: grad_fn's results, checked and flattened.

    ``slots``: the argument leaves that were recorded as inputs; ``output_present``: which leaves
    of the result are tensors (grad_fn gets None for the others).
    """
    name = getattr(f, "__name__", "f")

    def rule(node, *gs):
        it = iter(gs)
        dys = [next(it) if present else None for present in output_present]
        if variables:
            try:
                accepts = "variables" in inspect.signature(grad_fn).parameters
            except (TypeError, ValueError):
                accepts = True
            if not accepts:
                raise TypeError(f"custom_gradient: {name} reads variables, so its grad_fn must accept "
                                "a keyword argument 'variables' and return (input grads, variable grads)")
            got, var_grads = grad_fn(*dys, variables=variables)
            var_grads = list(var_grads)
            if len(var_grads) != len(variables):
                raise ValueError(f"custom_gradient: grad_fn of {name} returned {len(var_grads)} "
                                 f"variable gradients for {len(variables)} variables")
        else:
            got, var_grads = grad_fn(*dys), []
        got = nest.flatten(got)
        if len(got) != n_leaves:
            raise ValueError(f"custom_gradient: grad_fn of {name} returned {len(got)} gradients for "
                             f"{n_leaves} inputs (one per leaf of the arguments)")
        grads = [got[i] for i in slots] + var_grads
        return [_as_gradient_of(g, x) for g, x in zip(grads, node.inputs)]
    return rule


def _as_gradient_of(grad, x):
    """A gradient from grad_fn as a tensor of ``x``'s dtype: a complex gradient of a real input
    keeps its real part, a real gradient of a complex input becomes complex."""
    if grad is None:
        return None
    grad = convert_to_tensor(grad)
    want, got = x._value.dtype, grad._value.dtype
    if want == got or want.kind not in "fc" or got.kind not in "fc":
        return grad
    if got.kind == "c" and want.kind == "f":
        grad = real(grad)
    return cast(grad, want)


def recompute_grad(f):
    """TensorFlow's memory-saving decorator: the gradients are those of ``f`` itself.

    tape keeps the forward values it recorded, so there is nothing to recompute; the decorator
    only keeps ``f``'s name, docstring and ``__wrapped__``.
    """
    @functools.wraps(f)
    def wrapped(*args, **kwargs):
        return f(*args, **kwargs)
    return wrapped
