# An autograd.Function marks its input dirty and returns the in-place call's result; the input is a Linear's output.
import torch
import torch.nn as nn


class AddBias(torch.autograd.Function):
    @staticmethod
    def forward(ctx, t, b):
        ctx.mark_dirty(t)
        return t.add_(b)

    @staticmethod
    def backward(ctx, grad):
        return grad, None


class Proj(nn.Module):
    def __init__(self):
        super().__init__()
        self.up = nn.Linear(3, 5)

    def forward(self, x):
        y = AddBias.apply(self.up(x), 0.1)
        return y.relu()


def main():
    torch.compile(Proj(), backend="eager")(torch.randn(4, 3))
