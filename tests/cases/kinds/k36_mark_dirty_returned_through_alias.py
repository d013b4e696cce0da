# Guard: the Function marks its input dirty and returns it under another name (`y = x; return y`), applied to an
# input that requires grad: it is the dirty input itself, so Dynamo traces it without a break.
import torch


class AddOne(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        x.add_(1)
        ctx.mark_dirty(x)
        y = x
        return y

    @staticmethod
    def backward(ctx, g):
        return g


def f(x):
    return AddOne.apply(x * 1) * 2


def main():
    torch.compile(f, backend="eager")(torch.randn(4, requires_grad=True))
