"""``tape.torch.Tensor`` and the application of an engine primitive in PyTorch's manner.

An op runs the primitive's NumPy forward (``op.fn``), then: if grad mode is on and an input
requires grad, it makes the output's ``grad_fn`` (see ``_graph``); if an engine tape or forward
accumulator is active, it offers the application to them as the engine's own ops do, so
GradientTape, ForwardAccumulator and the CLI can differentiate torch code too.
"""
from __future__ import annotations

import warnings
import weakref

import numpy as np

from . import _dtypes
from . import _engine as E
from ._format import tensor_repr
from ._graph import _SAVES_NOTHING, SAVES_RESULT, _grad_mode, _next_seq, changed_in_place, \
    describe, edge, node_class
from ._graph import leaf_acc as _leaf_acc
from ._names import backward_name  # noqa: F401  (re-exported for _ops)

_NUMPY = (np.ndarray, np.generic)
_SCALARS = (float, int, bool)
_NO_ATTRS: dict = {}
_ET = E.EngineTensor
_obj_new = object.__new__
_wrap = E.wrap
_scalar_like = E.scalar_like
_F64_CONSTANTS = E.f64_constants
_F64 = np.float64
_tapes = E.recording_tapes
_accumulators = E.active_accumulators
_record = E.record
_record_pair = E.record_pair
P = E.PRIMITIVES


