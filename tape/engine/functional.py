"""Function transforms: grad, value_and_grad, jacobian, hessian, hvp, derivative, and
pointwise_partials (every point's value and partials up to an order, for batches of points).

Each takes a function of tensors (NumPy arrays and Python numbers are converted to float64
tensors; tensors are passed through unchanged, so an outer GradientTape stays connected and
transforms nest: ``grad(grad(f))``).
"""
from __future__ import annotations

import math

import numpy as np

from .ops.array import concat, identity, reshape, transpose
from .tape import GradientTape, nested_tapes
from . import nest as _nest
from .tensor import Tensor, _wrap, convert_to_tensor, differentiable_input

# forward.py and taylor.py are imported by the two transforms that use them (hvp, derivative):
# the command line's gradients come through pointwise_partials and start faster without them


def _argnums(argnums, nargs, what):
    single = not isinstance(argnums, (tuple, list))
    nums = (argnums,) if single else tuple(argnums)
    for i in nums:
        if isinstance(i, bool) or not isinstance(i, (int, np.integer)):
            raise TypeError(f"{what}: argnums must be an int or a tuple of ints, got {argnums!r}")
        if not -nargs <= i < nargs:
            raise ValueError(f"{what}: argnums {i} is out of range for {nargs} positional "
                             "argument(s)")
    return single, tuple(int(i) % nargs for i in nums)


def _prepare(args, argnums, what):
    single, nums = _argnums(argnums, len(args), what)
    args = list(args)
    seen = set()

    def leaf(value, label):
        value = differentiable_input(value, label)
        if id(value) in seen:                # the same tensor twice: give each its own identity
            value = identity(value)
        seen.add(id(value))
        return value

    for i in nums:
        if _is_container(args[i]):           # a list, tuple or dict of arrays, as autograd takes
            leaves = [leaf(v, f"{what}: argument {i}") for v in _nest.flatten(args[i])]
            args[i] = _nest.pack_sequence_as(args[i], leaves)
        else:
            args[i] = leaf(args[i], f"{what}: argument {i}")
    return single, nums, args


def _is_container(value) -> bool:
    """A dict, or a list or tuple holding arrays or tensors (a list of numbers is one array)."""
    if isinstance(value, dict):
        return True
    return isinstance(value, (list, tuple)) and any(
        isinstance(v, (Tensor, np.ndarray, list, tuple, dict)) for v in value) and \
        not _rectangular_numbers(value)


def _rectangular_numbers(value) -> bool:
    try:
        arr = np.asarray(value, dtype=np.float64)
    except (TypeError, ValueError):
        return False
    return arr.dtype == np.float64


def _sources(args, nums):
    """Per argument in ``nums``: its tensors (one, or a container's leaves)."""
    return [_nest.flatten(args[i]) if _is_nested(args[i]) else [args[i]] for i in nums]


def _is_nested(value) -> bool:
    return isinstance(value, (list, tuple, dict))


def _gradients(tp, y, args, nums, output_gradients=None):
    """The gradient for each argument in ``nums``, shaped as the argument (zeros where
    unconnected)."""
    groups = _sources(args, nums)
    flat = tp.gradient(y, [t for g in groups for t in g], output_gradients=output_gradients,
                       unconnected_gradients="zero")
    out, start = [], 0
    for i, g in zip(nums, groups):
        part = flat[start:start + len(g)]
        start += len(g)
        out.append(_nest.pack_sequence_as(args[i], part) if _is_nested(args[i]) else part[0])
    return out


def _output(y, what, scalar):
    if y is None:
        raise ValueError(f"{what}: Cannot differentiate a function that returns None; "
                         "did you forget to return a value from fn?")
    if not isinstance(y, Tensor):
        y = convert_to_tensor(y)
    if y._value.dtype.kind not in "fc":
        raise TypeError(f"{what}: f must return a floating tensor, got dtype {y.dtype.name}")
    if scalar and y.ndim != 0:
        raise ValueError(f"{what}: f must return a scalar, got shape {tuple(y.shape)}; use "
                         "tape.jacobian for non-scalar outputs (or reduce the output)")
    return y


def value_and_grad(f, argnums=0, argnum=None):
    """A function returning ``(f(*args), gradient of f w.r.t. args[argnums])``.

    ``f`` must return a scalar. With a tuple ``argnums`` the gradient is a tuple. Unconnected
    arguments get zeros. ``f`` may be plain NumPy code (NumPy calls on tensors are recorded); an
    argument that is a list, tuple or dict of arrays gets a gradient of the same structure, and
    ``argnum`` is autograd's name for ``argnums``.

    Examples
    --------
    >>> value, g = tape.value_and_grad(lambda x: x ** 3)(2.0)
    >>> float(value), float(g)
    (8.0, 12.0)
    """

    return _taped(f, argnums if argnum is None else argnum, "grad", scalar=True)


