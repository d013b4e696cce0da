# `ctx.mark_dirty` reached through a module-level helper the Function's forward calls; forward returns a new
# value (`x.add_(1)` is a new value to Dynamo), the input requires grad: GB2464 at the apply.
import torch
import torch.nn as nn


def _mark(context, *tensors):
    context.mark_dirty(*tensors)


class Bump(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        _mark(ctx, x)
        return x.add_(1)

    @staticmethod
    def backward(ctx, grad):
        return grad


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(3, 3)

    def forward(self, x):
        h = self.fc(x)
        return Bump.apply(h).sum()


def main():
    torch.compile(Net(), backend="eager")(torch.randn(2, 3))