class Tensor(E.EngineTensor):
    """A tensor with PyTorch's autograd attributes (``requires_grad``, ``grad``, ``grad_fn``).

    It is also an engine tensor: the engine's functions and tapes accept it.
    """

    __slots__ = ("_requires_grad", "_grad_fn", "_grad", "_acc", "_view", "_views", "_stamp",
                 "_inference")
    # _view: (parent, kind, arg, guard) on a tensor that shares its parent's values (detach(),
    # .data, basic indexing, view/reshape/transpose), guard the error an in-place op on it raises
    # with grad mode on (or None); _views: a root's weak list of its views; _stamp: the number
    # taken when its values last changed in place; _inference: made inside inference_mode. All
    # unset on most tensors (read with getattr).

    def __init__(self, data=(), dtype=None, requires_grad=False):
        self._value = _copy(E.to_array(data, _dtypes.to_numpy(dtype)))
        self._grad_fn = self._grad = self._acc = None
        self._requires_grad = False
        if _grad_mode.inference:
            self._inference = True
        if requires_grad:
            self.requires_grad_(True)

    # -- autograd attributes ----------------------------------------------------------------
    @property
    def requires_grad(self) -> bool:
        return self._requires_grad

    @requires_grad.setter
    def requires_grad(self, flag):
        self.requires_grad_(flag)

    def requires_grad_(self, requires_grad=True):
        flag = bool(requires_grad)
        if self._grad_fn is not None:
            if not flag:
                raise RuntimeError("you can only change requires_grad flags of leaf variables. If "
                                   "you want to use a computed variable in a subgraph that doesn't "
                                   "require differentiation use var_no_grad = var.detach().")
            return self
        if flag and self._value.dtype.kind not in "fc":
            raise RuntimeError("only Tensors of floating point and complex dtype can require "
                               "gradients")
        self._requires_grad = flag
        return self

    @property
    def grad_fn(self):
        return self._grad_fn

    @property
    def is_leaf(self) -> bool:
        return self._grad_fn is None

    @property
    def grad(self):
        node = self._grad_fn
        if node is not None and node._retained is None:
            warnings.warn(_NONLEAF_GRAD, UserWarning, stacklevel=2)
        return self._grad

    @grad.setter
    def grad(self, value):
        if value is not None:
            if not isinstance(value, Tensor):
                raise TypeError(f"assigned grad expected to be a Tensor or None but got "
                                f"{type(value).__name__}")
            if value is self:
                raise RuntimeError("can't assign Variable as its own grad")
            if np.result_type(value._value) != np.result_type(self._value):
                raise RuntimeError("assigned grad has data of a different type")
            if np.shape(value._value) != np.shape(self._value):
                raise RuntimeError(f"attempting to assign a gradient of size "
                                   f"'{list(np.shape(value._value))}' to a tensor of size "
                                   f"'{list(np.shape(self._value))}'. Please ensure that the "
                                   f"gradient and the tensor are the same size")
        self._grad = value

    @grad.deleter
    def grad(self):
        self._grad = None

    def retain_grad(self):
        """Keep this non-leaf tensor's gradient in ``.grad`` at the next backward pass."""
        if not self._requires_grad:
            raise RuntimeError("can't retain_grad on Tensor that has requires_grad=False")
        if self._grad_fn is not None and self._grad_fn._retained is None:
            import weakref
            self._grad_fn._retained = weakref.ref(self)

    @property
    def retains_grad(self) -> bool:
        return self._grad_fn is not None and self._grad_fn._retained is not None

    def detach(self):
        """The same values, cut from the graph (requires_grad False); an in-place op on either
        tensor shows in the other, as they share storage in PyTorch."""
        return make_view(self, _new(self._value), "detach", None)

    def detach_(self):
        if self._base is not None:
            raise RuntimeError("Can't detach views in-place. Use detach() instead. If you are "
                               "using DistributedDataParallel (DDP) for training, and "
                               "gradient_as_bucket_view is set as True, gradients are views of "
                               "DDP buckets, and hence detach_() cannot be called on these "
                               "gradients. To fix this error, please refer to the "
                               "Optimizer.zero_grad() function in torch/optim/optimizer.py as "
                               "the solution.")
        self._grad_fn = None
        self._requires_grad = False
        return self

    @property
    def data(self):
        return self.detach()

    @data.setter
    def data(self, value):
        if not isinstance(value, E.EngineTensor):
            raise TypeError(f"data must be a Tensor, not {type(value).__name__}")
        self._value = _copy(value._value)

    @data.deleter
    def data(self):
        raise RuntimeError("cannot delete the data of a Tensor")

    @property
    def _base(self):
        view = getattr(self, "_view", None)
        while view is not None and view[1] != "detach":
            parent = view[0]
            if getattr(parent, "_view", None) is None or parent._view[1] == "detach":
                return parent
            view = parent._view
        return None

    def _is_view(self) -> bool:
        return self._base is not None

    def is_inference(self) -> bool:
        """Whether the tensor was made inside ``inference_mode`` (or is a view of one that was):
        it never requires grad from its inputs."""
        return getattr(self, "_inference", False)

    # -- values -------------------------------------------------------------------------------
    def numpy(self, force=False):
        if self._requires_grad and not force and _grad_mode.on:
            raise RuntimeError("Can't call numpy() on Tensor that requires grad. Use "
                               "tensor.detach().numpy() instead.")
        return E.EngineTensor.numpy(self)

    def __array__(self, dtype=None, copy=None):
        # as PyTorch's: np.asarray(t) goes through numpy(), which refuses a tensor that requires
        # grad rather than dropping its graph
        if self._requires_grad and _grad_mode.on:
            self.numpy()
        return E.EngineTensor.__array__(self, dtype, copy)

    def item(self):
        v = self._value
        if v.size != 1:
            raise RuntimeError(f"a Tensor with {v.size} elements cannot be converted to Scalar")
        return v.reshape(()).item() if v.ndim else v.item()

    def tolist(self):
        return np.asarray(self._value).tolist()

    @property
    def shape(self):
        return _dtypes.Size(np.shape(self._value))

    def size(self, dim=None):
        shape = _dtypes.Size(np.shape(self._value))
        return shape if dim is None else shape[dim]

    def dim(self) -> int:
        return np.ndim(self._value)

    ndimension = dim

    def numel(self) -> int:
        return int(np.size(self._value))

    nelement = numel

    @property
    def dtype(self):
        return _dtypes.of(self._value.dtype)

    @property
    def device(self):
        return "cpu"

    def is_floating_point(self) -> bool:
        return self._value.dtype.kind == "f"

    def to(self, *args, **kwargs):
        """``to(dtype)`` converts; devices other than "cpu" are not available."""
        for a in list(args) + list(kwargs.values()):
            if isinstance(a, _dtypes.dtype):
                return self.type(a)
            if isinstance(a, str) and a != "cpu":
                raise RuntimeError(f"tape.torch runs on the CPU only; cannot move to {a!r}")
        return self

    def cpu(self):
        return self

    def type(self, dtype=None):
        if dtype is None:
            return f"torch.{_TYPE_NAMES.get(self._value.dtype.name, self._value.dtype.name)}"
        npd = _dtypes.to_numpy(dtype)
        if npd == self._value.dtype:
            return self
        return _apply(P["Cast"], (self,), {"dtype": npd}, "ToCopyBackward0")

    def float(self):
        return self.type(_dtypes.float32)

    def double(self):
        return self.type(_dtypes.float64)

    def long(self):
        return self.type(_dtypes.int64)

    def int(self):
        return self.type(_dtypes.int32)

    def bool(self):
        return self.type(_dtypes.bool)

    def clone(self):
        return _apply(P["Identity"], (self,), _NO_ATTRS, "CloneBackward0")

    def contiguous(self):
        return self

    def __repr__(self):
        return tensor_repr(self)

    __str__ = __repr__

    def __format__(self, spec):
        if self._value.ndim == 0 and spec:
            return format(self._value.item(), spec)
        return str(self)

    def __bool__(self):
        if self._value.size != 1:
            raise RuntimeError("Boolean value of Tensor with more than one value is ambiguous")
        return bool(self._value.reshape(()))

    def __len__(self):
        if self._value.ndim == 0:
            raise TypeError("len() of a 0-d tensor")
        return self._value.shape[0]

    def __iter__(self):
        if self._value.ndim == 0:
            raise TypeError("iteration over a 0-d tensor")
        return (self[i] for i in range(self._value.shape[0]))

    def __reduce__(self):
        return (_rebuild, (np.asarray(self._value), self._requires_grad))

    def __deepcopy__(self, memo):
        if self._grad_fn is not None:
            raise RuntimeError("Only Tensors created explicitly by the user (graph leaves) support "
                               "the deepcopy protocol at the moment.")
        out = _new(np.array(self._value, copy=True)[()] if self._value.ndim == 0 else
                   np.array(self._value, copy=True))
        out._requires_grad = self._requires_grad
        return out

    def __copy__(self):
        return self.__deepcopy__({})

    # -- in-place ops ------------------------------------------------------------------------
    # An in-place op computes its result as a new tensor (recorded as usual), then this tensor
    # takes the result's value and grad_fn. Arrays are never written into (nodes keep the values
    # they saw); tensors that share storage in PyTorch (views) are given the new values instead.
    def _inplace(self, result, start):
        """This tensor takes ``result`` (made by nodes numbered after ``start``) in place."""
        _check_inplace(self)
        value = result._value
        if value.dtype != self._value.dtype or np.shape(value) != np.shape(self._value):
            value = np.broadcast_to(value, np.shape(self._value)).astype(self._value.dtype)
            value = value[()] if value.ndim == 0 else value
            if result._grad_fn is not None:
                result = _apply(P["Cast"], (result,), {"dtype": self._value.dtype}, "ToCopyBackward0")
                if np.shape(result._value) != np.shape(self._value):
                    result = _apply(P["BroadcastTo"], (result,), {"shape": np.shape(self._value)},
                                    "ExpandBackward0")
            else:
                result = _new(value)
        _take(self, result)
        changed = _propagate(self)
        _scrub(changed, start)
        _stamp(changed)
        return self

    def _overwrite(self, value):
        """``fill_`` / ``zero_``: every element replaced; the gradient to the old values is 0."""
        start = _next_seq()
        const = _new(np.broadcast_to(np.asarray(value, self._value.dtype), np.shape(self._value)))
        if self._requires_grad and _grad_mode.on:
            everywhere = _new(np.ones(np.shape(self._value), bool))
            return self._inplace(_apply(P["SelectV2"], (everywhere, const, self), _NO_ATTRS,
                                        "FillBackward0"), start)
        return self._inplace(const, start)

    def zero_(self):
        return self._overwrite(0)

    def fill_(self, value):
        if isinstance(value, E.EngineTensor):
            if value._requires_grad if isinstance(value, Tensor) else False:
                return self.copy_(value)
            value = value._value
        return self._overwrite(value)

    def copy_(self, src):
        start = _next_seq()
        return self._inplace(_apply(P["Identity"], (_input(src, self),), _NO_ATTRS,
                                    "CopyBackwards"), start)

    def add_(self, other, alpha=1):
        start = _next_seq()
        return self._inplace(self + (other if alpha == 1 else other * alpha), start)

    def sub_(self, other, alpha=1):
        start = _next_seq()
        return self._inplace(self - (other if alpha == 1 else other * alpha), start)

    def mul_(self, other):
        start = _next_seq()
        return self._inplace(self * other, start)

    def div_(self, other):
        start = _next_seq()
        return self._inplace(self / other, start)

    def clamp_(self, min=None, max=None):  # noqa: A002
        start = _next_seq()
        return self._inplace(self.clamp(min, max), start)

    def __iadd__(self, other):
        return self.add_(other)

    def __isub__(self, other):
        return self.sub_(other)

    def __imul__(self, other):
        return self.mul_(other)

    def __itruediv__(self, other):
        return self.div_(other)

    def __setitem__(self, key, value):
        key = E.normalise_key(key)
        key = tuple(k._value if isinstance(k, E.EngineTensor) else k for k in key)
        if not isinstance(value, E.EngineTensor):
            value = _new(np.asarray(E.to_array(value), self._value.dtype))
        start = _next_seq()
        self._inplace(index_put(self, key, value), start)

    __hash__ = object.__hash__