def _taped(f, argnums, what, scalar):
    """``f`` run on a tape: a function giving its output and the gradient (of the sum of the
    outputs, unless ``scalar`` asks for one output) with respect to the ``argnums`` arguments."""
    def wrapper(*args, **kwargs):
        single, nums, args = _prepare(args, argnums, what)
        with GradientTape() as tp:
            for group in _sources(args, nums):
                tp.watch(group)
            y = _output(f(*args, **kwargs), what, scalar)
        grads = _gradients(tp, y, args, nums)
        return y, grads[0] if single else tuple(grads)
    return wrapper


def elementwise_grad(f, argnums=0, argnum=None):
    """The gradient of the sum of ``f``'s outputs, as autograd's ``elementwise_grad``: for an
    ``f`` that acts elementwise, each output's derivative in its input's place.

    Examples
    --------
    >>> tape.elementwise_grad(tape.sin)(tape.constant([0.0, 3.141592653589793])).numpy()
    array([ 1., -1.])
    """
    taped = _taped(f, argnums if argnum is None else argnum, "elementwise_grad", scalar=False)

    def wrapper(*args, **kwargs):
        return taped(*args, **kwargs)[1]
    return wrapper


def grad(f, argnums=0, argnum=None):
    """The gradient function of a scalar function ``f``: ``grad(f)(x)`` = df/dx.

    Examples
    --------
    >>> tape.grad(tape.sin)(0.0)
    tape.Tensor(1.0, shape=(), dtype=float64)
    >>> tape.grad(tape.grad(lambda x: x ** 3))(2.0)       # transforms nest
    tape.Tensor(12.0, shape=(), dtype=float64)
    """
    vg = value_and_grad(f, argnums if argnum is None else argnum)
    return lambda *args, **kwargs: vg(*args, **kwargs)[1]


def jacobian(f, argnums=0, mode="auto"):
    """The Jacobian function of ``f``: shape ``f(x).shape + x.shape``.

    Vectorized either way: reverse mode pushes one batch of cotangents (one per output) through
    one backward sweep; forward mode (``mode="forward"``, or ``"auto"`` when there are more outputs
    than inputs) transposes that linear sweep, so it carries one batch of tangents (one per
    input) instead. Complex values always take reverse mode: row i is the gradient of output i in
    TensorFlow's convention (``conj(dy_i/dx_j)`` for holomorphic f), as ``GradientTape.jacobian``.

    Examples
    --------
    >>> tape.jacobian(lambda x: x * x)(tape.constant([1.0, 2.0])).numpy()
    array([[2., 0.],
           [0., 4.]])
    """
    if mode not in ("auto", "forward", "reverse"):
        raise ValueError(f"jacobian: mode must be 'auto', 'forward' or 'reverse', got {mode!r}")

    def wrapper(*args, **kwargs):
        single, nums, args = _prepare(args, argnums, "jacobian")
        xs = [args[i] for i in nums]
        with GradientTape() as tp:
            for x in xs:
                tp.watch(x)
            y = _output(f(*args, **kwargs), "jacobian", False)
        n_in = sum(int(x._value.size) for x in xs)
        forward = mode == "forward" or (mode == "auto" and y._value.size > n_in)
        if forward and (y._value.dtype.kind == "c" or any(x._value.dtype.kind == "c" for x in xs)):
            # the transposed sweep gives dy/dx along the real axis (J itself for holomorphic f),
            # not TensorFlow's rows (the gradient of each output, conj(J)): reverse mode it is
            forward = False
        jac = _forward_jacobian(tp, y, xs) if forward else \
            tp.jacobian(y, xs, unconnected_gradients="zero")
        return jac[0] if single else tuple(jac)
    return wrapper


def _forward_jacobian(tp, y, xs):
    """Columns of J at once: J^T u is linear in u, so d<J^T u, e_i>/du = J e_i for every i."""
    u = _wrap(np.zeros(y._value.shape, y._value.dtype)[()])
    with GradientTape() as outer:
        outer.watch(u)
        vjps = tp.gradient(y, xs, output_gradients=u, unconnected_gradients="zero")
        flat = concat([reshape(v, (-1,)) for v in vjps], 0)
    columns = outer.jacobian(flat, u, unconnected_gradients="zero")      # (n_in,) + y.shape
    out, start = [], 0
    for x in xs:
        n = int(x._value.size)
        block = reshape(columns[start:start + n], (n, -1))                # (n, n_out)
        out.append(reshape(transpose(block), tuple(y.shape) + tuple(x.shape)))
        start += n
    return out


