"""Every registered op, checked in every mode, derived from the registry.

Elementwise ops (one input, declared ``symmetric``) and broadcasting binary ops are swept
automatically: a new one is tested by defining it. Their inputs are drawn from
``SWEEP_DOMAIN`` unless the op declares ``test_domain=(lo, hi)``. Every other differentiable
op must appear in one of the ``RECIPES`` (checked below: the recipes are recorded on a tape and
the ops they reach are compared with the registry), and the recipes run in every mode too.
"""
import numpy as np
import pytest

import tape
from tape.engine import registry
from tape.engine.ops.math import complex_
from tape.engine.registry import BinaryPrimitive, UnaryPrimitive
from tape.engine.testing import check_grads

MODES = ("rev", "fwd", "taylor")
SWEEP_DOMAIN = (0.3, 0.9)
UNARY_SHAPES = [(), (3,), (2, 3)]
BINARY_SHAPES = [((), ()), ((3,), ()), ((2, 3), (3,)), ((1, 3), (2, 1))]
rng = np.random.default_rng(20261122)


def _float_to_float(op, arity):
    try:
        with np.errstate(all="ignore"):     # (0.5 is outside some ops' domain: only the dtype counts)
            out = op(*[tape.constant(0.5)] * arity)
    except TypeError:           # needs attributes: a recipe's business
        return False
    return isinstance(out, tape.Tensor) and out.dtype.is_floating


def _swept(arity):
    return [op for op in registry.primitives(built_in_only=True)
            if not op.nondiff and (isinstance(op, BinaryPrimitive) if arity == 2 else op.symmetric)
            and _float_to_float(op, arity)]


UNARY = _swept(1)
BINARY = _swept(2)


def _draw(op, shape, part=None):
    """Inputs in the op's domain; the two inputs of a binary op from its lower and upper half,
    so that no kink of maximum, minimum or floormod lies between them."""
    lo, hi = getattr(op, "test_domain", SWEEP_DOMAIN)
    if part is not None:
        mid = (lo + hi) / 2
        lo, hi = (lo, mid - 0.05) if part == 0 else (mid + 0.05, hi)
    return rng.uniform(lo, hi, shape)


@pytest.mark.parametrize("shape", UNARY_SHAPES, ids=str)
@pytest.mark.parametrize("op", UNARY, ids=lambda op: op.name)
def test_elementwise_op(op, shape):
    check_grads(op, [_draw(op, shape)], order=2, modes=MODES)


@pytest.mark.parametrize("shapes", BINARY_SHAPES, ids=str)
@pytest.mark.parametrize("op", BINARY, ids=lambda op: op.name)
def test_binary_op(op, shapes):
    check_grads(op, [_draw(op, s, i) for i, s in enumerate(shapes)], order=2, modes=MODES)


SPD = np.array([[3.0, 0.5, 0.1], [0.5, 2.0, 0.3], [0.1, 0.3, 1.5]])
# name -> (function of tensors, argument shapes): the ops that take attributes or whole arrays
RECIPES = {
    "reductions": (lambda x: tape.stack([
        tape.reduce_sum(x), tape.reduce_mean(x, axis=0)[0], tape.reduce_max(x),
        tape.reduce_min(x, axis=1)[1], tape.reduce_prod(x), tape.reduce_logsumexp(x, axis=1)[0],
        tape.linalg.norm(x), tape.cumsum(x, axis=1)[1, 2]]), [(2, 3)]),
    "shape_ops": (lambda x: tape.reshape(tape.transpose(tape.tile(x, [2, 1])), [-1])[1:9:2]
                  + tape.pad(x, [[1, 0], [0, 1]])[1, :4] + tape.gather(tape.reshape(x, [-1]), [4, 0, 2, 2])
                  + tape.concat([x[0, :2], tape.broadcast_to(x[1, 1], (2,))], 0), [(2, 3)]),
    "where": (lambda a, b: tape.where([[True, False, True], [False, False, True]], a * 2, b),
              [(2, 3), (3,)]),
    "slice": (lambda x: x[1:, ::2] ** 2, [(3, 4)]),
    "linalg": (lambda a, b: tape.linalg.inv(a + SPD) + tape.linalg.det(a + SPD)
               + tape.linalg.solve(a + SPD, b) + tape.matmul(a, b) + tape.einsum("ij,jk->ik", a, b),
               [(3, 3), (3, 3)]),
    "nn": (lambda x: tape.nn.softmax(x) * 2 + tape.nn.log_softmax(x, axis=0), [(2, 3)]),
    "cast": (lambda x: tape.math.real(tape.cast(x, tape.complex128)) * x, [(3,)]),
    "complex": (lambda x, y: tape.math.real(tape.math.angle(complex_(x, y)) * x
                                            + tape.math.imag(tape.math.conj(complex_(x, y)))),
                [(3,), (3,)]),
}

