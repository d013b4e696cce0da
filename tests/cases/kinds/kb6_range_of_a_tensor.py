# range() of a tensor, or of a NumPy value Dynamo traces as one (np.prod of a shape), is a builtin Dynamo fails to
# trace (GB0059): it breaks and resumes; range() of a shape's int or of math.prod stays clean.
import math

import numpy as np
import torch


@torch.compile(backend="eager")
def invert(x):
    steps = np.prod(x.shape[1:])
    out = x
    for _ in range(steps):
        out = out * 0.5
    for _ in range(math.prod(x.shape[1:])):
        out = out + 1
    return out


@torch.compile(backend="eager")
def repeat(x, n):
    out = x
    for _ in range(n.sum().long()):
        out = out * 2
    for _ in range(x.shape[0]):
        out = out - 1
    return out


def main():
    invert(torch.randn(2, 3))
    repeat(torch.ones(2), torch.ones(2))
