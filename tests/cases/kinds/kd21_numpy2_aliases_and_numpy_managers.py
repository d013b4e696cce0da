"""NumPy 2's aliases (``np.concat``, ``np.acos``, ``np.permute_dims``, ``np.atan2``) are the functions they name:
Dynamo traces them (found by a helper: definite diagnostics before); ``with np.errstate(...)`` breaks at the call
(GB0294) and its resume function is skipped (GB0142)."""
import numpy as np
import torch


@torch.compile(backend="eager")
def aliases(x: torch.Tensor):
    a = np.ones((2, 2))
    b = np.concat([a, a])
    c = np.acos(a * 0.5)
    d = np.permute_dims(a, (1, 0))
    e = np.atan2(a, a)
    return x + b.sum() + c.sum() + d.sum() + e.sum()


@torch.compile(backend="eager")
def with_errstate(x: torch.Tensor):
    a = np.array([1.0, 2.0])
    with np.errstate(divide="ignore"):
        b = a / 2
    return x + b.sum()


def main():
    x = torch.ones(3)
    aliases(x)
    with_errstate(x)


main()