RECIPES["decompositions"] = (lambda a, b: tape.linalg.cholesky(a @ tape.transpose(a) + SPD)
                             + tape.linalg.pinv(b) * 0.5 + b[:, :2] @ tape.linalg.pinv(b[:, :2])
                             + tape.linalg.pinv(b[:2]) @ b[:2],
                             [(3, 3), (3, 3)])
RECIPES["fft"] = (lambda x: tape.math.real(np.fft.ifft(np.fft.fft(x * x) * (1 + 2j))) + tape.math.imag(
    np.fft.fft2(x, norm="ortho"))[0, 0], [(2, 3)])
# eigh, svd and eig have several outputs, and Taylor mode follows one output per op: it raises
WITHOUT_TAYLOR = {
    "eigh and svd": (lambda a, b: tape.linalg.eigh(a + tape.transpose(a))[0] * tape.linalg.svd(b)[1]
                     + tape.linalg.eigh(a + tape.transpose(a))[1][0], [(3, 3), (3, 3)]),
    # (a symmetric matrix's eigenvalues are real, so the recipe's values are)
    "eig": (lambda a: tape.math.real(tape.linalg.eig(a @ tape.transpose(a) + SPD)[0]) * 2.0,
            [(3, 3)]),
}


@pytest.mark.parametrize("name", sorted(RECIPES))
def test_recipe(name):
    f, shapes = RECIPES[name]
    check_grads(f, [rng.uniform(*SWEEP_DOMAIN, s) for s in shapes], order=2, modes=MODES)


@pytest.mark.parametrize("name", sorted(WITHOUT_TAYLOR))
def test_recipe_without_taylor(name):
    f, shapes = WITHOUT_TAYLOR[name]
    check_grads(f, [rng.uniform(*SWEEP_DOMAIN, s) for s in shapes], order=2, modes=MODES[:2])
    with pytest.raises(LookupError, match="nested GradientTapes"):
        tape.derivative(lambda t: tape.reduce_sum(f(*[tape.constant(np.eye(3)) * t] * len(shapes))),
                        0.7, order=2)


def test_every_differentiable_op_is_checked():
    reached = set()
    for f, shapes in [*RECIPES.values(), *WITHOUT_TAYLOR.values()]:
        xs = [tape.constant(rng.uniform(*SWEEP_DOMAIN, s)) for s in shapes]
        with tape.GradientTape() as outer:      # records the inner backward pass too
            outer.watch(xs)
            with tape.GradientTape() as inner:
                inner.watch(xs)
                y = tape.reduce_sum(f(*xs))
            inner.gradient(y, xs)
        reached |= {op.name for op in outer.recorded_operations()}
    swept = {op.name for op in UNARY + BINARY}
    differentiable = {op.name for op in registry.primitives(built_in_only=True) if not op.nondiff}
    unchecked = differentiable - swept - reached
    assert not unchecked, f"add these ops to a recipe (or declare them elementwise): {sorted(unchecked)}"
