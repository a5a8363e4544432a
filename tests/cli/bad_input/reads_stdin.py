"""Reads a line of standard input at import: with --at -, the first point would be lost."""
import sys

FIRST = sys.stdin.readline()


def f(x):
    return x * x
