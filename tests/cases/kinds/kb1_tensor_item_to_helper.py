# An item of a tensor (`ts[0]`, TensorBase.__getitem__ -> Tensor) handed to a helper that converts it with
# float(): a .item() (GB0124) where the helper converts it; an int index of a list stays clean.
import torch


def as_float(t):
    return float(t)


def first(xs):
    return xs[0]


@torch.compile(backend="eager")
def integrate(y, ts):
    start = as_float(ts[0])
    width = first([2, 3])
    return y * start + width


def main():
    integrate(torch.randn(3), torch.linspace(0, 1, 4))
