"""``tape.image``: the one image op the tutorials use.

``adjust_contrast`` is recorded as the primitive ``AdjustContrastv2`` with no registered
gradient, as in TensorFlow: differentiating through it raises ``LookupError`` instead of
silently giving None.
"""
import numpy as np

from .engine.registry import primitive
from .engine.tensor import convert_to_tensor


def _adjust_contrast(images, contrast_factor):
    mean = np.mean(images, axis=(-3, -2), keepdims=True)
    return (images - mean) * contrast_factor + mean


_adjust_contrast_op = primitive(_adjust_contrast, name="AdjustContrastv2")


def adjust_contrast(images, contrast_factor):
    """(x - mean) * contrast_factor + mean, per channel over the height and width axes."""
    x = convert_to_tensor(images)
    if x.ndim < 3:
        raise ValueError(f"adjust_contrast: images need shape [..., height, width, channels], "
                         f"got {tuple(x.shape)}")
    return _adjust_contrast_op(x, contrast_factor)
