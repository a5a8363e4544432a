"""``tape.autodiff``: TensorFlow's alias module for the differentiation API."""
from .engine.tape import GradientTape, UnconnectedGradients  # noqa: F401
