def f(x):
    return _helper(x)


def _helper(x):
    raise ValueError("negative input")
