def f(x):
    return x * 2


def g(x):
    return x ** 2
