# A guard whose message formats a tensor value: a break (GB0170) that no rewrite keeps: the message would be
# computed from the data (no fix offered).
import torch


@torch.compile(backend="eager")
def bounded(x):
    y = x * 2
    if (y > 100).any():
        raise ValueError(f"too large: {y.max()}")
    return y - 1


def main():
    return bounded(torch.arange(4.0))
