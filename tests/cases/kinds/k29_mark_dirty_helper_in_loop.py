# A helper applies a Function that returns the in-place call's result; called in a loop on a Linear's output.
import torch
import torch.nn as nn


class Shift(torch.autograd.Function):
    @staticmethod
    def forward(ctx, u, d):
        ctx.mark_dirty(u)
        return u.sub_(d)

    @staticmethod
    def backward(ctx, grad):
        return grad, None


def shift_all(t):
    return Shift.apply(t, 1.0)


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.enc = nn.Linear(5, 5)

    def forward(self, x):
        h = self.enc(x)
        outs = []
        for _ in range(2):
            outs.append(shift_all(h.clone()))
        return torch.stack(outs).sum()


def main():
    torch.compile(Net(), backend="eager")(torch.randn(2, 5))
