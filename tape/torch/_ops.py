"""The torch functions and Tensor methods, each on one engine primitive (``_engine.PRIMITIVES``)."""
from __future__ import annotations

import builtins

import numpy as np

from . import _dtypes
from . import _engine as E
from ._creation import _view as _new_view
from ._graph import _next_seq
from ._tensor import (_NO_ATTRS, VIEW_KINDS, P, Tensor, _apply, _binary, _input, _new, _unary,
                      _pow_scalar, backward_name, index_put, make_view)

# -- elementwise ------------------------------------------------------------------------------
#: torch name -> (engine op name, backward node name)
UNARY = {
    "sin": ("Sin", "SinBackward0"), "cos": ("Cos", "CosBackward0"), "tan": ("Tan", "TanBackward0"),
    "asin": ("Asin", "AsinBackward0"), "acos": ("Acos", "AcosBackward0"),
    "atan": ("Atan", "AtanBackward0"), "sinh": ("Sinh", "SinhBackward0"),
    "cosh": ("Cosh", "CoshBackward0"), "tanh": ("Tanh", "TanhBackward0"),
    "asinh": ("Asinh", "AsinhBackward0"), "acosh": ("Acosh", "AcoshBackward0"),
    "atanh": ("Atanh", "AtanhBackward0"), "exp": ("Exp", "ExpBackward0"),
    "expm1": ("Expm1", "Expm1Backward0"), "log": ("Log", "LogBackward0"),
    "log1p": ("Log1p", "Log1pBackward0"), "sqrt": ("Sqrt", "SqrtBackward0"),
    "rsqrt": ("Rsqrt", "RsqrtBackward0"), "reciprocal": ("Reciprocal", "ReciprocalBackward0"),
    "square": ("Square", "PowBackward0"), "abs": ("Abs", "AbsBackward0"),
    "neg": ("Neg", "NegBackward0"), "sigmoid": ("Sigmoid", "SigmoidBackward0"),
    "relu": ("Relu", "ReluBackward0"), "erf": ("Erf", "ErfBackward0"),
    "softplus": ("Softplus", "SoftplusBackward0"),
    "sign": ("Sign", "SignBackward0"), "floor": ("Floor", "FloorBackward0"),
    "ceil": ("Ceil", "CeilBackward0"), "round": ("Round", "RoundBackward0"),
}
BINARY = {
    "add": ("AddV2", "AddBackward0"), "sub": ("Sub", "SubBackward0"),
    "mul": ("Mul", "MulBackward0"), "div": ("RealDiv", "DivBackward0"),
    "maximum": ("Maximum", "MaximumBackward0"), "minimum": ("Minimum", "MinimumBackward0"),
    "atan2": ("Atan2", "Atan2Backward0"), "remainder": ("FloorMod", "RemainderBackward0"),
}

_UNARY_FNS = {}
for _name, (_op, _node) in UNARY.items():
    _UNARY_FNS[_name] = _unary(P[_op], _node)
_BINARY_FNS = {name: _binary(P[op], node)[0] for name, (op, node) in BINARY.items()}


def _as_tensor_input(x):
    return x if isinstance(x, E.EngineTensor) else _new(E.to_array(x))


def _unary_function(name):
    f = _UNARY_FNS[name]

    def function(input):
        return f(input)
    function.__name__ = name
    function.__doc__ = f"Elementwise {name}, on the engine's {UNARY[name][0]} primitive."
    return function


def _binary_function(name):
    f = _BINARY_FNS[name]

    def function(input, other):
        if not isinstance(input, Tensor):
            input = _as_tensor_input(input) if not isinstance(input, E.EngineTensor) else _new_view(input)
        return f(input, other)
    function.__name__ = name
    function.__doc__ = f"Elementwise {name}, on the engine's {BINARY[name][0]} primitive."
    return function



