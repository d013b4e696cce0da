# A NumPy array made from Python numbers in compiled code is traced as a tensor: `if` on its max breaks.
import numpy as np
import torch


@torch.compile(backend="eager")
def warp(x, n):
    grid = np.linspace(0.0, 1.0, n)
    peak = grid.max()
    if peak > 0.5:
        x = x * 2
    return x + 1


def main():
    warp(torch.randn(3), 5)
