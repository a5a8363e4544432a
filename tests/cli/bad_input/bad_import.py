import definitely_not_a_module


def f(x):
    return x
