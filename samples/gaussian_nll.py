"""The negative log-likelihood of three points under a 2-D normal distribution whose covariance
is L L^T + 0.1 I, with L the lower triangle of a 2x2 matrix of parameters: np.tril, x.T,
np.linalg.slogdet and np.linalg.solve, all differentiated by tape.

    tape grad samples/gaussian_nll.py --at "l=[1,0.5,0.3,0.8]"
"""
import numpy as np

points = np.array([[0.3, -0.2], [1.1, 0.4], [-0.5, 0.9]])


def nll(l):
    L = np.tril(np.reshape(l, (2, 2)))
    cov = L @ L.T + 0.1 * np.eye(2)
    sign, logdet = np.linalg.slogdet(cov)
    quad = sum(p @ np.linalg.solve(cov, p) for p in points)
    return 0.5 * (len(points) * logdet + quad) + len(points) * np.log(2 * np.pi)
