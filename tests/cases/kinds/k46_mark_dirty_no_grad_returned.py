# forward marks its input dirty and returns it itself; applied under `torch.no_grad()` to the output of a layer
# (which would require grad): grad is off, so Dynamo inlines forward and breaks at `mark_dirty` (GB2019).
import torch
import torch.nn as nn


class Clamp(torch.autograd.Function):
    @staticmethod
    def forward(ctx, v):
        ctx.mark_dirty(v)
        v.clamp_(-1.0, 1.0)
        return v

    @staticmethod
    def backward(ctx, grad):
        return grad


class Block(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(5, 5)

    def forward(self, x):
        h = self.fc(x)
        with torch.no_grad():
            h = Clamp.apply(h)
        return h.sum()


def main():
    torch.compile(Block(), backend="eager")(torch.randn(2, 5))
