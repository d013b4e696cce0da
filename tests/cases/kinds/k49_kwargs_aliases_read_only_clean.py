# Guard: `**kwargs` arrive empty and every other name for them only reads them (a local alias, a tuple, a
# closure that reads it, a copy that is changed): the tests stay decided, nothing prints, nothing breaks.
import torch
import torch.nn as nn


def scale(x, **kwargs):
    kw = kwargs
    pair = (kw, 1)
    if len(pair[0]) > 3:
        print("many")

    def count():
        return len(kwargs)

    copy = dict(kwargs)
    copy["extra"] = count()
    if kwargs:
        print("scale got", sorted(kwargs))
    return x * 2


class Net(nn.Module):
    def forward(self, x):
        return scale(x).sum()


def main():
    torch.compile(Net(), backend="eager")(torch.randn(3))
