"""The gradcheck / gradgradcheck cases of PyTorch's ``method_tests()`` table
(torch/testing/_internal/common_methods_invocations.py, run by test/test_autograd.py as
``test_<name>[_<variant>]``), for the ops docs/torch.md lists: each op's first and second
derivatives against central differences, as ``run_grad_and_gradgrad_checks`` does. Inputs keep
away from each op's kinks and poles as the table's do (positive where a log or root needs it).
``TAPE_TORCH_REFERENCE=1`` runs this very file on PyTorch.
"""
import numpy as np
import pytest
from torch_port import gradcheck, gradgradcheck, torch

S = 3
_rng = np.random.default_rng(1234)


def _arg(spec):
    """An input: a shape (standard normal values) or (shape, low, high) (uniform)."""
    if isinstance(spec, tuple) and len(spec) == 3 and isinstance(spec[1], float):
        shape, lo, hi = spec
        values = _rng.uniform(lo, hi, shape)
    else:
        values = _rng.standard_normal(spec)
    return torch.tensor(values.tolist() if values.ndim else float(values), requires_grad=True)


def _distinct(shape):
    """Values with no ties and no two within 0.1 of each other (max/min/abs stay smooth)."""
    n = int(np.prod(shape))
    values = (_rng.permutation(n) - n / 2 + 0.25) * 0.3
    return torch.tensor(values.reshape(shape).tolist(), requires_grad=True)


POS = ((S, S), 0.5, 2.0)
UNIT = ((S, S), -0.8, 0.8)

