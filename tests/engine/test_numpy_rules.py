"""NumPy functions with NumPy's own arguments: values equal NumPy's, gradients (to second order,
through nested tapes) equal finite differences. Issue 37's list of functions without rules."""
import numpy as np
import pytest

import tape
from _gradcheck import check

rng = np.random.default_rng(37)


def U(shape, lo=-1.5, hi=1.5):
    return rng.uniform(lo, hi, shape)


CASES = {
    "var": (lambda a: np.var(a), [(3, 4)]),
    "var axis ddof keepdims": (lambda a: np.var(a, axis=1, ddof=1, keepdims=True), [(3, 4)]),
    "std axis": (lambda a: np.std(a, axis=0), [(3, 4)]),
    "std ddof tuple axis": (lambda a: np.std(a, axis=(0, 2), ddof=1), [(2, 3, 4)]),
    "mean dtype": (lambda a: np.mean(a, axis=-1, keepdims=True), [(2, 3)]),
    "kron": (lambda a, b: np.kron(a, b), [(2, 3), (3, 2)]),
    "kron 1-d 2-d": (lambda a, b: np.kron(a, b), [(3,), (2, 2)]),
    "cross 3": (lambda a, b: np.cross(a, b), [(4, 3), (3,)]),
    "cross 3 and 3 broadcast": (lambda a, b: np.cross(a, b), [(2, 1, 3), (4, 3)]),
    "cross 2": (lambda a, b: np.cross(a, b), [(4, 2), (4, 2)]),
    "cross 2 and 3": (lambda a, b: np.cross(a, b), [(2,), (3,)]),
    "cross axis": (lambda a, b: np.cross(a, b, axisa=0, axisb=0, axisc=0), [(3, 2), (3, 2)]),
    "logaddexp2": (lambda a, b: np.logaddexp2(a, b), [(2, 3), (3,)]),
    "logaddexp shapes": (lambda a: np.logaddexp(0, a), [(2, 3)]),
    "sinc": (lambda a: np.sinc(a), [(5,)]),
    "deg2rad": (lambda a: np.deg2rad(a) + np.radians(a), [(3,)]),
    "rad2deg": (lambda a: np.rad2deg(a) + np.degrees(a), [(3,)]),
    "nan_to_num": (lambda a: np.nan_to_num(a), [(3,)]),
    "repeat": (lambda a: np.repeat(a, 2, axis=1), [(2, 3)]),
    "repeat list": (lambda a: np.repeat(a, [1, 0, 3]), [(3,)]),
    "gradient": (lambda a: np.gradient(a), [(5,)]),
    "gradient 2-d": (lambda a: np.stack(np.gradient(a, 0.5, edge_order=2)), [(4, 5)]),
    "moveaxis": (lambda a: np.moveaxis(a, 0, -1), [(2, 3, 4)]),
    "swapaxes": (lambda a: np.swapaxes(a, 0, 2), [(2, 3, 4)]),
    "rollaxis": (lambda a: np.rollaxis(a, 2, 1), [(2, 3, 4)]),
    "diff": (lambda a: np.diff(a, n=2, axis=0), [(4, 3)]),
    "diff prepend": (lambda a: np.diff(a, prepend=0.5, append=a[..., :1]), [(2, 3)]),
    "pad constant": (lambda a: np.pad(a, ((1, 2), (0, 1)), constant_values=3.0), [(2, 3)]),
    "pad reflect": (lambda a: np.pad(a, 2, mode="reflect"), [(3, 4)]),
    "pad edge": (lambda a: np.pad(a, (1, 2), mode="edge"), [(4,)]),
    "pad wrap": (lambda a: np.pad(a, 1, mode="wrap"), [(3, 3)]),
    "tril": (lambda a: np.tril(a, -1), [(3, 4)]),
    "triu": (lambda a: np.triu(a, 1), [(2, 3, 3)]),
    "partition": (lambda a: np.partition(a, 2), [(2, 5)]),
    "diag k": (lambda a: np.diag(a, 1), [(3, 3)]),
    "diag 1-d": (lambda a: np.diag(a, -2), [(3,)]),
    "diagonal": (lambda a: np.diagonal(a, 1, 1, 2), [(2, 3, 4)]),
    "trace offset": (lambda a: np.trace(a, offset=-1), [(3, 3)]),
    "trace axes": (lambda a: np.trace(a, 1, axis1=2, axis2=0), [(3, 2, 4)]),
    "sort": (lambda a: np.sort(a, axis=0), [(4, 3)]),
    "sort none": (lambda a: np.sort(a, axis=None), [(2, 3)]),
    "roll": (lambda a: np.roll(a, 2), [(2, 3)]),
    "roll axes": (lambda a: np.roll(a, (1, -1), axis=(0, 1)), [(2, 3)]),
    "flipud": (lambda a: np.flipud(a), [(2, 3)]),
    "fliplr": (lambda a: np.fliplr(a), [(2, 3)]),
    "rot90": (lambda a: np.rot90(a, 3), [(2, 3)]),
    "atleast_2d": (lambda a: np.atleast_2d(a), [(3,)]),
    "atleast_3d": (lambda a: np.atleast_3d(a), [(2, 3)]),
    "vstack": (lambda a, b: np.vstack([a, b]), [(3,), (2, 3)]),
    "hstack": (lambda a, b: np.hstack([a, b, np.ones(2)]), [(2,), (3,)]),
    "column_stack": (lambda a, b: np.column_stack([a, b]), [(3,), (3, 2)]),
    "dstack": (lambda a, b: np.dstack([a, b]), [(2, 3), (2, 3)]),
    "split": (lambda a: np.split(a, [1, 3], axis=1)[1], [(2, 4)]),
    "array_split": (lambda a: np.array_split(a, 3)[0], [(5,)]),
    "vsplit": (lambda a: np.vsplit(a, 2)[1], [(4, 2)]),
    "hsplit": (lambda a: np.hsplit(a, 2)[0], [(2, 4)]),
    "dsplit": (lambda a: np.dsplit(a, [1])[1], [(2, 2, 3)]),
    "append": (lambda a, b: np.append(a, b), [(2, 2), (3,)]),
    "append axis": (lambda a, b: np.append(a, b, axis=0), [(2, 2), (1, 2)]),
    "select": (lambda a, b: np.select([np.array([True, False, False]), np.array([False, True, False])],
                                      [a, b], default=-1.0), [(3,), (3,)]),
    "linspace": (lambda a, b: np.linspace(a, b, 5), [(), ()]),
    "linspace arrays": (lambda a, b: np.linspace(a, b, 4, endpoint=False, axis=1), [(2,), (2,)]),
    "flip": (lambda a: np.flip(a, 1), [(2, 3)]),
    "take": (lambda a: np.take(a, [2, 0, 2]), [(2, 2)]),
    "cumprod": (lambda a: np.cumprod(a, axis=1), [(2, 4)]),
    "cumprod flat": (lambda a: np.cumprod(a), [(2, 3)]),
    "ptp": (lambda a: np.ptp(a, axis=0), [(3, 2)]),
    "compress": (lambda a: np.compress([True, False, True], a, axis=1), [(2, 3)]),
    "copysign": (lambda a: np.copysign(a, np.array([1.0, -1.0, -2.0])), [(3,)]),
    "fmod": (lambda a: np.fmod(a * 3.0, 0.7), [(3,)]),
    "ldexp": (lambda a: np.ldexp(a, np.array([1, -2, 3])), [(3,)]),
    "modf": (lambda a: np.modf(a * 3.0)[0], [(3,)]),
    "einsum interleaved": (lambda a, b: np.einsum(a, [0, 1], b, [1, 2], [0, 2]), [(2, 3), (3, 4)]),
    "einsum interleaved ellipsis": (lambda a, b: np.einsum(a, [Ellipsis, 1], b, [1]), [(2, 3), (3,)]),
    "fft real": (lambda a: np.real(np.fft.fft(a)) + np.imag(np.fft.fft(a)) ** 2, [(2, 5)]),
    "ifft2 ortho": (lambda a: np.abs(np.fft.ifft2(a + 0.1, norm="ortho")), [(3, 4)]),
    "rfft odd": (lambda a: np.real(np.fft.rfft(a, n=5)) * np.imag(np.fft.rfft(a, n=5)), [(2, 6)]),
    "irfft": (lambda a, b: np.fft.irfft(a + 1j * b, n=7), [(4,), (4,)]),
    "irfftn": (lambda a: np.fft.irfftn(np.fft.rfftn(a) * 1.5), [(3, 4)]),
    "fftshift": (lambda a: np.fft.fftshift(a) * np.fft.ifftshift(a), [(5,)]),
    # ndarray methods and attributes
    ".T": (lambda a: a.T, [(2, 3)]),
    ".reshape(*shape)": (lambda a: a.reshape(3, 2), [(2, 3)]),
    ".reshape(shape)": (lambda a: a.reshape((6,)), [(2, 3)]),
    ".ravel .flatten": (lambda a: a.ravel() * a.flatten(), [(2, 3)]),
    ".squeeze": (lambda a: a.squeeze(), [(1, 3)]),
    ".astype": (lambda a: a.astype(np.float64) * 2, [(3,)]),
    ".sum .mean": (lambda a: a.sum(axis=0) + a.mean(axis=0, keepdims=True), [(2, 3)]),
    ".prod": (lambda a: a.prod(axis=1), [(2, 3)]),
    ".max .min": (lambda a: a.max(axis=1) - a.min(), [(2, 3)]),
    ".dot": (lambda a, b: a.dot(b), [(2, 3), (3,)]),
    ".transpose": (lambda a: a.transpose(2, 0, 1) + a.transpose((2, 0, 1)), [(2, 3, 4)]),
    ".clip": (lambda a: (a * 3.0 + 0.05).clip(-1.0, 1.0), [(2, 3)]),
    ".var .std": (lambda a: a.var(axis=0, ddof=1) + a.std(), [(3, 2)]),
    ".trace .diagonal": (lambda a: a.trace(1) + a.diagonal().sum(), [(3, 3)]),
    ".cumsum .cumprod": (lambda a: a.cumsum(axis=0) + a.cumprod(axis=0), [(3, 2)]),
    ".repeat .swapaxes .take": (lambda a: a.repeat(2, axis=0).swapaxes(0, 1).take([1, 3], axis=1),
                                [(2, 3)]),
    ".conj .copy": (lambda a: a.conj() * a.copy(), [(3,)]),
}


