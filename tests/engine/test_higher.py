"""tape.partials (every N-th order partial from univariate Taylor series) against nested
GradientTapes, SymPy, 30-digit mpmath closed forms, and the paper's own coefficient formula."""
import importlib.util
import itertools
import math
from fractions import Fraction
from pathlib import Path

import mpmath
import numpy as np
import pytest
import sympy as sp

import tape
from tape.calculus.derivatives import Component, multisets
from tape.calculus.derivatives import partials as nested_partials
from tape.engine.higher import MAX_PARTIALS, _block, multi_indices, partial_count


def nested(f, points, order):
    """Every partial by nested tapes (the CLI's way), columns in multiset order."""
    n = points.shape[1]
    comps = [Component(f"x{i}", i, None) for i in range(n)]
    _, got = nested_partials(f, [points[:, i] for i in range(n)], comps, order)
    return np.stack([got[k] for k in multi_indices(n, order)], axis=1)


# -- the convention ---------------------------------------------------------------------------
@pytest.mark.parametrize("n,order", [(1, 4), (2, 2), (3, 3), (4, 2), (6, 10), (10, 6)])
def test_order_and_count_are_the_cli_multisets(n, order):
    assert multi_indices(n, order) == multisets(n, order)
    assert len(multi_indices(n, order)) == partial_count(n, order) == math.comb(n + order - 1, order)
    got = tape.partials(lambda *xs: sum(xs) ** order, [0.5] * n, order)
    assert got.shape == (partial_count(n, order),)


def test_monomials_pick_out_their_own_partial():
    # d^i of prod_l x_l^e_l with |e| = |i| = N is e! when i = e and 0 otherwise
    n, order = 3, 5
    for k, target in enumerate(multi_indices(n, order)):
        e = tuple(target.count(v) for v in range(n))

        def f(*xs, e=e):
            out = 1.0
            for x, p in zip(xs, e):
                out = out * x ** p if p else out
            return out * (xs[0] * 0 + 1)
        got = tape.partials(f, [0.7, -1.3, 2.1], order)
        want = np.zeros(len(got))
        want[k] = math.prod(math.factorial(p) for p in e)
        np.testing.assert_allclose(got, want, rtol=1e-13, atol=1e-12 * want[k])


# -- the coefficients: closed form against the paper's formula ---------------------------------
def paper_gamma(i, j):
    """Griewank, Utke and Walther (2000): sum over 0 < k <= i of
    (-1)^{|i-k|} binom(i, k) binom(d k / |k|, j) (|k| / d)^d, in exact rationals."""
    d = sum(i)

    def gbinom(r, m):                        # binom(r, m) for rational r
        out = Fraction(1)
        for t in range(m):
            out *= (r - t) / Fraction(t + 1)
        return out
    total = Fraction(0)
    for k in itertools.product(*[range(v + 1) for v in i]):
        size = sum(k)
        if size == 0:
            continue
        term = Fraction((-1) ** (d - size)) * (Fraction(size, d) ** d)
        for il, kl, jl in zip(i, k, j):
            term *= math.comb(il, kl) * gbinom(Fraction(d * kl, size), jl)
        total += term
    return total


@pytest.mark.parametrize("s,d", [(1, 1), (1, 7), (2, 2), (2, 5), (3, 3), (3, 6), (4, 4)])
def test_coefficients_equal_the_papers_formula_rounded_once(s, d):
    compositions, J, gamma = _block(s, d)
    assert len(compositions) == math.comb(d - 1, s - 1)
    for r, i in enumerate(compositions):
        for c, j in enumerate(J):
            exact = paper_gamma(tuple(int(v) for v in i), tuple(int(v) for v in j))
            assert gamma[r, c] == float(exact), (i, j)


