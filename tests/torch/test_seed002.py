"""Seed 002's PyTorch half, run as written with `import tape.torch as torch`.

The code blocks are read from the seed file itself (../shared/seeds/002_a986b5f5bf313c22.txt);
only the two import lines change (`import torch` -> `import tape.torch as torch`, and
`import torch.nn as nn` -> `import tape.torch.nn as nn`). The test runs the seed's own text,
which it trusts (it is the project's source document, not user input).
"""
import io
import contextlib
import pathlib

import numpy as np
import pytest

SEED = pathlib.Path("/work/shared/seeds/002_a986b5f5bf313c22.txt")
if not SEED.exists():
    SEED = pathlib.Path(__file__).resolve().parents[3] / "shared" / "seeds" / SEED.name


def _seed_text():
    if not SEED.exists():
        pytest.skip(f"seed file not found: {SEED}")
    return SEED.read_text(encoding="utf-8")


def _block(text, first_line, last_line, before=0):
    """The lines of the seed from the one starting with ``first_line`` (less ``before`` lines)
    to the next one starting with ``last_line``."""
    lines = text.splitlines()
    start = next(i for i, ln in enumerate(lines) if ln.startswith(first_line)) - before
    end = next(i for i in range(start, len(lines)) if lines[i].startswith(last_line))
    return "\n".join(lines[start:end + 1]) + "\n"


def _ported(code):
    code = code.replace("import torch.nn as nn", "import tape.torch.nn as nn")
    return code.replace("import torch\n", "import tape.torch as torch\n")


def _run(code, namespace):
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        exec(compile(code, str(SEED), "exec"), namespace)  # noqa: S102 - the seed's own code
    return out.getvalue().splitlines()


def _calc_namespace(text):
    ns = {}
    _run(_block(text, "def calc(x):", "  return"), ns)
    _run(_block(text, "def der_calc(x):", "  return"), ns)
    return ns


def test_scalar_backward_prints_as_pytorch():
    text = _seed_text()
    ns = _calc_namespace(text)
    code = _ported(_block(text, "import torch.nn as nn", "print(g)", before=1))
    assert "import tape.torch as torch" in code and "y.backward()" in code
    printed = _run(code, ns)
    assert printed == ["tensor(9.7500, grad_fn=<AddBackward0>)", "tensor(10.5000)"]
    assert ns["y"].item() == 9.75 and ns["g"].item() == 10.5
    assert ns["der_calc"](0.5) == 10.5


def test_scalar_autograd_grad_alternative():
    # the seed: "y.backward(); g = x.grad は g = torch.autograd.grad(y, x) と書いてもよい"
    import tape.torch as torch
    text = _seed_text()
    ns = _calc_namespace(text)
    x = torch.tensor(0.5, requires_grad=True)
    y = ns["calc"](x)
    g = torch.autograd.grad(y, x)
    assert isinstance(g, tuple) and len(g) == 1
    assert g[0].item() == 10.5 and repr(g) == "(tensor(10.5000),)"
    assert x.grad is None                      # autograd.grad does not touch .grad


def test_arange_gradient_and_plot(monkeypatch):
    plt = pytest.importorskip("matplotlib.pyplot")
    plt.switch_backend("Agg")
    shown = []
    monkeypatch.setattr(plt, "show", lambda *a, **k: shown.append(True))
    text = _seed_text()
    ns = _calc_namespace(text)
    code = _ported(_block(text, "# PyTorchの微分グラフ", "plt.show()"))
    code = code.replace("import torch\n", "")      # the block itself does not import torch
    exec("import tape.torch as torch", ns)  # noqa: S102
    _run(code, ns)
    plt.close("all")
    assert shown == [True]
    x_numpy, g_numpy = ns["x_numpy"], ns["g_numpy"]
    xs = np.arange(-4.0, 4.0, 0.001)
    assert x_numpy.shape == (8000,) and g_numpy.shape == (8000,)
    np.testing.assert_allclose(x_numpy, xs, rtol=0, atol=1e-12)
    np.testing.assert_allclose(g_numpy, 6 * xs ** 2 + 8 * xs + 5, rtol=1e-12, atol=1e-12)
    assert ns["y"].grad_fn.name() == "AddBackward0"


def test_numpy_of_a_tensor_that_requires_grad_points_at_detach():
    import tape.torch as torch
    x = torch.arange(-4.0, 4.0, 0.001, requires_grad=True)
    with pytest.raises(RuntimeError, match=r"Use tensor\.detach\(\)\.numpy\(\) instead"):
        x.numpy()
