# A Function marking its input dirty, applied under torch.no_grad() to a layer's output (no grad: forward inlined).
import torch
import torch.nn as nn


class Negate(torch.autograd.Function):
    @staticmethod
    def forward(ctx, a):
        ctx.mark_dirty(a)
        return a.neg_()

    @staticmethod
    def backward(ctx, grad):
        return -grad


class Head(nn.Module):
    def __init__(self):
        super().__init__()
        self.lin = nn.Linear(4, 2)

    def forward(self, x):
        h = self.lin(x)
        with torch.no_grad():
            h = Negate.apply(h)
        return h.mean()


def main():
    torch.compile(Head(), backend="eager")(torch.randn(3, 4))