@pytest.mark.filterwarnings("ignore:Arrays of 2-dimensional vectors:DeprecationWarning")
@pytest.mark.parametrize("name", sorted(CASES))
def test_value_and_second_order_gradient(name):
    f, shapes = CASES[name]
    args = [U(s) for s in shapes]
    if name in (".clip", "fmod", "modf"):         # away from the kinks
        args = [np.round(a, 1) + 0.03 for a in args]
    out = f(*[tape.constant(a) for a in args])
    assert isinstance(out, tape.Tensor), type(out)
    np.testing.assert_allclose(out.numpy(), f(*args), rtol=1e-12, atol=1e-13)
    check(f, args, label=name)


def test_sinc_at_zero_has_numpys_value_and_the_series_slopes():
    x = tape.constant([0.0, 1e-6])
    with tape.GradientTape() as t2:
        t2.watch(x)
        with tape.GradientTape() as t1:
            t1.watch(x)
            y = np.sinc(x)
        g = t1.gradient(y, x)
    h = t2.gradient(g, x)
    np.testing.assert_allclose(y.numpy(), np.sinc([0.0, 1e-6]))
    np.testing.assert_allclose(g.numpy(), [0.0, -np.pi ** 2 / 3 * 1e-6], atol=1e-12)
    np.testing.assert_allclose(h.numpy(), [-np.pi ** 2 / 3] * 2, rtol=1e-6)


