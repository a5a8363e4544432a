"""``tape.linalg``: linear algebra (``matmul``, ``einsum`` and ``tensordot`` are also top level)."""
from .engine.ops.linalg import det, diag_part, einsum, inv, matmul, norm, solve, tensordot, trace  # noqa: F401