_NONLEAF_GRAD = (
    "The .grad attribute of a Tensor that is not a leaf Tensor is being accessed. Its .grad "
    "attribute won't be populated during autograd.backward(). If you indeed want the .grad field "
    "to be populated for a non-leaf Tensor, use .retain_grad() on the non-leaf Tensor. If you "
    "access the non-leaf Tensor by mistake, make sure you access the leaf Tensor instead. See "
    "github.com/pytorch/pytorch/pull/30531 for more informations. (Triggered internally at "
    "aten/src/ATen/core/TensorBody.h.)")


# -- views: tensors that share storage in PyTorch ----------------------------------------------
#: kind -> (forward(parent, arg) -> the view's tensor, back(parent, view, arg) -> the parent's
#: new tensor once the view holds new values); filled in by _ops for its view ops.
VIEW_KINDS: dict = {"detach": (lambda parent, arg: _new(parent._value),
                               lambda parent, view, arg: _new(view._value))}


class _Views:
    __slots__ = ("refs", "limit")

    def __init__(self):
        self.refs = []
        self.limit = 16


def make_view(parent, out, kind, arg, guard=None):
    """Note ``out`` as a view of ``parent``: in-place changes to either reach the other.

    As in PyTorch, a view made in no_grad mode of a tensor that requires grad requires grad
    itself (as a leaf), and it, or a view ``guard`` names (an output of a function returning
    several views), may not be changed in place with grad mode on while its base requires grad.
    """
    if kind != "detach" and getattr(parent, "_inference", False):
        # a view of an inference tensor is an inference tensor, a leaf that shares nothing
        # with a graph (PyTorch: not a view, never requiring grad)
        out._inference = True
        out._requires_grad = False
        out._grad_fn = None
        return out
    if kind != "detach" and parent._requires_grad:
        if not _grad_mode.on:
            guard = _NO_GRAD_VIEW_ERROR
            out._requires_grad = True
    else:
        guard = None
    # a detached tensor holds its parent weakly: it shares values, not the parent's graph
    # (``losses.append(loss.detach())`` must not keep every graph alive)
    out._view = (weakref.ref(parent) if kind == "detach" else parent, kind, arg, guard)
    root = parent
    while True:
        up = _parent_of(root)
        if up is None:
            break
        root = up
    views = getattr(root, "_views", None)
    if views is None:
        views = root._views = _Views()
    refs = views.refs
    refs.append(weakref.ref(out))
    if len(refs) > views.limit:         # drop dead views now and then (amortised)
        refs[:] = [r for r in refs if r() is not None]
        views.limit = 2 * len(refs) + 16
    return out