FUNCTIONS = {name: _unary_function(name) for name in UNARY}
FUNCTIONS.update({name: _binary_function(name) for name in BINARY})
FUNCTIONS["negative"] = FUNCTIONS["neg"]
FUNCTIONS["absolute"] = FUNCTIONS["abs"]
FUNCTIONS["multiply"] = FUNCTIONS["mul"]
FUNCTIONS["subtract"] = FUNCTIONS["sub"]
FUNCTIONS["divide"] = FUNCTIONS["div"]
FUNCTIONS["true_divide"] = FUNCTIONS["div"]
FUNCTIONS["arctan2"] = FUNCTIONS["atan2"]

for _name, _f in _UNARY_FNS.items():
    setattr(Tensor, _name, _f)
for _name, _f in _BINARY_FNS.items():
    setattr(Tensor, _name, _f)


def _inplace_unary(name, f):
    def method(self):
        start = _next_seq()
        return self._inplace(f(self), start)
    method.__name__ = name + "_"
    method.__doc__ = f"``{name}`` in place."
    return method


for _name, _f in _UNARY_FNS.items():     # exp_, sin_, relu_ ...
    setattr(Tensor, _name + "_", _inplace_unary(_name, _f))
Tensor.__neg__ = _UNARY_FNS["neg"]
Tensor.__abs__ = _UNARY_FNS["abs"]
Tensor.negative = Tensor.neg
Tensor.multiply = Tensor.mul
Tensor.subtract = Tensor.sub
Tensor.divide = Tensor.div


def _pos(self):
    return self


Tensor.__pos__ = _pos


_add_function, _sub_function = FUNCTIONS["add"], FUNCTIONS["sub"]
_atan2_function = FUNCTIONS["atan2"]


def atan2(input, other):
    """``atan2(input, other)``; where both are 0 somewhere, on PyTorch's rule (gradient 0 there;
    the engine's rule, TensorFlow's, gives nan)."""
    y = input if isinstance(input, Tensor) else _as_tensor_input(input)
    x = _input(other, y)
    if (y._requires_grad or getattr(x, "_requires_grad", False)) and not E.recording_tapes \
            and not E.active_accumulators:
        if np.any((np.asarray(y._value) == 0) & (np.asarray(x._value) == 0)):
            return _apply(E.TORCH_ATAN2, (y, x), _NO_ATTRS, "Atan2Backward0")
    return _atan2_function(y, x)


FUNCTIONS["atan2"] = FUNCTIONS["arctan2"] = Tensor.atan2 = Tensor.arctan2 = atan2


def _elementwise_extreme(name, op, fallback, node):
    def extreme(input, other):
        a = input if isinstance(input, Tensor) else _as_tensor_input(input)
        b = _input(other, a)
        if (a._requires_grad or getattr(b, "_requires_grad", False)) and not E.recording_tapes \
                and not E.active_accumulators \
                and np.any(np.asarray(a._value) == np.asarray(b._value)):
            return _apply(op, (a, b), _NO_ATTRS, node)     # a tie: PyTorch splits the gradient
        return fallback(a, b)
    extreme.__name__ = name
    extreme.__doc__ = (f"Elementwise {name}; where the inputs are equal each gets half the "
                       f"gradient, as in PyTorch.")
    return extreme


maximum = _elementwise_extreme("maximum", E.TORCH_MAXIMUM, FUNCTIONS["maximum"], "MaximumBackward0")
minimum = _elementwise_extreme("minimum", E.TORCH_MINIMUM, FUNCTIONS["minimum"], "MinimumBackward0")
FUNCTIONS["maximum"], FUNCTIONS["minimum"] = maximum, minimum
Tensor.maximum, Tensor.minimum = maximum, minimum


def add(input, other, *, alpha=1):
    return _add_function(input, other if alpha == 1 else other * alpha)


def sub(input, other, *, alpha=1):
    return _sub_function(input, other if alpha == 1 else other * alpha)


def _add_method(self, other, *, alpha=1):
    return self + (other if alpha == 1 else other * alpha)


def _sub_method(self, other, *, alpha=1):
    return self - (other if alpha == 1 else other * alpha)


Tensor.add = _add_method
Tensor.sub = Tensor.subtract = _sub_method
FUNCTIONS["add"], FUNCTIONS["sub"], FUNCTIONS["subtract"] = add, sub, sub
_POW = Tensor.__pow__
_POW_NUMBER = _pow_scalar


