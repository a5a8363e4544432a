"""The discrete Fourier transform over some axes, forward and inverse: two linear ops, each the
other's adjoint (their gradient rules), so every derivative through them is one more transform.
NumPy's other FFT functions (real input, Hermitian output, sizes, shifts) are compositions of
these with slicing and padding, in ``numpy_api``."""
from __future__ import annotations

import numpy as np

from ..registry import defop
from .cast import real

__all__: list = []

#: the norm whose transform is the adjoint (conjugate transpose) of the other direction's
_ADJOINT_NORM = {"backward": "forward", "forward": "backward", "ortho": "ortho"}


def _adjoint(op, node, g):
    out = op(g, axes=node.attrs["axes"], norm=_ADJOINT_NORM[node.attrs["norm"]])
    return [out if node.inputs[0]._value.dtype.kind == "c" else real(out)]


# axes are negative (counted from the end): a batch of cotangents in front keeps them right
fftn = defop("FFT", lambda x, axes, norm: np.fft.fftn(x, axes=axes, norm=norm),
             lambda n, g: _adjoint(ifftn, n, g), linear=True)
ifftn = defop("IFFT", lambda x, axes, norm: np.fft.ifftn(x, axes=axes, norm=norm),
              lambda n, g: _adjoint(fftn, n, g), linear=True)