def _parent_of(t):
    """The tensor ``t`` is a view of (None if none, or if a detached tensor's parent is gone)."""
    view = getattr(t, "_view", None)
    if view is None:
        return None
    return view[0]() if view[1] == "detach" else view[0]


_NO_GRAD_VIEW_ERROR = (
    "A view was created in no_grad mode and is being modified inplace with grad mode enabled. "
    "Given that this use case is ambiguous and error-prone, it is forbidden. You can clarify your "
    "code by moving both the view and the inplace either both inside the no_grad block (if you "
    "don't want the inplace to be tracked) or both outside (if you want the inplace to be "
    "tracked).")


def _check_inplace(t):
    if not _grad_mode.on:
        return
    view = getattr(t, "_view", None)
    if view is not None and view[3] is not None:
        raise RuntimeError(view[3])
    if t._requires_grad and t._grad_fn is None:
        raise RuntimeError("a leaf Variable that requires grad is being used in an in-place "
                           "operation.")
    view = getattr(t, "_view", None)
    while view is not None and view[1] != "detach":
        t = view[0]
        view = getattr(t, "_view", None)
        if t._requires_grad and t._grad_fn is None:
            raise RuntimeError("a view of a leaf Variable that requires grad is being used in an "
                               "in-place operation.")


def _take(t, result):
    """``t`` takes ``result``'s value and, if it has one, its grad_fn (a retained grad moves
    along with it, as PyTorch's retain_grad survives in-place ops)."""
    _dirty_output(t)
    t._value = result._value
    node = result._grad_fn
    if node is not None:
        old = t._grad_fn
        if old is not None and old._retained is not None and node._retained is None:
            node._retained = old._retained
            old._retained = None
        t._grad_fn = node
        t._requires_grad = True


