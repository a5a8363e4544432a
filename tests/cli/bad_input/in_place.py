import numpy as np


def f(x):
    a = np.zeros(2)
    a += x          # the values leave the tape: `a = a + x` stays on it
    return np.sum(a * x)
