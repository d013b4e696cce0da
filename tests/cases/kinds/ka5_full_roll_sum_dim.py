# torch.full's size tuple, roll's shifts and sum's dim, each read out of an element of the input: GB0033 at each.
import torch


@torch.compile(backend="eager")
def shift(x: torch.Tensor, meta: torch.Tensor):
    grid = torch.full((meta[0], 2), 0.5)
    x = x.roll(meta[1])
    return x.sum(dim=meta[1] - meta[1]) + grid.sum()


def main():
    shift(torch.randn(4), torch.tensor([3, 1]))