def _dirty_output(t):
    """``t``'s values are about to change: the node that made it may not run if it reads them."""
    old = t._grad_fn
    if old is not None and old.op.name in SAVES_RESULT and old._dirty is None:
        old._dirty = describe(t)


def _stamp(changed):
    """Number the change of the tensors that share the changed values (all views of the root)."""
    changed_in_place[0] = True
    seq = _next_seq()
    for t in changed:
        t._stamp = seq
    views = getattr(changed[-1], "_views", None)
    if views is not None:
        for ref in views.refs:
            v = ref()
            if v is not None:
                v._stamp = seq


def _propagate(t):
    """After ``t`` changed in place: its parents take the new values, then every view of the
    root is computed again from its parent (with a grad_fn when grad mode records it). Returns
    ``t`` and its parents: the tensors whose values changed."""
    changed = [t]
    view = getattr(t, "_view", None)
    while view is not None:
        parent, kind, arg, _ = view
        if kind == "detach":
            parent = parent()
            if parent is None:
                break
        new = VIEW_KINDS[kind][1](parent, t, arg)
        if kind == "detach":
            _dirty_output(parent)
            parent._value = new._value
        else:
            _take(parent, new)
        t = parent
        changed.append(t)
        view = getattr(t, "_view", None)
    views = getattr(t, "_views", None)
    if views is None:
        return changed
    for ref in views.refs:              # (in creation order: parents before their views)
        v = ref()
        if v is None:
            continue
        parent, kind, arg, _ = v._view
        if kind == "detach":
            parent = parent()
            if parent is not None:
                v._value = parent._value
            continue
        if _grad_mode.on and parent._requires_grad:
            new = VIEW_KINDS[kind][0](parent, arg)
            v._value = new._value
            v._grad_fn = new._grad_fn
            v._requires_grad = True
        else:
            with _NoGradBlock():
                v._value = VIEW_KINDS[kind][0](parent, arg)._value
    return changed


