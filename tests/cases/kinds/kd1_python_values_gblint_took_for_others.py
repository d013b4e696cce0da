"""Values a helper session found gblint taking for others (each a definite break where Dynamo made none):
`t == None` / `t != None` of a tensor is a Python bool (the tensor's `__eq__` answers NotImplemented, Python
compares identities); `sys.version_info <= (3, 11)` is False on 3.11 (the micro version makes it longer); an
optional attribute of a `torch.nn` layer (`Linear(bias=False).bias`, `LayerNorm(elementwise_affine=False).weight`,
`BatchNorm1d(track_running_stats=False).running_mean`) may be None, never a method; a class attribute of a
diamond `D(B, C)` comes from `C` before `A` (C3), and `super()` in `C` of an instance of `D(C, B)` runs `B`'s
method. Measured on torch 2.13: no break anywhere."""
import sys

import torch
from torch import nn


def eq_none(x, mask):
    if mask == None:  # noqa: E711
        print("no mask")
    if mask != None:  # noqa: E711
        x = x * mask
    return x


def old_python(x):
    if sys.version_info <= (3, 11):
        print("old python")
    return x + 1


class Layers(nn.Module):
    def __init__(self):
        super().__init__()
        self.lin = nn.Linear(4, 4, bias=False)
        self.norm = nn.LayerNorm(4, elementwise_affine=False)
        self.bn = nn.BatchNorm1d(4, track_running_stats=False)

    def forward(self, x):
        if self.lin.bias is not None:
            print("bias")
        if self.norm.weight is not None:
            print("affine")
        if self.bn.running_mean is not None:
            print("running stats")
        return self.bn(self.norm(self.lin(x)))


class A(nn.Module):
    verbose = True

    def forward(self, x):
        if self.verbose:
            print("A")
        return x + 1

    def step(self, x):
        print("A.step")
        return x


class B(A):
    def step(self, x):
        return x * 2


class C(A):
    verbose = False

    def step(self, x):
        return super().step(x) + 1


class Diamond(B, C):
    pass


class Chain(C, B):
    def forward(self, x):
        return self.step(x)


def main():
    torch.compile(eq_none, backend="eager")(torch.randn(4), torch.ones(4))
    torch.compile(old_python, backend="eager")(torch.randn(4))
    torch.compile(Layers(), backend="eager")(torch.randn(3, 4))
    torch.compile(Diamond(), backend="eager")(torch.randn(4))
    torch.compile(Chain(), backend="eager")(torch.randn(4))


if __name__ == "__main__":
    main()
