"""``tape.keras``: just enough of the Keras namespace for the tutorials (``tape.keras.layers.Dense``)."""
from . import layers  # noqa: F401
from .engine.module import Module as Model  # noqa: F401
