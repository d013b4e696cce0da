"""NumPy functions whose `torch._numpy` counterpart returns a Python value: `np.ndim(t)` and `np.size(a)` (an int:
`a.ndim`, `a.numel()`, `a.shape[axis]`) break at the call, GB0208 "torch.* op returned non-Tensor", whatever the
argument (a tensor, an array made from one or from constants); their result is a Python int, so a test on it is no break. `np.shape(t)` gives a
tuple of ints with no break. Measured on torch 2.13 (`torch/_numpy/_funcs_impl.py`)."""
import numpy as np
import torch


@torch.compile(backend="eager")
def shape_of(x):
    n = np.shape(x)
    if n[0] > 2:
        x = x + 1
    return x * 2


@torch.compile(backend="eager")
def ndim_of(x):
    d = np.ndim(x)
    if d > 0:
        x = x * 3
    return x - 1


@torch.compile(backend="eager")
def size_of(x):
    s = np.size(x.numpy())
    if s > 2:
        x = x * 4
    return x + 2


@torch.compile(backend="eager")
def ndim_of_array(x):
    a = np.ones(3)
    if np.ndim(a) == 1:
        x = x + 5
    return x


def main():
    shape_of(torch.randn(3))
    ndim_of(torch.randn(3))
    size_of(torch.randn(3))
    ndim_of_array(torch.randn(3))


if __name__ == "__main__":
    main()
