"""Structural zeros: telling a selected-away 0 from a 0 that is a value, at singular points.

A rule with a singular derivative (sqrt, cbrt, log, asin, roots via pow ... at their singular
points) multiplies a cotangent ``g`` by an infinite or undefined partial ``d``. Where ``g`` is 0
the product ``0 * inf`` means one of two things:

- the element is *structurally* zero: identically 0 near the point, whatever the point does (a
  branch ``where`` did not select, a zero of a Jacobian's identity seed or of a tangent seed).
  The path contributes nothing and the right product is 0;
- the 0 is a *value*: a slope that happens to vanish here (2y of y**2 at y = 0, x of x*cbrt(x)
  at 0). Then ``0 * inf`` is a genuine indeterminate form (``cbrt(x)**2`` has no derivative at
  0) and the product stays ``nan``, so the result says it is undefined instead of printing 0.

Arrays carrying structural zeros are ``StructuralZeros`` views: their ``structural`` mask marks
the elements known to be identically zero. The mask follows the arithmetic of rules: a product
is identically zero where either factor is, a sum where every term is; any other operation, a
reshape or a reduction drops it, which only turns a would-be 0 into an honest nan. Scalars carry
no mask (a scalar ``where`` hands the branch it did not take no cotangent at all).
"""
from __future__ import annotations

import numpy as np


class StructuralZeros(np.ndarray):
    """An array whose ``structural`` elements (a bool array of its shape) are identically zero."""

    structural = None

    def __array_finalize__(self, obj):
        self.structural = None          # views and copies made by NumPy: the mask does not follow

    # the moves of linear rules (slicing, reshaping, transposing) take the mask along
    def __getitem__(self, key):
        out = plain(self)[key]
        mask = self.structural
        if mask is None or not np.any(mask[key]):
            return out
        return mark(np.asarray(out), mask[key])

    def reshape(self, *shape, **kwargs):
        out = plain(self).reshape(*shape, **kwargs)
        mask = self.structural
        return out if mask is None else mark(out, mask.reshape(*shape, **kwargs))

    def transpose(self, *axes):
        out = plain(self).transpose(*axes)
        mask = self.structural
        return out if mask is None else mark(out, mask.transpose(*axes))

    def __array_ufunc__(self, ufunc, method, *inputs, out=None, **kwargs):
        args = [plain(x) for x in inputs]
        if out is not None:
            kwargs["out"] = tuple(plain(o) for o in out)
        result = getattr(ufunc, method)(*args, **kwargs)
        if method != "__call__" or out is not None \
                or not isinstance(result, (np.ndarray, np.generic)):
            return result
        masks = [mask_of(x) for x in inputs]
        shape = np.shape(result)
        if ufunc in (np.multiply, np.true_divide):
            # a product is identically zero where a factor is (a quotient where its numerator
            # is), even times an infinite slope
            live = masks if ufunc is np.multiply else masks[:1]
            mask = _combine(np.logical_or, [m for m in live if m is not None], shape)
            if mask is not None:
                result = np.where(mask, np.zeros((), result.dtype), result)
        elif ufunc in (np.add, np.subtract):        # a sum where every term is
            mask = None if any(m is None for m in masks) else _combine(np.logical_and, masks, shape)
        elif ufunc in (np.negative, np.positive, np.conjugate):
            mask = masks[0]
        else:
            mask = None
        return result if mask is None else mark(np.asarray(result), mask)


def _combine(how, masks, shape):
    if not masks:
        return None
    out = np.broadcast_to(masks[0], shape)
    for m in masks[1:]:
        out = how(out, np.broadcast_to(m, shape))
    return out


def mask_of(values):
    """The structural-zero mask of ``values`` (None for anything but ``StructuralZeros``)."""
    return values.structural if type(values) is StructuralZeros else None


def plain(values):
    """``values`` as a plain ndarray (the same data) when it carries a mask."""
    return values.view(np.ndarray) if type(values) is StructuralZeros else values


def unmarked(values):
    """``values`` without its mask, a 0-d array as a NumPy scalar: what users get to see."""
    if type(values) is not StructuralZeros:
        return values
    values = values.view(np.ndarray)
    return values[()] if values.ndim == 0 else values


def mark(values, structural=True):
    """``values`` with its zeros at ``structural`` (a bool array, or True for every zero)
    marked as identically zero, besides those marked already. Values with no such zero come
    back unchanged (NumPy scalars as they are: a 0-d array is what carries a mark)."""
    if type(values) is not np.ndarray and type(values) is not StructuralZeros:
        return values
    mask = plain(values) == 0
    if structural is not True:
        mask = mask & np.broadcast_to(structural, values.shape)
    old = mask_of(values)
    if old is not None:
        mask = mask | old
    if not mask.any():
        return values
    out = values.view(StructuralZeros)
    out.structural = mask
    return out


def times_singular(g, d):
    """``g * d`` for a cotangent (or tangent) ``g`` and a partial ``d`` that may be inf or nan:
    0 where ``g`` is a structural zero (``StructuralZeros`` multiplies so), the plain product
    elsewhere, where 0 * inf is nan."""
    return g * d