def pow(input, exponent):  # noqa: A001
    """``input ** exponent`` (either may be a number)."""
    if not isinstance(input, Tensor):
        input = (_new(E.to_array(input)) if not isinstance(input, E.EngineTensor)
                 else _new_view(input))
    return _pow_torch(input, exponent)


def _pow_torch(base, exponent):
    """``base ** exponent``; with an exponent that requires grad and a base < 0 (or 0 with a
    negative exponent) somewhere, on PyTorch's rule (the engine's is TensorFlow's)."""
    if not isinstance(exponent, Tensor):
        return _POW_NUMBER(base, exponent)
    if exponent._requires_grad and not E.recording_tapes and not E.active_accumulators:
        xv, yv = np.asarray(base._value), np.asarray(exponent._value)
        if np.any((xv < 0) | ((xv == 0) & (yv < 0))) and xv.dtype.kind == "f":
            with np.errstate(all="ignore"):
                return _apply(E.TORCH_POW, (base, exponent), _NO_ATTRS, "PowBackward1")
    return _POW(base, exponent)


_RPOW = Tensor.__rpow__


def _rpow(self, other):
    """``number ** tensor``."""
    if self._requires_grad and type(other) in (float, int) and (other < 0 or (
            other == 0 and np.any(np.asarray(self._value) < 0))):
        return _pow_torch(_new(np.asarray(other, self._value.dtype)[()]), self)
    return _RPOW(self, other)


Tensor.pow = pow
Tensor.__pow__ = _pow_torch
Tensor.__rpow__ = _rpow
FUNCTIONS["pow"] = pow


_COMPARE = {"lt": np.less, "le": np.less_equal, "gt": np.greater, "ge": np.greater_equal,
            "eq": np.equal, "ne": np.not_equal}


def _comparison(ufunc):
    def compare(self, other):
        other = _input(other, self)
        return _new(np.asarray(ufunc(self._value, other._value))[()])
    return compare


for _name, _uf in _COMPARE.items():
    setattr(Tensor, f"__{_name}__", _comparison(_uf))
    setattr(Tensor, _name, _comparison(_uf))
    FUNCTIONS[_name] = _comparison(_uf)
FUNCTIONS["equal"] = lambda a, b: bool(np.array_equal(_input(a)._value, _input(b)._value))
Tensor.equal = FUNCTIONS["equal"]
Tensor.__hash__ = object.__hash__


def isnan(input):
    return _new(np.isnan(_input(input)._value))


def isfinite(input):
    return _new(np.isfinite(_input(input)._value))


def allclose(input, other, rtol=1e-05, atol=1e-08, equal_nan=False):
    return bool(np.allclose(_input(input)._value, _input(other)._value, rtol, atol, equal_nan))


Tensor.isnan, Tensor.isfinite, Tensor.allclose = isnan, isfinite, allclose


# -- reductions -------------------------------------------------------------------------------
def _torch_input(x):
    return x if isinstance(x, E.EngineTensor) else _new(E.to_array(x))


def _reduce(opname, what):
    op = P[opname]

    def reduce(input, dim=None, keepdim=False, *, dtype=None):
        x = _torch_input(input)
        if dtype is not None:
            x = x.type(dtype) if isinstance(x, Tensor) else _new_view(x).type(dtype)
        axes = E.reduce_axes(dim, np.ndim(x._value), what)
        attrs = {"axis": axes, "keepdims": bool(keepdim)}
        return _apply(op, (x,), attrs, backward_name(op, (x,), attrs if dim is not None or keepdim
                                                     else {"axis": None, "keepdims": False}))
    reduce.__name__ = what
    reduce.__doc__ = f"``{what}`` over ``dim`` (all elements when None), on the engine's {opname}."
    return reduce


sum = _reduce("Sum", "sum")  # noqa: A001
mean = _reduce("Mean", "mean")
prod = _reduce("Prod", "prod")
logsumexp = _reduce("LogSumExp", "logsumexp")
_amax = _reduce("Max", "amax")
_amin = _reduce("Min", "amin")


