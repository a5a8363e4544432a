def f(x):
    return [x, 2 * x]
