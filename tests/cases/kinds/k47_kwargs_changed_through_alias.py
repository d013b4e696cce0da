# `**kwargs` arrive empty but are changed through another name before the test: a local alias
# (`kw = kwargs; kw.update(...)`), an element of a list (`held[0]["k"] = ...`), and a closure that adds to it.
import torch
import torch.nn as nn


def scale(x, **kwargs):
    kw = kwargs
    kw.update(extra=1)
    if kwargs:
        print("scale got", sorted(kwargs))
    return x * 2


def shift(x, **opts):
    held = [opts]
    held[0]["seen"] = True
    if len(opts) > 0:
        print("shift got", sorted(opts))
    return x + 1


def clip(x, **flags):
    def note():
        flags["noted"] = True

    note()
    if flags:
        print("clip got", sorted(flags))
    return x.clamp(-1, 1)


class Net(nn.Module):
    def forward(self, x):
        return clip(shift(scale(x))).sum()


def main():
    torch.compile(Net(), backend="eager")(torch.randn(3))
