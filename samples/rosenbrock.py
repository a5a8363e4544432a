"""Rosenbrock's banana function: minimum 0 at (1, 1).

    tape grad samples/rosenbrock.py --at 1,1        # gradient 0 0 at the minimum
    tape hessian samples/rosenbrock.py --at 0,0
"""


def rosenbrock(x, y):
    return (1 - x) ** 2 + 100 * (y - x**2) ** 2