# -- against nested GradientTapes ---------------------------------------------------------------
FUNCTIONS = {
    "polynomial": lambda *x: sum((k + 1) * v ** (k + 2) for k, v in enumerate(x)) * x[0] + x[-1] ** 3 * x[0],
    "exp*sin": lambda *x: tape.exp(0.3 * sum(x)) * tape.sin(x[0] * x[-1] + 0.5),
    "log": lambda *x: tape.log(2.0 + sum(v * v for v in x)) * x[0],
    "rational": lambda *x: (1 + x[0] * x[-1]) / (1.5 + sum(x) ** 2),
}


@pytest.mark.parametrize("name", sorted(FUNCTIONS))
@pytest.mark.parametrize("n,order", [(1, 2), (1, 7), (2, 2), (2, 6), (3, 4), (4, 3), (5, 2), (10, 2),
                                     (3, 5)])
def test_matches_nested_tapes_on_a_batch(name, n, order):
    f = FUNCTIONS[name]
    points = np.random.default_rng(n * 10 + order).uniform(-0.6, 0.6, (3, n))
    got = tape.partials(f, points, order)
    want = nested(f, points, order)
    assert got.shape == want.shape == (3, partial_count(n, order))
    scale = np.max(np.abs(want), axis=1, keepdims=True)
    assert np.all(np.abs(got - want) <= 1e-12 * scale), np.max(np.abs(got - want) / scale)


def test_one_point_is_the_row_of_a_batch():
    f = FUNCTIONS["exp*sin"]
    points = np.array([[0.1, 0.2, 0.3], [0.4, -0.5, 0.6]])
    batch = tape.partials(f, points, 4)
    for p in range(2):
        one = tape.partials(f, points[p], 4)
        assert np.max(np.abs(one - batch[p])) <= 1e-14 * np.max(np.abs(batch[p]))


def test_order_0_is_the_value_and_order_1_the_gradient():
    f = FUNCTIONS["rational"]
    x = np.array([0.3, -0.2, 0.5])
    assert tape.partials(f, x, 0) == pytest.approx([float(f(*x))], rel=1e-15)
    g = tape.grad(lambda v: f(v[0], v[1], v[2]))(x).numpy()
    np.testing.assert_allclose(tape.partials(f, x, 1), g, rtol=1e-14)


def test_a_constant_function_and_an_unused_variable():
    assert np.all(tape.partials(lambda x, y: 3.0, [1.0, 2.0], 3) == 0)
    got = tape.partials(lambda x, y: x ** 4, [2.0, 5.0], 3)      # xxx, xxy, xyy, yyy
    np.testing.assert_allclose(got, [48.0, 0, 0, 0], atol=1e-12)


# -- against SymPy, exactly -----------------------------------------------------------------------
X, Y, Z = sp.symbols("x y z")
SYMPY_CASES = {
    "exp(x*y)*sin(z)": (lambda x, y, z: tape.exp(x * y) * tape.sin(z), sp.exp(X * Y) * sp.sin(Z)),
    "log(1+x^2+y*z)/(2+x)": (lambda x, y, z: tape.log(1 + x * x + y * z) / (2 + x),
                             sp.log(1 + X ** 2 + Y * Z) / (2 + X)),
    "(x+2y)^7 z": (lambda x, y, z: (x + 2 * y) ** 7 * z, (X + 2 * Y) ** 7 * Z),
}


@pytest.mark.parametrize("name", sorted(SYMPY_CASES))
@pytest.mark.parametrize("order", [2, 3, 4, 6])
def test_matches_sympy(name, order):
    f, expr = SYMPY_CASES[name]
    at = {X: sp.Rational(3, 10), Y: sp.Rational(-1, 5), Z: sp.Rational(7, 10)}
    got = tape.partials(f, [0.3, -0.2, 0.7], order)
    scale = np.max(np.abs(got))                      # exact zeros come out at rounding level
    symbols = (X, Y, Z)
    cache = {(): expr}
    for k, multiset in enumerate(multi_indices(3, order)):
        for m in range(1, order + 1):
            if multiset[:m] not in cache:
                cache[multiset[:m]] = sp.diff(cache[multiset[:m - 1]], symbols[multiset[m - 1]])
        want = float(cache[multiset].evalf(30, subs=at))
        assert got[k] == pytest.approx(want, rel=1e-11, abs=1e-14 * scale), (name, multiset)