def _scrub(changed, start):
    """Drop the tensors changed in place from the saved tensors of the nodes made for the change
    (numbered after ``start``): those nodes hold the values they need, and holding the tensors,
    whose grad_fn now leads to them, would make a reference cycle."""
    ids = {id(t) for t in changed}
    stack = [t._grad_fn for t in changed if t._grad_fn is not None and t._grad_fn._seq > start]
    seen = set()
    while stack:
        node = stack.pop()
        if node in seen:
            continue
        seen.add(node)
        saved = getattr(node, "_saved", None)
        if saved is not None and any(id(x) in ids for x in saved):
            node._saved = tuple(None if id(x) in ids else x for x in saved)
        for e in node._edges:
            if e is not None and e._seq > start:
                stack.append(e)


def _plain_key(key):
    """``key`` with boolean masks as the integer index arrays they select."""
    out = []
    for k in key:
        if isinstance(k, np.ndarray) and k.dtype == bool:
            out.extend(np.nonzero(k))
        else:
            out.append(k)
    return tuple(out)


def index_put(base, key, value):
    """``base`` with ``base[key] = value`` as a new tensor; recorded (``CopySlices``) when grad
    mode is on and either requires grad: ``where(outside key, base, 0) + scatter(value)``."""
    bv = base._value
    shape = np.shape(bv)
    vv = np.asarray(value._value)
    if not (_grad_mode.on and (base._requires_grad or
                               (isinstance(value, Tensor) and value._requires_grad))):
        arr = np.array(bv, copy=True)
        arr[key] = vv
        return _new(arr[()] if arr.ndim == 0 else arr)
    key = _plain_key(key)
    target = np.shape(np.empty(shape, np.bool_)[key])
    outside = np.ones(shape, bool)
    outside[key] = False
    kept = _apply(P["SelectV2"], (_new(outside), base, _new(np.zeros((), bv.dtype)[()])),
                  _NO_ATTRS, "IndexPutBackward0")
    if vv.dtype != bv.dtype:
        value = _apply(P["Cast"], (value,), {"dtype": bv.dtype}, "ToCopyBackward0")
    if np.shape(value._value) != target:
        value = _apply(P["BroadcastTo"], (value,), {"shape": target}, "ExpandBackward0")
    placed = _apply(P["ScatterKey"], (value,), {"shape": shape, "key": key}, "IndexPutBackward0")
    out = _apply(P["AddV2"], (kept, placed), _NO_ATTRS, "CopySlices")
    if any(isinstance(k, np.ndarray) for k in key):
        # a repeated index: the scatter summed, where assignment keeps one value
        arr = np.array(bv, copy=True)
        arr[key] = vv
        out._value = arr
    return out


class _NoGradBlock:
    def __enter__(self):
        self.prev = _grad_mode.on
        _grad_mode.on = False
        return self

    def __exit__(self, *exc):
        _grad_mode.on = self.prev
        return False


_TYPE_NAMES = {"float64": "DoubleTensor", "float32": "FloatTensor", "int64": "LongTensor",
               "int32": "IntTensor", "bool": "BoolTensor", "float16": "HalfTensor"}


def _rebuild(value, requires_grad):
    t = _new(value)
    if requires_grad:
        t.requires_grad_(True)
    return t


def _copy(value):
    return np.array(value, copy=True) if isinstance(value, np.ndarray) else value


