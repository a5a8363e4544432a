"""``tape.nn``: activations and losses."""
from .engine.ops.nn import *  # noqa: F401,F403
