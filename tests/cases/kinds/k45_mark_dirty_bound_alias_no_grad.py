# `ctx.mark_dirty` through a bound alias (`dirty = ctx.mark_dirty; dirty(t)`) and forward returns the input
# itself, applied to a copy of the driver's input (no input requires grad): forward is
# inlined and breaks at the mark (GB2019), its frame skipped.
import torch
import torch.nn as nn


class Halve(torch.autograd.Function):
    @staticmethod
    def forward(ctx, t):
        dirty = ctx.mark_dirty
        dirty(t)
        t.mul_(0.5)
        return t

    @staticmethod
    def backward(ctx, grad):
        return grad * 0.5


class Plain(nn.Module):
    def forward(self, x):
        return Halve.apply(x.clone()).sum()


def main():
    torch.compile(Plain(), backend="eager")(torch.randn(4))
