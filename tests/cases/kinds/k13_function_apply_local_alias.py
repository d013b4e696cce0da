# An autograd.Function applied through a local alias in a helper; its forward logs with print.
import torch
import torch.nn as nn


class ClampGrad(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x, lo):
        print("clamp", lo)
        return x.clamp(min=lo)

    @staticmethod
    def backward(ctx, grad):
        return grad, None


def clamp_all(x):
    op = ClampGrad.apply
    return op(x, 0.0)


class Head(nn.Module):
    def __init__(self):
        super().__init__()
        self.lin = nn.Linear(4, 4)

    def forward(self, x):
        return clamp_all(self.lin(x)).mean()


def main():
    torch.compile(Head(), backend="eager")(torch.randn(2, 4))
