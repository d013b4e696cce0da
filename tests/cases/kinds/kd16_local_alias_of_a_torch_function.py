"""A local name bound to a torch or NumPy function is that function where it is called: ``u = torch.unique`` then
``u(x)`` breaks as ``torch.unique(x)`` does; a name rebound in an arm of an ``if`` is not decided."""
import numpy as np
import torch


@torch.compile(backend="eager")
def alias_unique(x: torch.Tensor):
    u = torch.unique_consecutive
    return u(x).sum() + 1


@torch.compile(backend="eager")
def alias_numpy(x: torch.Tensor):
    m = np.nanmean
    return x + m(np.array([1.0, 2.0]))


@torch.compile(backend="eager")
def alias_clean(x: torch.Tensor):
    s = torch.sort
    return s(x)[0] + 1


@torch.compile(backend="eager")
def alias_rebound(x: torch.Tensor, flag: bool):
    op = torch.unique
    if flag:
        op = torch.sort
    return op(x)[0].sum() + 1


@torch.compile(backend="eager")
def alias_module(x: torch.Tensor):
    nn_f = torch.nn.functional
    return nn_f.relu(x) + 1


def main():
    x = torch.tensor([3.0, 1.0, 2.0])
    alias_unique(x)
    alias_numpy(x)
    alias_clean(x)
    alias_rebound(x, True)
    alias_module(x)


main()
