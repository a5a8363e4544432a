import numpy as np


def f(x):
    a = np.zeros(2)
    a += x          # writes tracked values into a constant: `a = a + x` is recorded
    return np.sum(a * x)
