"""Polar to Cartesian coordinates: a vector function for tape jacobian.

    tape jacobian samples/polar.py --at r=2,theta=0.5     # determinant r
"""
import numpy as np


def polar_to_cartesian(r, theta):
    return [r * np.cos(theta), r * np.sin(theta)]
