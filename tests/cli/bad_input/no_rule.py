import numpy as np


def f(x):
    return np.i0(x) * x      # numpy.i0 has no derivative in tape: refused, not a constant