CASES = [
    # elementwise, one input
    ("sin", lambda x: torch.sin(x), [(S, S)]),
    ("cos", lambda x: x.cos(), [(S, S)]),
    ("tan", lambda x: torch.tan(x), [UNIT]),
    ("asin", lambda x: torch.asin(x), [UNIT]),
    ("acos", lambda x: x.acos(), [UNIT]),
    ("atan", lambda x: torch.atan(x), [(S, S)]),
    ("sinh", lambda x: torch.sinh(x), [(S, S)]),
    ("cosh", lambda x: torch.cosh(x), [(S, S)]),
    ("tanh", lambda x: x.tanh(), [(S, S)]),
    ("asinh", lambda x: torch.asinh(x), [(S, S)]),
    ("acosh", lambda x: torch.acosh(x), [((S, S), 1.5, 3.0)]),
    ("atanh", lambda x: torch.atanh(x), [UNIT]),
    ("exp", lambda x: torch.exp(x), [(S, S)]),
    ("expm1", lambda x: torch.expm1(x), [(S, S)]),
    ("log", lambda x: torch.log(x), [POS]),
    ("log1p", lambda x: x.log1p(), [POS]),
    ("sqrt", lambda x: torch.sqrt(x), [POS]),
    ("rsqrt", lambda x: torch.rsqrt(x), [POS]),
    ("reciprocal", lambda x: torch.reciprocal(x), [POS]),
    ("square", lambda x: torch.square(x), [(S, S)]),
    ("sigmoid", lambda x: torch.sigmoid(x), [(S, S)]),
    ("relu", lambda x: torch.relu(x), ["distinct"]),
    ("erf", lambda x: torch.erf(x), [(S, S)]),
    ("neg", lambda x: -x, [(S, S)]),
    ("abs", lambda x: torch.abs(x), ["distinct"]),
    # elementwise, two inputs, with broadcasting
    ("add", lambda x, y: x + y, [(S, S, S), (S, S, S)]),
    ("add_broadcast_rhs", lambda x, y: torch.add(x, y), [(S, S, S), (S, S)]),
    ("add_broadcast_lhs", lambda x, y: x.add(y), [(S, S), (S, S, S)]),
    ("add_scalar", lambda x: x + 3.14, [(S, S)]),
    ("add_alpha", lambda x, y: torch.add(x, y, alpha=2.5), [(S, S), (S, S)]),
    ("sub", lambda x, y: x - y, [(S, S), (S, S)]),
    ("sub_broadcast_rhs", lambda x, y: torch.sub(x, y), [(S, S, S), (S,)]),
    ("rsub_scalar", lambda x: 3.14 - x, [(S, S)]),
    ("mul", lambda x, y: x * y, [(S, S, S), (S, S, S)]),
    ("mul_broadcast_all", lambda x, y: torch.mul(x, y), [(S, 1, S), (1, S, 1)]),
    ("mul_scalar", lambda x: x * 3.14, [(S, S)]),
    ("div", lambda x, y: x / y, [(S, S), POS]),
    ("div_broadcast_rhs", lambda x, y: torch.div(x, y), [(S, S), ((S,), 0.5, 2.0)]),
    ("rdiv_scalar", lambda x: 3.14 / x, [POS]),
    ("pow", lambda x, y: x ** y, [POS, (S, S)]),
    ("pow_broadcast_rhs", lambda x, y: torch.pow(x, y), [POS, (S,)]),
    ("pow_scalar", lambda x: x.pow(3.0), [(S, S)]),
    ("pow_scalar_base", lambda x: torch.pow(2, x), [(S, S)]),
    ("maximum", lambda x, y: torch.maximum(x, y), ["distinct", "distinct"]),
    ("minimum", lambda x, y: torch.minimum(x, y), ["distinct", "distinct"]),
    ("atan2", lambda x, y: torch.atan2(x, y), [(S, S), POS]),
    ("remainder", lambda x: torch.remainder(x, 1.5), [((S, S), 0.1, 1.4)]),
    ("clamp", lambda x: torch.clamp(x, -1.0, 1.0), ["distinct"]),
    ("where", lambda x, y: torch.where(x > 0, x, y), ["distinct", (S, S)]),
    # reductions
    ("sum", lambda x: x.sum(), [(S, S, S)]),
    ("sum_dim", lambda x: torch.sum(x, 1), [(S, S, S)]),
    ("sum_keepdim_dim", lambda x: x.sum(-1, keepdim=True), [(S, S, S)]),
    ("sum_multi_dim", lambda x: x.sum((0, 2)), [(S, S, S)]),
    ("mean", lambda x: x.mean(), [(S, S, S)]),
    ("mean_dim", lambda x: torch.mean(x, 1), [(S, S, S)]),
    ("prod", lambda x: x.prod(), [((S, S), 0.5, 1.5)]),
    ("prod_dim", lambda x: torch.prod(x, 1), [((S, S), 0.5, 1.5)]),
    ("amax", lambda x: torch.amax(x, 1), ["distinct"]),
    ("amin", lambda x: x.amin(), ["distinct"]),
    ("max_dim", lambda x: torch.max(x, 1)[0], ["distinct"]),
    ("max_dim_keepdim", lambda x: x.max(0, keepdim=True).values, ["distinct"]),
    ("min_dim", lambda x: torch.min(x, -1)[0], ["distinct"]),
    ("max", lambda x: x.max(), ["distinct"]),
    ("min", lambda x: torch.min(x), ["distinct"]),
    ("logsumexp", lambda x: torch.logsumexp(x, 1), [(S, S)]),
    ("norm", lambda x: x.norm(), [(S, S)]),
    ("norm_dim", lambda x: torch.norm(x, dim=1), [(S, S)]),
    ("norm_3", lambda x: x.norm(3), [POS]),
    ("norm_1", lambda x: x.norm(1), ["distinct"]),
    ("var", lambda x: x.var(), [(S, S)]),
    ("var_dim", lambda x: torch.var(x, 1), [(S, S)]),
    ("std", lambda x: x.std(), [(S, S)]),
    ("std_dim_keepdim", lambda x: torch.std(x, 0, keepdim=True), [(S, S)]),
    # linear algebra
    ("matmul", lambda x, y: x @ y, [(S, 2), (2, S)]),
    ("matmul_broadcast", lambda x, y: torch.matmul(x, y), [(2, S, 2), (2, S)]),
    ("mm", lambda x, y: torch.mm(x, y), [(S, 2), (2, S)]),
    ("mv", lambda x, y: torch.mv(x, y), [(S, 2), (2,)]),
    ("dot", lambda x, y: torch.dot(x, y), [(S,), (S,)]),
    ("bmm", lambda x, y: torch.bmm(x, y), [(2, S, 2), (2, 2, S)]),
    ("outer", lambda x, y: torch.outer(x, y), [(S,), (2,)]),
    # shapes and indexing
    ("reshape", lambda x: x.reshape(S * S), [(S, S)]),
    ("view", lambda x: x.view(S, 1, S), [(S, S)]),
    ("flatten", lambda x: torch.flatten(x), [(S, 2, S)]),
    ("permute", lambda x: x.permute(2, 0, 1), [(S, 2, S)]),
    ("transpose", lambda x: torch.transpose(x, 0, 2), [(S, 2, S)]),
    ("t", lambda x: x.t(), [(S, 2)]),
    ("T", lambda x: x.T, [(S, 2)]),
    ("unsqueeze", lambda x: x.unsqueeze(1), [(S, S)]),
    ("squeeze", lambda x: torch.squeeze(x), [(S, 1, S)]),
    ("expand", lambda x: x.expand(2, S, S), [(1, S)]),
    ("cat", lambda x, y: torch.cat([x, y], 1), [(S, 1), (S, 2)]),
    ("stack", lambda x, y: torch.stack([x, y], 0), [(S,), (S,)]),
    ("unbind", lambda x: x.unbind(1), [(S, 2)]),
    ("index_basic", lambda x: x[1, 1:], [(S, S)]),
    ("index_adv", lambda x: x[[0, 2, 0]], [(S, S)]),
    ("index_bool", lambda x: x[x > 0], ["distinct"]),
    ("softmax", lambda x: torch.softmax(x, 1), [(S, S)]),
    ("log_softmax", lambda x: x.log_softmax(0), [(S, S)]),
]


@pytest.mark.parametrize("fn, specs", [pytest.param(fn, specs, id=f"test_{name}")
                                       for name, fn, specs in CASES])
def test_method_tests(fn, specs):
    inputs = [_distinct((S, S)) if spec == "distinct" else _arg(spec) for spec in specs]
    assert gradcheck(fn, inputs)
    assert gradgradcheck(fn, inputs)
