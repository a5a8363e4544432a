"""autograd's logistic-regression example, in plain NumPy: the training loss of a linear
classifier on four examples, as a function of its three weights.

    tape grad samples/logistic_regression.py --at "weights=[0.1,-0.2,0.3]"
"""
import numpy as np

inputs = np.array([[0.52, 1.12, 0.77], [0.88, -1.08, 0.15], [0.52, 0.06, -1.30],
                   [0.74, -2.49, 1.39]])
targets = np.array([True, True, False, True])


def training_loss(weights):
    preds = 0.5 * (np.tanh(inputs @ weights) + 1)          # the logistic sigmoid
    label_probabilities = preds * targets + (1 - preds) * (1 - targets)
    return -np.sum(np.log(label_probabilities))
