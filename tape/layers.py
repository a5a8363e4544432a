"""``tape.layers``: Keras-style layers built from tape ops (``Dense``)."""
from .engine.module import Dense, Layer  # noqa: F401
