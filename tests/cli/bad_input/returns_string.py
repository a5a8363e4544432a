def f(x):
    return "text"
