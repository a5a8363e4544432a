"""``tape.random``: seeded, reproducible random tensors (float64 by default)."""
from .engine.ops.creation import normal, set_seed, truncated_normal, uniform  # noqa: F401