def hessian(f, argnums=0):
    """The Hessian function of a scalar ``f``: shape ``x.shape + x.shape``, exactly symmetric
    for real ``x`` (for complex ``x``: the Jacobian of the gradient, as computed).

    Reverse-over-reverse in one vectorized sweep: the Jacobian of the gradient, with the backward
    pass recorded by an outer tape. With a tuple ``argnums``, a nested tuple of blocks
    ``H[i][j] = d2f / dx_i dx_j``.

    Examples
    --------
    >>> tape.hessian(lambda x: tape.reduce_sum(x ** 3))(tape.constant([1.0, 2.0])).numpy()
    array([[ 6.,  0.],
           [ 0., 12.]])
    """

    def wrapper(*args, **kwargs):
        single, nums, args = _prepare(args, argnums, "hessian")
        xs = [args[i] for i in nums]
        with GradientTape(persistent=len(xs) > 1) as outer:
            for x in xs:
                outer.watch(x)
            with GradientTape() as inner:
                for x in xs:
                    inner.watch(x)
                y = _output(f(*args, **kwargs), "hessian", True)
            grads = inner.gradient(y, xs, unconnected_gradients="zero")
        blocks = [outer.jacobian(g, xs, unconnected_gradients="zero") for g in grads]
        if single:
            x = xs[0]
            n = int(x._value.size)
            square = reshape(blocks[0][0], (n, n))
            if x._value.dtype.kind == "c":
                # under TF's convention the complex "Hessian" (Jacobian of the conjugated
                # gradient) need not be symmetric: returned as computed
                return reshape(square, tuple(x.shape) * 2)
            # Mixed partials agree to rounding; averaging makes H exactly symmetric.
            return reshape((square + transpose(square)) * 0.5, tuple(x.shape) * 2)
        return tuple(tuple(row) for row in blocks)
    return wrapper


def hvp(f, x, v):
    """Hessian-vector product ``H(x) @ v`` of a scalar ``f``, without forming the Hessian.

    Forward-over-reverse: the gradient is computed inside a ForwardAccumulator whose tangent is
    ``v``, so the cost is a small multiple of one gradient.

    Examples
    --------
    >>> tape.hvp(lambda x: tape.reduce_sum(x ** 3), [1.0, 2.0], [1.0, 0.0])
    tape.Tensor([6. 0.], shape=(2,), dtype=float64)
    """
    from .forward import ForwardAccumulator

    x = differentiable_input(x, "hvp: x")
    v = v if isinstance(v, Tensor) else _wrap(np.asarray(v, dtype=x._value.dtype)[()])
    if tuple(v.shape) != tuple(x.shape):
        raise ValueError(f"hvp: v has shape {tuple(v.shape)} but x has shape {tuple(x.shape)}; "
                         "they must match")
    with ForwardAccumulator(x, v) as acc:
        with GradientTape() as tp:
            tp.watch(x)
            y = _output(f(x), "hvp", True)
        g = tp.gradient(y, x, unconnected_gradients="zero")
    return acc.jvp(g, unconnected_gradients="zero")


def derivative(f, x, order=1, *, return_error=False):
    """The ``order``-th derivative of a scalar function of one variable, by Taylor mode.

    ``x`` may be an array of points: ``f`` is then applied to all of them at once and must act
    elementwise; the result has ``x``'s shape. Cost grows like ``order**2`` flops per op in
    ``order`` NumPy calls (order 20 costs about what a gradient does).

    With ``return_error=True`` the result is ``(derivative, error)``: ``error`` (a float64
    tensor of the same shape) estimates each derivative's absolute rounding error, from two
    replays of the Taylor pass with every op's coefficients perturbed (about 3x the time).
    High orders through quotients, logarithms and roots can lose every digit (sin(x)/x at
    order 20); ``tape.engine.taylor.inaccurate(value, error)`` is True where the estimated
    relative error is above 1e-8 and ``correct_digits(value, error)`` gives the digits to trust
    (docs/higher.md).

    Examples
    --------
    >>> float(tape.derivative(tape.sin, 0.0, order=3))
    -1.0
    >>> tape.derivative(lambda x: x ** 4, [1.0, 2.0], order=2)
    tape.Tensor([12. 48.], shape=(2,), dtype=float64)
    >>> value, error = tape.derivative(lambda x: tape.sin(x) / x, 1.0, order=20,
    ...                                return_error=True)
    >>> bool(error > 1e-8 * abs(value))              # rounding ate the digits: say so
    True
    """
    from .taylor import taylor_coefficients

    if isinstance(order, bool) or not isinstance(order, (int, np.integer)):
        raise TypeError(f"derivative: order must be a non-negative integer, got {order!r}")
    if order < 0:
        raise ValueError(f"derivative: order must be a non-negative integer, got {order}")
    xt = differentiable_input(x, "derivative: x")
    points = xt._value

    def checked(t):
        y = _output(f(t), "derivative", False)
        if y.ndim != 0 and tuple(y.shape) != tuple(t.shape):
            raise ValueError(f"derivative: f must return a scalar (one value per point of x, shape "
                             f"{tuple(t.shape)}), got shape {tuple(y.shape)}; use tape.jacobian "
                             "for vector-valued functions")
        return y
    got = taylor_coefficients(checked, points, int(order), return_error=return_error)
    coeffs, errors = got if return_error else (got, None)
    if coeffs.ndim == 1 and np.ndim(points) > 0 and np.size(points) > 1 and coeffs[1:].any():
        raise ValueError("derivative: f returned one scalar for several points of x, combining "
                         "them; f must act elementwise (one value per point)")
    scale = float(math.factorial(order))
    value = _pointwise(coeffs[order] * scale, points, coeffs.dtype)
    if not return_error:
        return value
    # the scaling by order! is one more rounding
    top = np.asarray(errors[order] * scale + np.abs(coeffs[order] * scale) * 2.0 ** -53)
    from .taylor import inaccurate
    if (order >= 2 and np.isrealobj(coeffs) and np.isrealobj(points)
            and inaccurate(coeffs[order] * scale, top).any()):
        # Taylor mode lost digits: Cauchy's integral of f, where f is holomorphic, may not
        from .cauchy import improve
        coeffs, errors = improve(checked, points, order, coeffs, errors)
        value = _pointwise(coeffs[order] * scale, points, coeffs.dtype)
        top = np.asarray(errors[order] * scale + np.abs(coeffs[order] * scale) * 2.0 ** -53)
    return value, _pointwise(top, points, np.float64)


