"""Settings and option dicts changed after the module is built, each a way gblint once missed (a helper session
found them): the driver storing into a dict an attribute holds, a method doing so, a setting read from
`dict(pairs)`, `__setstate__` called on the built instance, and a method the driver calls that registers by name.
Dynamo breaks in the first two and in none of the others; gblint must report the first two and claim none."""
import torch
from torch import nn


class DriverChanged(nn.Module):
    def __init__(self):
        super().__init__()
        self.k44_opts = {"debug": False}

    def forward(self, x):
        if self.k44_opts["debug"]:
            print("x", x)
        return x + 1


class MethodChanged(nn.Module):
    def __init__(self):
        super().__init__()
        self.k44_flags = {"debug": False}

    def enable(self):
        self.k44_flags["debug"] = True

    def forward(self, x):
        if self.k44_flags["debug"]:
            print("x", x)
        return x + 2


class FromPairs(nn.Module):
    def __init__(self, extra):
        super().__init__()
        self.strategy = dict(extra).get("strategy", "warn")

    def forward(self, x):
        if self.strategy != "disable":
            if (x > 0).any():
                x = x + 1
        return x * 3


class Restored(nn.Module):
    def __init__(self):
        super().__init__()
        self.strategy = "warn"

    def __setstate__(self, state):
        self.__dict__.update(state)

    def restore(self, state):
        self.__setstate__(state)

    def forward(self, x):
        if self.strategy != "disable":
            if (x > 0).any():
                x = x + 1
        return x * 4


class Registered(nn.Module):
    def __init__(self):
        super().__init__()
        self.strategy = "warn"
        self.add_state("tp", torch.zeros(()))

    def add_state(self, name, default):
        setattr(self, name, default)

    def extend(self, name, default):
        self.add_state(name, default)

    def forward(self, x):
        if self.strategy != "disable":
            if (x > 0).any():
                x = x + 1
        return x * 5


def main():
    x = torch.randn(4)
    driver = DriverChanged()
    driver.k44_opts["debug"] = True
    torch.compile(driver, backend="eager")(x)
    method = MethodChanged()
    method.enable()
    torch.compile(method, backend="eager")(x)
    torch.compile(FromPairs([("strategy", "disable")]), backend="eager")(x)
    restored = Restored()
    restored.restore({"strategy": "disable"})
    torch.compile(restored, backend="eager")(x)
    registered = Registered()
    registered.extend("strategy", "disable")
    torch.compile(registered, backend="eager")(x)
