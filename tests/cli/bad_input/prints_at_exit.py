import atexit

atexit.register(lambda: print("(script) printed at exit"))


def f(x):
    return x * x
