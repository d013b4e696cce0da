# A tensor created with requires_grad=True inside a compiled helper: the call breaks, nested.
import torch


def make_offset(n):
    return torch.full((n,), 0.5, requires_grad=True)


@torch.compile(backend="eager")
def shift(x):
    off = make_offset(x.shape[0])
    return x + off


def main():
    shift(torch.randn(3))