def amax(input, dim=None, keepdim=False):
    return _amax(input, dim, keepdim)


def amin(input, dim=None, keepdim=False):
    return _amin(input, dim, keepdim)


def _extreme(name, pairwise, reduce, arg):
    def extreme(input, dim=None, keepdim=False):
        if isinstance(dim, (Tensor, E.EngineTensor)):       # torch.max(a, b): elementwise
            return FUNCTIONS[pairwise](input, dim)
        if dim is None:
            return reduce(input)
        # the values are read at the returned indices, so a tie sends the whole gradient to the
        # index returned, as PyTorch's max(dim) / min(dim) do (amax / amin split it evenly)
        x = _torch_input(input)
        return _selected(x, arg(x, dim, False), dim, keepdim, f"{name.capitalize()}Backward0")
    extreme.__name__ = name
    extreme.__doc__ = (f"The {name} element, or with ``dim`` the pair (values, indices) as PyTorch "
                       f"returns it, or with a tensor the elementwise {pairwise}.")
    return extreme


def _selected(x, indices, dim, keepdim, backward):
    """``(values, indices)``: the values of ``x`` at ``indices`` along ``dim``, read there (a
    tie sends the whole gradient to the index returned)."""
    i = np.asarray(indices._value)
    if np.ndim(x._value) == 0:
        return _ValuesIndices(_apply(P["Identity"], (x,), _NO_ATTRS, backward), indices)
    d = dim % np.ndim(x._value)
    grid = list(np.indices(i.shape, sparse=True))
    key = tuple(grid[:d] + [i] + grid[d:])
    values = _apply(P["StridedSlice"], (x,), {"key": key}, backward)
    if keepdim:
        values = _apply(P["Reshape"], (values,), {"shape": np.shape(np.expand_dims(i, d))},
                        backward)
        indices = _new(np.expand_dims(i, d))
    return _ValuesIndices(values, indices)