def test_nan_to_num_passes_the_gradient_only_where_finite():
    x = tape.constant([1.0, np.nan, np.inf, -np.inf])
    with tape.GradientTape() as t:
        t.watch(x)
        y = np.nan_to_num(x, posinf=5.0)
    np.testing.assert_array_equal(y.numpy(), np.nan_to_num(x.numpy(), posinf=5.0))
    np.testing.assert_array_equal(t.gradient(y, x).numpy(), [1.0, 0.0, 0.0, 0.0])


def test_real_if_close_drops_a_tiny_imaginary_part():
    z = tape.constant(np.array([1.0 + 1e-20j, 2.0]))
    assert np.real_if_close(z).dtype == tape.float64
    assert np.real_if_close(tape.constant(np.array([1.0 + 1j]))).dtype == tape.complex128


def test_trace_of_issue_37():
    w = tape.constant(np.arange(1.0, 10.0))
    with tape.GradientTape() as t:
        t.watch(w)
        y = np.trace(np.reshape(w, (3, 3)), offset=1) ** 2
    assert float(y) == pytest.approx(64.0)
    np.testing.assert_allclose(t.gradient(y, w).numpy(), [0, 16, 0, 0, 0, 16, 0, 0, 0])
    a = np.arange(24.0).reshape(2, 3, 4)
    np.testing.assert_array_equal(np.trace(tape.constant(a)).numpy(), [16, 18, 20, 22])


