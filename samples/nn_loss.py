"""A one-neuron network's mean squared error on a tiny data set, in plain NumPy.

tape records the NumPy calls, so the gradient with respect to the weights comes out:

    tape grad samples/nn_loss.py --at "w=[0.5,-0.5],b=0.1"
"""
import numpy as np

# inputs (one row per example) and targets: logical OR
X = np.array([[0.0, 0.0], [0.0, 1.0], [1.0, 0.0], [1.0, 1.0]])
Y = np.array([0.0, 1.0, 1.0, 1.0])


def loss(w, b):
    prediction = np.tanh(X @ w + b)
    return np.mean((prediction - Y) ** 2)
