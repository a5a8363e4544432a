"""Forks in the call: the child must not carry on as a second tape printing a second result."""
import os


def f(x):
    os.fork()
    return x * x