# -- 30-digit closed forms, up to 10 variables and order 10 -------------------------------------
def _accuracy_script():
    path = Path(__file__).resolve().parents[2] / "benchmarks" / "higher_accuracy.py"
    spec = importlib.util.spec_from_file_location("tape_higher_accuracy", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


ACCURACY = _accuracy_script()          # its 30-digit Leibniz references, checked against SymPy
leibniz_reference = ACCURACY.ridge_product_partials
POSITIVE, OSCILLATING = ACCURACY.POSITIVE, ACCURACY.OSCILLATING


def test_the_closed_form_references_agree_with_sympy():
    ACCURACY.check_closed_form_against_sympy()


@pytest.mark.parametrize("n,order,rtol", [(1, 10, 1e-13), (2, 10, 1e-12), (3, 8, 1e-12), (4, 10, 1e-11),
                                          (6, 6, 1e-12), (6, 10, 1e-10), (10, 6, 1e-11), (10, 4, 1e-12)])
def test_positive_function_to_30_digits(n, order, rtol):
    # exp(a.x) / (1 - b.x), a, b > 0: every partial is a sum of positive terms, so each one is
    # checked relative to itself
    rng = np.random.default_rng(n + 100 * order)
    a, b = rng.uniform(0.2, 1.0, n), rng.uniform(0.05, 0.15, n)
    point = rng.uniform(-0.5, 0.5, n)
    f = lambda *x: tape.exp(sum(p * v for p, v in zip(a, x))) / (1 - sum(p * v for p, v in zip(b, x)))
    got = tape.partials(f, point, order)
    every = multi_indices(n, order)
    picked = sorted(rng.choice(len(every), size=min(len(every), 60), replace=False))
    want = leibniz_reference(point, a, b, *POSITIVE, [every[k] for k in picked])
    rel = [abs(got[k] - float(w)) / float(w) for k, w in zip(picked, want)]
    assert max(rel) < rtol


@pytest.mark.parametrize("n,order", [(2, 8), (5, 6), (6, 10)])
def test_oscillating_function_to_30_digits(n, order):
    # sin(a.x + 0.3) exp(b.x) with signs mixed: partials of every size, normwise error
    rng = np.random.default_rng(7 * n + order)
    a, b = rng.uniform(-1, 1, n), rng.uniform(-0.5, 0.5, n)
    point = rng.uniform(-0.5, 0.5, n)
    f = lambda *x: tape.sin(sum(p * v for p, v in zip(a, x)) + 0.3) * tape.exp(sum(p * v for p, v in zip(b, x)))
    got = tape.partials(f, point, order)
    every = multi_indices(n, order)
    picked = sorted(rng.choice(len(every), size=min(len(every), 60), replace=False))
    want = np.array([float(w) for w in leibniz_reference(point, a, b, *OSCILLATING,
                                                         [every[k] for k in picked])])
    assert np.max(np.abs(got[picked] - want)) < 1e-10 * np.max(np.abs(want))


# -- bad input ------------------------------------------------------------------------------------
def test_bad_input_is_refused_clearly():
    f = lambda x, y: x * y
    with pytest.raises(TypeError, match="order must be a non-negative integer"):
        tape.partials(f, [1.0, 2.0], 2.5)
    with pytest.raises(ValueError, match="order must be a non-negative integer"):
        tape.partials(f, [1.0, 2.0], -1)
    with pytest.raises(ValueError, match=r"x must have shape \(n,\)"):
        tape.partials(f, [[[1.0, 2.0]]], 2)
    with pytest.raises(ValueError, match="one value per point"):
        tape.partials(lambda x, y: tape.stack([x, y]), [1.0, 2.0], 2)
    with pytest.raises(ValueError, match=f"the limit is {MAX_PARTIALS}"):
        tape.partials(f, np.ones(20), 10)


# -- one variable: tape.derivative up to order 30, and a clear limit ------------------------------
ONE_VARIABLE = {
    "sin*exp": (lambda x: tape.sin(x) * tape.exp(x), lambda x: mpmath.sin(x) * mpmath.exp(x)),
    "1/(1+x^2)": (lambda x: 1 / (1 + x * x), lambda x: 1 / (1 + x * x)),
    "log(2+x)*cos(x)": (lambda x: tape.log(2 + x) * tape.cos(x), lambda x: mpmath.log(2 + x) * mpmath.cos(x)),
    "exp(sin(x))": (lambda x: tape.exp(tape.sin(x)), lambda x: mpmath.exp(mpmath.sin(x))),
}


@pytest.mark.parametrize("name", sorted(ONE_VARIABLE))
def test_derivative_orders_up_to_30_match_mpmath(name):
    f, reference = ONE_VARIABLE[name]
    with mpmath.workdps(30):
        coefficients = mpmath.taylor(reference, mpmath.mpf(3) / 10, 30)
    for order in range(2, 31):
        want = float(coefficients[order] * mpmath.factorial(order))
        got = float(tape.derivative(f, 0.3, order=order))
        assert got == pytest.approx(want, rel=1e-9), (name, order)
    at_points = tape.derivative(f, np.array([0.3, -0.4, 0.8]), order=30).numpy()
    assert at_points[0] == pytest.approx(got, rel=1e-13)


@pytest.mark.parametrize("order", [171, 1000])
def test_derivative_beyond_order_170_is_refused_clearly(order):
    with pytest.raises(ValueError, match="beyond Taylor mode's limit of 170"):
        tape.derivative(tape.sin, 0.3, order=order)
    assert float(tape.derivative(tape.sin, 0.3, order=170)) == pytest.approx(-np.sin(0.3), rel=1e-12)


# -- every order at once ----------------------------------------------------------------------------
@pytest.mark.parametrize("n,order", [(1, 6), (3, 5), (6, 4)])
def test_partials_up_to_gives_each_order_as_partials_does(n, order):
    f = FUNCTIONS["exp*sin"]
    points = np.random.default_rng(n).uniform(-0.5, 0.5, (2, n))
    every = tape.partials_up_to(f, points, order)
    assert len(every) == order + 1
    for k in range(order + 1):
        np.testing.assert_allclose(every[k], tape.partials(f, points, k), rtol=1e-14, atol=0)
    np.testing.assert_allclose(every[2], nested(f, points, 2), rtol=1e-12)


def test_partials_up_to_refuses_bad_orders():
    with pytest.raises(TypeError, match="partials_up_to: order must be a non-negative integer"):
        tape.partials_up_to(lambda x: x, [1.0], 1.5)
    with pytest.raises(ValueError, match="partials_up_to: order must be a non-negative integer"):
        tape.partials_up_to(lambda x: x, [1.0], -2)


def test_a_constant_is_a_constant_at_every_order():
    # K = order + 1 equal to the number of directions must not confuse the series and batch axes
    value, gradient, *higher = tape.partials_up_to(lambda x, y: 3.0, [1.0, 2.0], 3)
    assert value.tolist() == [3.0] and gradient.tolist() == [0.0, 0.0]
    assert all(np.all(h == 0) for h in higher)


@pytest.mark.parametrize("n,order", [(34, 3), (36, 3), (38, 3), (41, 2), (29, 4), (66, 1), (70, 1)])
def test_many_variables_where_a_mixed_radix_code_overflows(n, order):
    """(order+1)^n passes 2^63 here; every partial of exp(w.x) is exp(w.x) times the product of
    the w's its multiset picks, so each is checked against its own closed form."""
    rng = np.random.default_rng(n)
    w, x = rng.uniform(0.5, 1.5, n), rng.uniform(-0.5, 0.5, n)
    got = tape.partials(lambda *xs: tape.exp(sum(wl * xl for wl, xl in zip(w, xs))), x, order)
    value = math.exp(float(w @ x))
    want = np.array([value * np.prod(w[list(m)]) for m in multi_indices(n, order)])
    np.testing.assert_allclose(got, want, rtol=1e-12)
