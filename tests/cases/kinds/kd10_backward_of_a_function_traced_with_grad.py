"""``Function.apply(x)`` with an input that requires grad: Dynamo traces ``backward`` too (it speculates the backward
graph), so a break there (``.item()``, ``print``) breaks at the call; with no input requiring grad ``backward`` is not
traced. A false all-clear before. Grad on where the compiled code is called is not followed: conditional on it.
Measured on torch 2.13."""
import torch


class Scale(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        return x * 2

    @staticmethod
    def backward(ctx, g):
        s = g.sum().item()
        return g * 2 + s


class Loud(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        return x * 2

    @staticmethod
    def backward(ctx, g):
        print("backward")
        return g * 2


class Untraced(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        return x * 2

    @staticmethod
    def backward(ctx, g):
        print("never traced")
        return g * 2


def use_grad(x):
    return Scale.apply(x) + 1


def use_loud(x):
    y = x * 3
    return Loud.apply(y) + 1


def use_untraced(x):
    return Untraced.apply(x) + 1


def main():
    torch.compile(use_grad, backend="eager")(torch.randn(4, requires_grad=True)).sum().backward()
    torch.compile(use_loud, backend="eager")(torch.randn(4, requires_grad=True)).sum().backward()
    torch.compile(use_untraced, backend="eager")(torch.randn(4))


if __name__ == "__main__":
    main()