def test_split_gives_every_part():
    a = U((2, 5))
    parts = np.array_split(tape.constant(a), 3, axis=1)
    for p, q in zip(parts, np.array_split(a, 3, axis=1)):
        np.testing.assert_array_equal(p.numpy(), q)
    with pytest.raises(ValueError, match="equal division"):
        np.split(tape.constant(a), 3, axis=1)


# -- np.linalg -------------------------------------------------------------------------------------
def _spd(a):
    """A symmetric positive definite matrix from any square ``a`` (tensor or array)."""
    return a @ np.swapaxes(a, -1, -2) + 3.0 * np.eye(a.shape[-1])


def _sym(a):
    return (a + np.swapaxes(a, -1, -2)) * 0.5


def _fix_sign(v):
    """Eigen/singular vectors are defined up to sign: make each column's largest entry positive."""
    idx = np.argmax(np.abs(v.numpy() if isinstance(v, tape.Tensor) else v), axis=-2)
    signs = np.sign(np.take_along_axis(v.numpy() if isinstance(v, tape.Tensor) else v,
                                       idx[..., None, :], axis=-2))
    return v * signs


LINALG = {
    "slogdet": (lambda a: np.linalg.slogdet(a)[1], [(3, 3)]),
    "slogdet batch": (lambda a: np.linalg.slogdet(a)[1], [(2, 3, 3)]),
    "solve 1-d": (lambda a, b: np.linalg.solve(a + 3 * np.eye(3), b), [(3, 3), (3,)]),
    "solve batch 1-d": (lambda a, b: np.linalg.solve(a + 3 * np.eye(3), b), [(2, 3, 3), (3,)]),
    "norm 3": (lambda a: np.linalg.norm(a, 3), [(4,)]),
    "norm 4 axis": (lambda a: np.linalg.norm(a, 4, axis=1), [(2, 3)]),
    "norm 0.5": (lambda a: np.linalg.norm(a + 2.0, 0.5), [(3,)]),
    "norm inf": (lambda a: np.linalg.norm(a, np.inf), [(5,)]),
    "norm matrix 1": (lambda a: np.linalg.norm(a, 1), [(3, 4)]),
    "norm matrix -inf": (lambda a: np.linalg.norm(a, -np.inf), [(3, 4)]),
    "norm fro keepdims": (lambda a: np.linalg.norm(a, "fro", axis=(0, 2), keepdims=True), [(2, 3, 4)]),
    "norm nuc": (lambda a: np.linalg.norm(a, "nuc"), [(3, 4)]),
    "norm 2 matrix": (lambda a: np.linalg.norm(a, 2), [(4, 3)]),
    "norm -2 matrix axes": (lambda a: np.linalg.norm(a, -2, axis=(2, 0)), [(3, 2, 3)]),
    "svd s": (lambda a: np.linalg.svd(a, compute_uv=False), [(3, 4)]),
    "svd uv tall": (lambda a: (lambda u, s, vh: _fix_sign(u) * s)(*np.linalg.svd(a, full_matrices=False)),
                    [(4, 3)]),
    "svd uv wide": (lambda a: (lambda u, s, vh: _fix_sign(np.swapaxes(vh, -1, -2)))(
        *np.linalg.svd(a, full_matrices=False)), [(2, 4)]),
    "svd square": (lambda a: (lambda u, s, vh: np.sum(u @ vh) + np.sum(s ** 2))(*np.linalg.svd(a)), [(3, 3)]),
    "eigh values": (lambda a: np.linalg.eigh(_sym(a))[0], [(3, 3)]),
    "eigh vectors": (lambda a: _fix_sign(np.linalg.eigh(_sym(a))[1]), [(3, 3)]),
    "eigh upper": (lambda a: np.linalg.eigh(a, UPLO="U")[0] ** 2, [(3, 3)]),
    "eigh lower reads one triangle": (lambda a: _fix_sign(np.linalg.eigh(a)[1]), [(3, 3)]),
    "cholesky": (lambda a: np.linalg.cholesky(_spd(a)), [(3, 3)]),
    "cholesky batch": (lambda a: np.linalg.cholesky(_spd(a)), [(2, 3, 3)]),
    "pinv tall": (lambda a: np.linalg.pinv(a), [(4, 2)]),
    "pinv wide": (lambda a: np.linalg.pinv(a), [(2, 3)]),
    "pinv square": (lambda a: np.linalg.pinv(a + 3 * np.eye(3)), [(3, 3)]),
}


