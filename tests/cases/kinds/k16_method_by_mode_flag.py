# A method picked by a mode string the driver passes at construction; the picked one calls .tolist().
import torch
import torch.nn as nn


class Pool(nn.Module):
    def __init__(self, mode):
        super().__init__()
        self.mode = mode

    def pool_mean(self, x):
        return x.mean(0)

    def pool_ragged(self, x):
        lengths = (x != 0).sum(-1).tolist()
        return torch.stack([x[i, :n].sum() for i, n in enumerate(lengths)])

    def forward(self, x):
        reduce = self.pool_mean if self.mode == "mean" else self.pool_ragged
        return reduce(x)


def main():
    torch.compile(Pool("ragged"), backend="eager")(torch.randn(3, 5))