def _new(value):
    """A tensor for a NumPy value, outside the graph (no checks: the ops' hot path)."""
    t = _obj_new(Tensor)
    t._value = value
    t._requires_grad = False
    t._grad_fn = t._grad = t._acc = None
    if _grad_mode.inference:
        t._inference = True
    return t


def _input(x, like=None):
    """An op's argument as an engine tensor; Python numbers take ``like``'s dtype."""
    if isinstance(x, E.EngineTensor):
        return x
    if like is not None and type(x) in _SCALARS:
        return _scalar_like(x, like._value.dtype)
    return _wrap(E.to_array(x))


# -- applying a primitive ---------------------------------------------------------------------
def _apply(op, inputs, attrs, name):
    """Run primitive ``op`` on engine tensors ``inputs``; the output as a torch Tensor."""
    out = op.fn(*[t._value for t in inputs], **attrs)
    if not isinstance(out, _NUMPY):
        out = np.asarray(out)
    r = _obj_new(Tensor)
    r._value = out
    r._grad = r._acc = r._grad_fn = None
    r._requires_grad = False
    if _grad_mode.on and not op.nondiff and out.dtype.kind in "fc":
        edges = tuple([edge(t) for t in inputs])
        for e in edges:
            if e is not None:
                node = _obj_new(node_class(name))
                node.op = op
                node._in = tuple([t._value for t in inputs])
                node._out = out
                if attrs:
                    node.attrs = attrs
                node._edges = edges
                node._seq = _next_seq()
                if op not in _SAVES_NOTHING:
                    node._saved = inputs
                r._grad_fn = node
                r._requires_grad = True
                break
    elif _grad_mode.inference:
        r._inference = True
    if _tapes or _accumulators:
        _record(op, inputs, (r,), attrs)
    return r




def _binary(op, name, rname=None):
    """``(a, b) -> a op b`` and the reflected ``(b, a) -> a op b``: the hottest path, written flat."""
    fn = op.fn
    cls = node_class(name)
    rcls = node_class(rname or name)
    saves = op not in _SAVES_NOTHING
    # a product's rule reads each input for the other's gradient, a quotient's the divisor
    # always and the dividend for the divisor's: an input no rule reads is not kept (a tensor
    # kept alive only by a node that never reads it would outlive its last reference)
    trim = {"Mul": 1, "MatMul": 1, "RealDiv": 2}.get(op.name, 0)

    def run(a, b, ta, tb, cls):
        # ta / tb: whether a / b is a torch Tensor (else an engine tensor, e.g. a Python
        # number's cached constant). A node saves the raw values (never written into: in-place
        # ops replace a tensor's array), so later changes to a tensor do not reach it.
        va, vb = a._value, b._value
        out = fn(va, vb)
        if type(out) is not _F64 and not isinstance(out, _NUMPY):
            out = np.asarray(out)
        r = _obj_new(Tensor)
        r._value = out
        r._grad = r._acc = None
        ra = ta and a._requires_grad
        rb = tb and b._requires_grad
        if (ra or rb) and _grad_mode.on:
            node = r._grad_fn = _obj_new(cls)           # _graph_node, inlined
            node.op = op
            node._in = (va, vb)
            node._out = out
            node._edges = ((a._grad_fn or _leaf_acc(a)) if ra else None,
                           (b._grad_fn or _leaf_acc(b)) if rb else None)
            node._seq = _next_seq()
            if not saves:
                pass
            elif not trim:
                node._saved = (a, b)
            elif trim == 1:
                node._saved = (a if rb else None, b if ra else None)
            else:
                node._saved = (a if rb or not ra else None, b)
            r._requires_grad = True
        else:
            r._grad_fn = None
            r._requires_grad = False
            if _grad_mode.inference:
                r._inference = True
        if _tapes or _accumulators:
            _record_pair(op, a, b, r)
        return r

    if op.nondiff:
        def plain(a, b):
            return _apply(op, (a, _input(b, a)), _NO_ATTRS, name)

        def plain_reflected(b, a):
            return _apply(op, (_input(a, b), b), _NO_ATTRS, name)
        return plain, plain_reflected

    def forward(a, b):          # a is a torch Tensor (the method's self)
        if isinstance(b, Tensor):
            return run(a, b, True, True, cls)
        if type(b) in _SCALARS:
            va = a._value       # (a float64 scalar takes the engine's cached constant directly)
            c = _F64_CONSTANTS.get(b) if type(va) is _F64 else None
            return run(a, c if c is not None else _scalar_like(b, va.dtype), True, False, cls)
        return run(a, _input(b), True, False, cls)

    def reflected(b, a):        # a op b where a is not a torch Tensor
        if type(a) in _SCALARS:
            vb = b._value
            c = _F64_CONSTANTS.get(a) if type(vb) is _F64 else None
            return run(c if c is not None else _scalar_like(a, vb.dtype), b, False, True, rcls)
        return run(_input(a), b, False, True, rcls)

    return forward, reflected


