"""Kinds gblint took for facts they are not (each a definite diagnostic before): ``nn.Parameter(...)`` is a tensor,
but whether it requires grad is what it was built with (``requires_grad=False``) or later set to, and its ``grad``
is ``Tensor | None`` (None before a backward reaches it: torch/_C/__init__.pyi); ``np.random.rand()`` and the other
``numpy.random`` functions given no size read a Python float out of a tensor (torch/_numpy/random.py
``array_or_scalar`` calls ``.item()``): the break is at the call (GB0033) and a test on the float is none; the
``else`` clause of a ``try`` without ``finally`` lies outside its exception table: a break there resumes, unlike one
in ``except`` or in an ``else`` followed by ``finally``. Measured on torch 2.13."""
import numpy as np
import torch
from torch import nn


class Frozen(nn.Module):
    def __init__(self):
        super().__init__()
        self.w = nn.Parameter(torch.ones(4), requires_grad=False)
        self.v = nn.Parameter(torch.ones(4))

    def forward(self, x):
        if self.w.requires_grad:
            print("trainable")
        if self.v.grad is not None:
            print("has grad")
        if self.v.grad:
            print("grad truthy")
        return x * self.w + self.v


def noisy(x):
    r = np.random.rand()
    if r > 2.0:
        print("never")
    return x + 1


def noisy_sized(x):
    r = np.random.rand(4)
    return x + torch.from_numpy(r)


def else_only(x):
    try:
        y = x + 1
    except ValueError:
        y = x
    else:
        print("else runs")
    return y * 2


def else_finally(x):
    try:
        y = x + 1
    except ValueError:
        y = x
    else:
        print("else with finally")
    finally:
        y = y + 1
    return y * 2


def else_with(x):
    try:
        y = x + 1
    except ValueError:
        y = x
    else:
        with torch.no_grad():
            print("in with")
    return y


def main():
    torch.compile(Frozen(), backend="eager")(torch.randn(4))
    torch.compile(noisy, backend="eager")(torch.randn(4))
    torch.compile(noisy_sized, backend="eager")(torch.randn(4, dtype=torch.float64))
    torch.compile(else_only, backend="eager")(torch.randn(4))
    torch.compile(else_finally, backend="eager")(torch.randn(4))
    torch.compile(else_with, backend="eager")(torch.randn(4))


if __name__ == "__main__":
    main()
