# Guard: the Function returns the dirty input itself, applied in a loop to a Linear's output: Dynamo traces it.
import torch
import torch.nn as nn


class Halve(torch.autograd.Function):
    @staticmethod
    def forward(ctx, z):
        ctx.mark_dirty(z)
        z.mul_(0.5)
        return z

    @staticmethod
    def backward(ctx, grad):
        return grad * 0.5


class Tower(nn.Module):
    def __init__(self):
        super().__init__()
        self.blocks = nn.ModuleList(nn.Linear(6, 6) for _ in range(2))

    def forward(self, x):
        outs = []
        for blk in self.blocks:
            outs.append(Halve.apply(blk(x)))
        return torch.stack(outs).sum()


def main():
    torch.compile(Tower(), backend="eager")(torch.randn(2, 6))