def _median_of(v, skip_nan):
    """The lower median of the values ``v`` (PyTorch's: no average of the two middle ones);
    NaN if one is NaN (``median``) or if all are (``nanmedian``)."""
    v = np.ravel(v)
    nan = np.isnan(v)
    if skip_nan:
        v = v[~nan]
    elif nan.any():
        return v[np.argmax(nan)]
    if v.size == 0:
        return np.asarray(np.nan, dtype=np.result_type(v, np.float64)).astype(v.dtype)[()]
    return np.sort(v)[(v.size - 1) // 2]


def _median(name, skip_nan):
    def median(input, dim=None, keepdim=False):
        x = _torch_input(input)
        v = x._value
        if dim is None:
            m = _median_of(v, skip_nan)
            # every element equal to the median (every NaN when it is NaN) gets an even share
            # of the gradient, as PyTorch's median(); the value itself stays exactly m
            ties = (v == m) | (np.isnan(v) & np.isnan(m))
            shares = _new(np.asarray(ties / np.maximum(ties.sum(), 1), dtype=v.dtype))
            spread = (x * shares).sum()
            return _apply(P["AddV2"], (spread - spread.detach(), _new(np.asarray(m, v.dtype)[()])),
                          _NO_ATTRS, f"{name.capitalize()}Backward0")
        d = dim % (np.ndim(v) or 1)
        index = np.apply_along_axis(lambda row: _median_index(row, skip_nan), d, v) \
            if np.ndim(v) else np.int64(0)
        return _selected(x, _new(np.asarray(index, dtype=np.int64)[()]), dim, keepdim,
                         f"{name.capitalize()}Backward1")
    median.__name__ = name
    median.__doc__ = (f"The lower median of all elements (its gradient split evenly among the "
                      f"elements equal to it), or with ``dim`` the pair (values, indices)"
                      f"{', NaNs left out' if skip_nan else ''}.")
    return median


def _median_index(row, skip_nan):
    nan = np.isnan(row)
    if nan.any() and (not skip_nan or nan.all()):
        return int(np.argmax(nan))
    order = np.argsort(np.where(nan, np.inf, row), kind="stable")
    return int(order[(int((~nan).sum()) - 1) // 2])


class _ValuesIndices(tuple):
    """``(values, indices)`` with the names PyTorch gives them."""

    def __new__(cls, values, indices):
        return tuple.__new__(cls, (values, indices))

    @property
    def values(self):
        return self[0]

    @property
    def indices(self):
        return self[1]


def _arg_extreme(name, find):
    def arg(input, dim=None, keepdim=False):
        v = _torch_input(input)._value
        if dim is None or np.ndim(v) == 0:
            return _new(np.int64(find(v)))
        out = find(v, axis=dim)
        return _new(np.expand_dims(out, dim) if keepdim else np.asarray(out)[()])
    arg.__name__ = name
    arg.__doc__ = f"The index of the {name[3:]} element (of the flattened tensor when ``dim`` is None)."
    return arg


argmax = _arg_extreme("argmax", np.argmax)
argmin = _arg_extreme("argmin", np.argmin)
max = _extreme("max", "maximum", _amax, argmax)  # noqa: A001
min = _extreme("min", "minimum", _amin, argmin)  # noqa: A001

median = _median("median", False)
nanmedian = _median("nanmedian", True)

for _f in (sum, mean, prod, logsumexp, amax, amin, max, min, argmax, argmin, median, nanmedian):
    setattr(Tensor, _f.__name__, _f)
    FUNCTIONS[_f.__name__] = _f


def norm(input, p="fro", dim=None, keepdim=False, dtype=None):
    """The p-norm; its gradient at a zero vector is 0, as PyTorch's (not nan)."""
    x = _torch_input(input)
    if dtype is not None:
        x = x.type(dtype)
    if p is None or p == "fro":
        p = 2
    if p == float("inf"):
        return amax(abs(x), dim, keepdim)
    if p == float("-inf"):
        return amin(abs(x), dim, keepdim)
    if p == 1:
        return sum(abs(x), dim, keepdim)
    if p == 0:
        return sum((x != 0).type(x.dtype), dim, keepdim)
    s = sum(x * x, dim, keepdim) if p == 2 else sum(pow(abs(x), p), dim, keepdim)
    zero = np.asarray(s._value) == 0
    if not np.any(zero):
        return sqrt(s) if p == 2 else pow(s, 1.0 / p)
    # the root's slope is infinite at 0: take the root of 1 there and select 0 instead
    mask = _new(zero[()] if zero.ndim == 0 else zero)
    safe = _apply(P["SelectV2"], (mask, _new(np.ones((), s._value.dtype)[()]), s), _NO_ATTRS,
                  "WhereBackward0")
    root = sqrt(safe) if p == 2 else pow(safe, 1.0 / p)
    return _apply(P["SelectV2"], (mask, _new(np.zeros((), s._value.dtype)[()]), root), _NO_ATTRS,
                  "NormBackward1")


sqrt, abs = FUNCTIONS["sqrt"], FUNCTIONS["abs"]  # noqa: A001
Tensor.norm = norm
FUNCTIONS["norm"] = norm


def var(input, dim=None, unbiased=True, keepdim=False, *, correction=None):
    x = _torch_input(input)
    n = x._value.size if dim is None else int(np.prod([np.shape(x._value)[d] for d in
                                                       np.atleast_1d(dim)]))
    ddof = (1 if unbiased else 0) if correction is None else correction
    d = x - mean(x, dim, True)
    return sum(d * d, dim, keepdim) / (n - ddof)


def std(input, dim=None, unbiased=True, keepdim=False, *, correction=None):
    return sqrt(var(input, dim, unbiased, keepdim, correction=correction))


Tensor.var, Tensor.std = var, std
FUNCTIONS["var"], FUNCTIONS["std"] = var, std


# -- linear algebra ---------------------------------------------------------------------------
def matmul(input, other):
    """Matrix product (``@``), batch axes broadcast; 1-D operands as PyTorch treats them."""
    a, b = _torch_input(input), _torch_input(other)
    if np.ndim(a._value) == 0 or np.ndim(b._value) == 0:
        raise RuntimeError("both arguments to matmul need to be at least 1D, but they are "
                           f"{np.ndim(a._value)}D and {np.ndim(b._value)}D")
    op = P["MatMul"]
    name = backward_name(op, (a, b), _NO_ATTRS)
    sa, sb = np.shape(a._value), np.shape(b._value)
    if sa[-1] != sb[0 if len(sb) == 1 else -2]:
        raise RuntimeError(f"mat1 and mat2 shapes cannot be multiplied "
                           f"({'x'.join(map(str, sa))} and {'x'.join(map(str, sb))})")
    if len(sa) > 1 and len(sb) > 1:
        return _apply(op, (a, b), _NO_ATTRS, name)
    # the engine's MatMul rule works on matrices: 1-D operands become a row / a column, and the
    # result's reshape carries PyTorch's name for the product (DotBackward0, MvBackward0 ...)
    a2 = _apply(P["Reshape"], (a,), {"shape": (1,) + sa}, "UnsqueezeBackward0") if len(sa) == 1 else a
    b2 = _apply(P["Reshape"], (b,), {"shape": sb + (1,)}, "UnsqueezeBackward0") if len(sb) == 1 else b
    out = _apply(op, (a2, b2), _NO_ATTRS, "MmBackward0")
    shape = np.shape(out._value)
    shape = shape[:-2] + (() if len(sa) == 1 else shape[-2:-1]) + (() if len(sb) == 1 else shape[-1:])
    return _apply(P["Reshape"], (out,), {"shape": shape}, name)


def mm(input, mat2):
    if np.ndim(_torch_input(input)._value) != 2 or np.ndim(_torch_input(mat2)._value) != 2:
        raise RuntimeError("mm: both arguments must be 2-D matrices")
    return matmul(input, mat2)


def dot(input, other):
    if np.ndim(_torch_input(input)._value) != 1 or np.ndim(_torch_input(other)._value) != 1:
        raise RuntimeError("1D tensors expected, but got other shapes")
    return matmul(input, other)


def mv(input, vec):
    return matmul(input, vec)


def bmm(input, mat2):
    return matmul(input, mat2)


def outer(input, vec2):
    return reshape(input, (-1, 1)) * reshape(vec2, (1, -1))


Tensor.matmul, Tensor.mm, Tensor.dot, Tensor.mv, Tensor.bmm, Tensor.outer = matmul, mm, dot, mv, bmm, outer
Tensor.__matmul__ = matmul
Tensor.__rmatmul__ = lambda self, other: matmul(other, self)
for _f in (matmul, mm, dot, mv, bmm, outer):
    FUNCTIONS[_f.__name__] = _f


# -- shape --------------------------------------------------------------------------------------
def _shape_args(shape):
    if len(shape) == 1 and isinstance(shape[0], (tuple, list, _dtypes.Size)):
        shape = tuple(shape[0])
    return tuple(int(s) for s in shape)


# Views (reshapes, transposes, basic indexing, as in PyTorch) share their input's values: an
# in-place op on either shows in the other (``make_view``).
def _reshaped(x, shape, name):
    out = _apply(P["Reshape"], (x,), {"shape": shape}, name)
    return make_view(x, out, "reshape", shape) if isinstance(x, Tensor) else out


def _permuted(x, axes, name):
    out = _apply(P["Transpose"], (x,), {"axes": axes}, name)
    return make_view(x, out, "permute", axes) if isinstance(x, Tensor) else out


VIEW_KINDS["reshape"] = (
    lambda parent, shape: _apply(P["Reshape"], (parent,), {"shape": shape}, "ViewBackward0"),
    lambda parent, view, shape: _apply(P["Reshape"], (view,), {"shape": np.shape(parent._value)},
                                       "ViewBackward0"))
VIEW_KINDS["permute"] = (
    lambda parent, axes: _apply(P["Transpose"], (parent,), {"axes": axes}, "PermuteBackward0"),
    lambda parent, view, axes: _apply(P["Transpose"], (view,),
                                      {"axes": tuple(int(a) for a in np.argsort(axes))},
                                      "PermuteBackward0"))


def reshape(input, shape):
    x = _torch_input(input)
    shape = _shape_args((shape,) if not isinstance(shape, (tuple, list)) else (tuple(shape),))
    return _reshaped(x, shape, "ViewBackward0")


def _view(self, *shape):
    return _reshaped(self, _shape_args(shape), "ViewBackward0")


def _reshape_method(self, *shape):
    return _reshaped(self, _shape_args(shape), "ReshapeAliasBackward0")


def view_as(self, other):
    return _view(self, tuple(np.shape(other._value)))


def flatten(input, start_dim=0, end_dim=-1):
    x = _torch_input(input)
    shape = np.shape(x._value)
    if not shape:
        return reshape(x, (1,))
    nd = len(shape)
    s, e = start_dim % nd, end_dim % nd
    new = shape[:s] + (int(np.prod(shape[s:e + 1])),) + shape[e + 1:]
    return reshape(x, new)


def permute(input, *dims):
    x = _torch_input(input)
    dims = _shape_args(dims)
    nd = np.ndim(x._value)
    return _permuted(x, tuple(d % nd for d in dims), "PermuteBackward0")


def transpose(input, dim0, dim1):
    x = _torch_input(input)
    nd = np.ndim(x._value)
    span = builtins.max(nd, 1)      # a 0-d tensor takes dims 0 and -1, as PyTorch's
    for d in (dim0, dim1):
        if not -span <= d < span:
            raise IndexError(f"Dimension out of range (expected to be in range of "
                             f"[{-span}, {span - 1}], but got {d})")
    if nd == 0:
        return _reshaped(x, (), "TransposeBackward0")
    axes = list(range(nd))
    axes[dim0 % nd], axes[dim1 % nd] = axes[dim1 % nd], axes[dim0 % nd]
    return _permuted(x, tuple(axes), "TransposeBackward0")


def t(input):
    x = _torch_input(input)
    if np.ndim(x._value) < 2:
        return x
    if np.ndim(x._value) > 2:
        raise RuntimeError(f"t() expects a tensor with <= 2 dimensions, but self is "
                           f"{np.ndim(x._value)}D")
    return _permuted(x, (1, 0), "TBackward0")


def unsqueeze(input, dim):
    x = _torch_input(input)
    shape = np.shape(x._value)
    dim = dim % (len(shape) + 1)
    return _reshaped(x, shape[:dim] + (1,) + shape[dim:], "UnsqueezeBackward0")


def squeeze(input, dim=None):
    x = _torch_input(input)
    shape = np.shape(x._value)
    if dim is None:
        new = tuple(s for s in shape if s != 1)
    else:
        dims = {d % builtins.max(len(shape), 1) for d in np.atleast_1d(dim)}
        new = tuple(s for i, s in enumerate(shape) if not (i in dims and s == 1))
    return _reshaped(x, new, "SqueezeBackward0")


def expand(self, *sizes):
    sizes = _shape_args(sizes)
    shape = np.shape(self._value)
    full = tuple(s if n == -1 else n for n, s in zip(sizes, (None,) * (len(sizes) - len(shape)) + shape))
    return _apply(P["BroadcastTo"], (self,), {"shape": full}, "ExpandBackward0")


def broadcast_to(input, shape):
    return expand(_torch_input(input), *tuple(shape))


Tensor.view = _view
Tensor.reshape = _reshape_method
Tensor.view_as = view_as
Tensor.flatten = flatten
Tensor.permute = permute
Tensor.transpose = transpose
Tensor.t = t
Tensor.T = property(lambda self: permute(self, *reversed(range(np.ndim(self._value)))))
Tensor.mT = property(lambda self: transpose(self, -2, -1))
Tensor.unsqueeze = unsqueeze
Tensor.squeeze = squeeze
Tensor.expand = expand
Tensor.expand_as = lambda self, other: expand(self, *np.shape(other._value))
for _f in (reshape, flatten, permute, transpose, t, unsqueeze, squeeze, broadcast_to):
    FUNCTIONS[_f.__name__] = _f


def _index(x, key):
    op = P["StridedSlice"]
    return _apply(op, (x,), {"key": key}, backward_name(op, (x,), {"key": key}))


def _is_basic(key):
    """Whether indexing with ``key`` gives a view in PyTorch (ints, slices, None, ...)."""
    for k in key:
        if not (k is None or k is Ellipsis or isinstance(k, slice)
                or (isinstance(k, (int, np.integer)) and not isinstance(k, (bool, np.bool_)))):
            return False
    return True


def _getitem(self, key):
    key = E.normalise_key(key)
    key = tuple(k._value if isinstance(k, E.EngineTensor) else k for k in key)
    out = _index(self, key)
    return make_view(self, out, "index", key) if _is_basic(key) else out


VIEW_KINDS["index"] = (_index, lambda parent, view, key: index_put(parent, key, view))


Tensor.__getitem__ = _getitem


def narrow(input, dim, start, length):
    """``length`` elements of ``dim`` from ``start``: a view (``x[..., start:start + length]``)."""
    x = _torch_input(input)
    d = dim % builtins.max(np.ndim(x._value), 1)
    return x[(slice(None),) * d + (slice(start, start + length),)]


Tensor.narrow = narrow
FUNCTIONS["narrow"] = narrow


def cat(tensors, dim=0):
    xs = tuple(_torch_input(x) for x in tensors)
    if not xs:
        raise RuntimeError("torch.cat(): expected a non-empty list of Tensors")
    nd = np.ndim(xs[0]._value)
    return _apply(P["ConcatV2"], xs, {"axis": dim % builtins.max(nd, 1)}, "CatBackward0")


def stack(tensors, dim=0):
    xs = [_torch_input(x) for x in tensors]
    if not xs:
        raise RuntimeError("stack expects a non-empty TensorList")
    return cat([unsqueeze(x, dim) for x in xs], dim % (np.ndim(xs[0]._value) + 1))


def unbind(input, dim=0):
    x = _torch_input(input)
    n = np.shape(x._value)[dim]
    lead = (slice(None),) * (dim % np.ndim(x._value))
    if not isinstance(x, Tensor):
        return tuple(x[lead + (i,)] for i in range(n))
    # views, as PyTorch's; like any function returning several views, not to be changed in place
    outs = []
    for i in range(n):
        key = lead + (i,)
        outs.append(make_view(x, _index(x, key), "index", key, _MULTI_VIEW.format(i)))
    return tuple(outs)


def _iter(self):
    if np.ndim(self._value) == 0:
        raise TypeError("iteration over a 0-d tensor")
    return iter(unbind(self, 0))


Tensor.__iter__ = _iter
_MULTI_VIEW = ("Output {} of Unbind is a view and is being modified inplace. This view is the "
               "output of a function that returns multiple views. Such functions do not allow the "
               "output views to be modified inplace. You should replace the inplace operation by "
               "an out-of-place one.")


def where(condition, input, other):
    c = _torch_input(condition)
    x = _torch_input(input)
    y = _input(other, x)
    return _apply(P["SelectV2"], (c, x, y), _NO_ATTRS, "WhereBackward0")


def clamp(input, min=None, max=None):  # noqa: A002
    x = _torch_input(input)
    if min is not None:
        x = _BINARY_FNS["maximum"](x, min)     # (the engine rule: a tie passes the gradient to x)
    if max is not None:
        x = _BINARY_FNS["minimum"](x, max)
    return x


def softmax(input, dim):
    x = _torch_input(input)
    return _apply(P["Softmax"], (x,), {"axis": dim}, "SoftmaxBackward0")


def log_softmax(input, dim):
    x = _torch_input(input)
    return _apply(P["LogSoftmax"], (x,), {"axis": dim}, "LogSoftmaxBackward0")


Tensor.where = lambda self, condition, other: where(condition, self, other)
Tensor.clamp = Tensor.clip = clamp
Tensor.softmax = softmax
Tensor.log_softmax = log_softmax
Tensor.unbind = unbind
for _f in (cat, stack, unbind, where, clamp, softmax, log_softmax):
    FUNCTIONS[_f.__name__] = _f
FUNCTIONS["concat"] = FUNCTIONS["concatenate"] = cat
FUNCTIONS["clip"] = clamp