def _pointwise(value, points, dtype):
    if np.shape(value) != np.shape(points):
        value = np.broadcast_to(value, np.shape(points)).astype(dtype)
    return _wrap(value[()] if value.ndim == 0 else value)


def pointwise_partials(f, args, wrt, order=1):
    """The value of ``f(*args)`` and its distinct partial derivatives of order 1 to ``order``
    at every point, as NumPy arrays.

    ``args`` are floating arrays (or tensors) whose first axis runs over points, and ``f`` must
    treat points independently (row ``i`` of its result depends on row ``i`` of its arguments
    only): the partials of the *sum* over points are then every point's own partials, so one
    backward sweep per partial serves all the points. ``wrt`` lists the components to
    differentiate by, as ``(argument position, column)`` pairs: column None for a whole
    argument of shape ``(N,)``, an int for one column of an ``(N, k)`` argument.

    Returns ``levels``: ``levels[0]`` is ``{(): value}`` (order 0: only that); ``levels[k]`` maps each sorted tuple of
    ``k`` positions in ``wrt`` (a multiset: ``(0, 0, 1)`` is d^3/dc0^2 dc1) to that partial,
    zeros where the value does not depend on the component. ``order`` persistent tapes are
    nested: the innermost differentiates the value, each outer one the partials of the tape
    inside it.

    Examples
    --------
    >>> levels = tape.pointwise_partials(lambda x, y: x * x * y, [[1.0, 2.0], [3.0, 5.0]],
    ...                                  [(0, None), (1, None)], order=2)
    >>> levels[1][(0,)], levels[2][(0, 1)]
    (array([ 6., 20.]), array([2., 4.]))
    """
    if isinstance(order, bool) or not isinstance(order, (int, np.integer)) or order < 0:
        raise ValueError(f"pointwise_partials: order must be a non-negative integer, got "
                         f"{order!r}")
    positions = list(dict.fromkeys(arg for arg, _ in wrt))     # the arguments watched, in order
    slot = {arg: k for k, arg in enumerate(positions)}
    xs = [differentiable_input(a, f"pointwise_partials: argument {i}") for i, a in enumerate(args)]
    # one argument (the common case) is watched and differentiated as the tensor itself: no
    # list to flatten and pack at every sweep
    one = len(positions) == 1
    watched = xs[positions[0]] if one else [xs[i] for i in positions]
    with nested_tapes(watched, int(order), persistent=True) as innermost_first:
        levels = [{(): f(*xs)}]
        for t in innermost_first:
            following = {}
            for key, z in levels[-1].items():
                grads = t.gradient(z, watched, unconnected_gradients="zero")
                if one:
                    grads = [grads]
                for k in range(key[-1] if key else 0, len(wrt)):
                    arg, column = wrt[k]
                    g = grads[slot[arg]]
                    following[key + (k,)] = g if column is None else g[:, column]
            levels.append(following)
    return [{key: np.asarray(v._value if isinstance(v, Tensor) else v)
             for key, v in level.items()} for level in levels]
