# Guards for keyed dicts and run-time-named stores (kb30, kb31), found by probing code not tuned on: what changes a
# dict through another way or name keeps every test on it undecided. A config whose __init__ stores a key into its
# own **kwargs before storing them by name (`kwargs["debug"] = True`, then `setattr(self, k, v)`): `debug` may be
# set (here it is: no print). A **kwargs changed through a tuple-unpacked alias (`a, b = kwargs, 1`): `flag` may be
# there (it is). A module dict a registering function fills (`REG[name] = cls`, `register("loud", Loud)`): before,
# `REG.get(kind, Quiet)` was taken from the empty `{}`, and the driver below, which builds a `Loud`, got "All checks
# passed" (here `kind` is "quiet": no break). Every diagnostic is conditional, and Dynamo breaks nowhere.
import torch
from torch import nn

REG = {}


def register(name, cls):
    REG[name] = cls


class Loud(nn.Module):
    def forward(self, x):
        print("loud")
        return x + 1


class Quiet(nn.Module):
    def forward(self, x):
        return x * 2


register("loud", Loud)


class Cfg:
    def __init__(self, **kwargs):
        self.debug = False
        kwargs["debug"] = True
        for key, value in kwargs.items():
            setattr(self, key, value)


class Net(nn.Module):
    def __init__(self, cfg, kind="quiet"):
        super().__init__()
        self.cfg = cfg
        self.block = REG.get(kind, Quiet)()

    def forward(self, x):
        if not self.cfg.debug:
            print("quiet config")
        return self.block(x)


def flagged(x, **kwargs):
    a, b = kwargs, 1
    a["flag"] = True
    if not kwargs.get("flag", False):
        print("no flag")
    return x + b


def main():
    torch.compile(Net(Cfg(hidden=4)), backend="eager")(torch.ones(2))
    torch.compile(flagged, backend="eager")(torch.ones(2))


if __name__ == "__main__":
    main()