@pytest.mark.parametrize("name", sorted(LINALG))
def test_linalg_value_and_second_order_gradient(name):
    f, shapes = LINALG[name]
    args = [U(s) for s in shapes]
    out = f(*[tape.constant(a) for a in args])
    assert isinstance(out, tape.Tensor), type(out)
    np.testing.assert_allclose(out.numpy(), f(*args), rtol=1e-10, atol=1e-12)
    check(f, args, label=name)


def test_slogdet_of_a_large_matrix_does_not_overflow():
    a = tape.constant(np.eye(300) * 1e3 + U((300, 300)))
    with tape.GradientTape() as t:
        t.watch(a)
        sign, logdet = np.linalg.slogdet(a)
    want_sign, want = np.linalg.slogdet(a.numpy())
    assert float(sign) == want_sign
    assert float(logdet) == pytest.approx(want, rel=1e-12)
    np.testing.assert_allclose(t.gradient(logdet, a).numpy(), np.linalg.inv(a.numpy()).T, rtol=1e-8,
                               atol=1e-14)


def test_svd_full_matrices_of_a_rectangle_is_refused_while_recording():
    a = tape.constant(U((3, 2)))
    u, s, vh = np.linalg.svd(a)           # no tape: NumPy's answer
    assert u.shape == (3, 3)
    with tape.GradientTape() as t:
        t.watch(a)
        with pytest.raises(tape.NotDifferentiableError, match="full_matrices=False"):
            np.linalg.svd(a)


def test_methods_without_derivative_give_numpys_values_on_tracked_tensors():
    a = U((2, 3))
    x = tape.constant(a)
    with tape.GradientTape() as t:
        t.watch(x)
        assert x.argmax() == a.argmax() and x.argmin(axis=0).tolist() == a.argmin(axis=0).tolist()
        np.testing.assert_array_equal(x.argsort(), a.argsort())
        assert bool(x.any()) and x.nonzero()[0].tolist() == a.nonzero()[0].tolist()
        np.testing.assert_array_equal(x.round(1).numpy(), a.round(1))
        y = x.round() * x                  # round is piecewise constant: no slope of its own
    np.testing.assert_array_equal(t.gradient(y, x).numpy(), np.round(a))


def test_jacobian_after_roll():
    x = tape.constant([1.0, 2.0, 3.0])
    with tape.GradientTape() as t:
        t.watch(x)
        y = np.roll(x, 1) * x
    np.testing.assert_array_equal(t.jacobian(y, x).numpy(), [[3, 0, 1], [2, 1, 0], [0, 3, 2]])


def test_torch_tensors_keep_pytorchs_methods():
    import tape.torch as torch
    t = torch.ones(3)
    assert not hasattr(t, "astype") and not hasattr(t, "ravel")
    assert float(t.sum()) == 3.0


def test_reductions_with_initial_or_where_are_refused_not_ignored():
    x = tape.constant([1.0, 2.0])
    assert float(np.sum(x, initial=5.0)) == 8.0          # no tape: NumPy's answer
    with tape.GradientTape() as t:
        t.watch(x)
        with pytest.raises(tape.NotDifferentiableError, match="initial"):
            np.sum(x, initial=5.0)


def test_pad_with_a_tracked_constant_differentiates_the_constant_too():
    x, c = tape.constant([1.0, 2.0]), tape.constant(3.0)
    with tape.GradientTape(persistent=True) as t:
        t.watch([x, c])
        y = np.pad(x, (2, 1), constant_values=c)
    np.testing.assert_array_equal(y.numpy(), [3.0, 3.0, 1.0, 2.0, 3.0])
    assert float(t.gradient(y, c)) == 3.0
    np.testing.assert_array_equal(t.gradient(y, x).numpy(), [1.0, 1.0])


def test_gradient_with_a_tracked_spacing_is_refused():
    f, h = tape.constant([1.0, 4.0, 9.0]), tape.constant(0.5)
    with tape.GradientTape() as t:
        t.watch([f, h])
        with pytest.raises(tape.NotDifferentiableError, match="spacings"):
            np.gradient(f, h)
