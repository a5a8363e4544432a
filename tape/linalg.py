"""``tape.linalg``: linear algebra (``matmul``, ``einsum`` and ``tensordot`` are also top level)."""
from .engine.ops.linalg import *  # noqa: F401,F403