def _graph_node(cls, op, inputs, out, edges):
    """The grad_fn of one op application: the primitive, the raw input and output values it
    saves, and an edge to each input's own node (None where no gradient is needed)."""
    node = _obj_new(cls)
    node.op = op
    node._in = inputs
    node._out = out
    node._edges = edges
    node._seq = _next_seq()
    return node


def _unary(op, name):
    fn = op.fn
    cls = node_class(name)
    saves = op not in _SAVES_NOTHING

    def forward(x):
        if not isinstance(x, Tensor):
            return _apply(op, (_input(x),), _NO_ATTRS, name)
        v = x._value
        out = fn(v)
        if type(out) is not _F64 and not isinstance(out, _NUMPY):
            out = np.asarray(out)
        r = _obj_new(Tensor)
        r._value = out
        r._grad = r._acc = None
        if x._requires_grad and _grad_mode.on:
            node = r._grad_fn = _graph_node(cls, op, (v,), out,
                                            (x._grad_fn or _leaf_acc(x),))
            if saves:
                node._saved = (x,)
            r._requires_grad = True
        else:
            r._grad_fn = None
            r._requires_grad = False
            if _grad_mode.inference:
                r._inference = True
        if _tapes or _accumulators:
            _record(op, (x,), (r,), _NO_ATTRS)
        return r
    forward.__name__ = name
    return forward


# -- the Python operators ---------------------------------------------------------------------
def _install():
    for py, (opname, name, rname) in {
            "add": ("AddV2", "AddBackward0", "AddBackward0"),
            "sub": ("Sub", "SubBackward0", "RsubBackward1"),
            "mul": ("Mul", "MulBackward0", "MulBackward0"),
            "truediv": ("RealDiv", "DivBackward0", "DivBackward0"),
            "pow": ("Pow", "PowBackward0", "PowBackward1"),
            "floordiv": ("FloorDiv", "FloorDivBackward0", "FloorDivBackward0"),
            "mod": ("FloorMod", "RemainderBackward0", "RemainderBackward0")}.items():
        forward, reflected = _binary(P[opname], name, rname)
        setattr(Tensor, f"__{py}__", forward)
        setattr(Tensor, f"__r{py}__", reflected)


_install()
_pow_tensor, _ = _binary(P["Pow"], "PowBackward1")


def _pow(self, exponent):
    if isinstance(exponent, Tensor) and np.ndim(exponent._value):
        return _pow_tensor(self, exponent)
    if isinstance(exponent, Tensor) and exponent._requires_grad:
        return _pow_tensor(self, exponent)
    return _pow_scalar(self, exponent)


_pow_scalar = Tensor.__pow__
Tensor.__pow__ = _pow


def _requires_grad_here(t) -> bool:
    """A NumPy call without a rule refuses a tensor that requires grad (with grad mode on), as
    PyTorch's ``numpy()`` does, instead of dropping its graph."""
    return type(t) is Tensor and t._requires_grad and _grad_mode.on


E.FOLLOWED.append(_requires_grad_here)
