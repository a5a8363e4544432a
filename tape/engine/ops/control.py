"""Control flow and gradient control: cond, while_loop, function, stop_gradient, custom_gradient."""
from __future__ import annotations

import functools
import inspect

import numpy as np

from .. import nest
from ..registry import Primitive, active_accumulators, defop, record, recording_tapes
from ..tensor import Tensor, _wrap, convert_to_tensor

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

    Gradients flow through it exactly as through the undecorated function.
    """
    if func is None:
        return lambda f: function(f, input_signature, autograph, jit_compile, reduce_retracing)

    @functools.wraps(func)
    def wrapper(*args, **kw):
        return func(*args, **kw)
    wrapper.python_function = func
    return wrapper


def custom_gradient(f=None):
    """Decorator for a function returning ``(y, grad_fn)``; ``grad_fn(*dy)`` gives the input gradients.

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

    @functools.wraps(f)
    def wrapped(*args, **kwargs):
        from ..tape import GradientTape
        inputs = tuple(a if isinstance(a, Tensor) else convert_to_tensor(a) for a in args)
        paused, paused_acc = recording_tapes[:], active_accumulators[:]
        recording_tapes.clear()
        active_accumulators.clear()
        probe = GradientTape()          # only to learn which variables f reads
        try:
            with probe:
                y, grad_fn = f(*inputs, **kwargs)
        finally:
            recording_tapes[:] = paused
            active_accumulators[:] = paused_acc
        # variables read inside f, as TensorFlow counts them: a variable passed in as an argument
        # is an input, not one of them
        variables = [v for v in probe.watched_variables() if not any(v is i for i in inputs)]
        flat = [convert_to_tensor(t) for t in nest.flatten(y)]
        outputs = tuple(_wrap(t._value) for t in flat)
        if recording_tapes or active_accumulators:
            op = Primitive(None, f"CustomGradient:{getattr(f, '__name__', 'f')}", "many")
            op.custom_grad = _custom_rule(f, grad_fn, len(inputs), variables)
            record(op, inputs + tuple(variables), outputs, {})
        return nest.pack_sequence_as(y, list(outputs))
    return wrapped


def _custom_rule(f, grad_fn, n_inputs, variables):
    """The gradient rule of one custom_gradient call: grad_fn's results, checked and flattened."""
    name = getattr(f, "__name__", "f")

    def rule(node, *gs):
        if variables:
            try:
                accepts = "variables" in inspect.signature(grad_fn).parameters
            except (TypeError, ValueError):
                accepts = True
            if not accepts:
                raise TypeError(f"custom_gradient: {name} reads variables, so its grad_fn must accept "
                                "a keyword argument 'variables' and return (input grads, variable grads)")
            got, var_grads = grad_fn(*gs, variables=variables)
            var_grads = list(var_grads)
            if len(var_grads) != len(variables):
                raise ValueError(f"custom_gradient: grad_fn of {name} returned {len(var_grads)} "
                                 f"variable gradients for {len(variables)} variables")
        else:
            got, var_grads = grad_fn(*gs), []
        got = list(got) if isinstance(got, (list, tuple)) else [got]
        if len(got) != n_inputs:
            raise ValueError(f"custom_gradient: grad_fn of {name} returned {len(got)} gradients for "
                             f"{n_inputs} inputs")
        return [None if g is None else convert_to_tensor(g) for g in got + var_grads]
    return rule


def recompute_grad(f):
    return f


