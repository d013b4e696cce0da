# Guard: a Linear subclass keeping torch's forward, and an autograd.Function whose forward traces cleanly.
import torch
import torch.nn as nn


class Scale(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x, s):
        ctx.s = s
        return x * s

    @staticmethod
    def backward(ctx, grad):
        return grad * ctx.s, None


class NamedLinear(nn.Linear):
    def describe(self):
        print(self.in_features, self.out_features)


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = NamedLinear(4, 4)

    def forward(self, x):
        return Scale.apply(self.fc(x), 2.0).sum()


def main():
    torch.compile(Net(), backend="eager")(torch.randn(2, 4))
