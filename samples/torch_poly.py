"""Seed 002's polynomial written with PyTorch's API (`import tape.torch as torch`).

    tape grad samples/torch_poly.py --at 0.5          # 10.5, as x.grad in the seed
    tape grad samples/torch_poly.py --at 0.5 --order 2

The CLI passes the engine's tensors in; torch functions accept them, and the engine's tape
records the torch ops as its own.
"""
import tape.torch as torch


def calc(x):
    x = torch.as_tensor(x)
    return torch.pow(x, 3) * 2 + 4 * x ** 2 + torch.mul(x, 5) + 6
