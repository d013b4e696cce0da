"""Dicts of state names whose keys are not all known, so that a store by a name drawn from them may name the
setting: the dict is handed out (a method returns it; the driver adds a key through it), a key is stored in an
attribute of that name on another object, a method the driver calls registers a name it is given, and a class
attribute's dict is shared by every instance. The setting keeps its literal in each measured run (Dynamo breaks
under it), but gblint cannot prove it: each diagnostic is conditional on the setting's test."""
import torch
from torch import nn


class HandedOut(nn.Module):
    def __init__(self):
        super().__init__()
        self.strategy = "warn"
        self._defaults = {}
        self._defaults["total"] = torch.zeros(())

    def defaults(self):
        return self._defaults

    def reset(self):
        for name, default in self._defaults.items():
            setattr(self, name, default.clone())

    def forward(self, x):
        if self.strategy != "disable":
            if (x > 0).any():
                x = x + 1
        return x * 2


class StoredThroughAnother(nn.Module):
    def __init__(self):
        super().__init__()
        self.strategy = "warn"
        self._states = {"total": torch.zeros(())}

    def reset(self):
        for name, default in self._states.items():
            setattr(self, name, default.clone())

    def forward(self, x):
        if self.strategy != "disable":
            if (x > 1).any():
                x = x + 1
        return x * 3


def register(module, name, value):
    module._states[name] = value


class Extended(nn.Module):
    def __init__(self):
        super().__init__()
        self.strategy = "warn"
        self._registry = {}
        self.add_state("total", torch.zeros(()))

    def add_state(self, name, default):
        self._registry[name] = default

    def extend(self, name):
        self.add_state(name, torch.ones(()))

    def reset(self):
        for name, default in self._registry.items():
            setattr(self, name, default.clone())

    def forward(self, x):
        if self.strategy != "disable":
            if (x > 2).any():
                x = x + 1
        return x * 4


class SharedTable(nn.Module):
    _table = {}

    def __init__(self):
        super().__init__()
        self.strategy = "warn"
        self._table["total"] = torch.zeros(())

    def add(self, name):
        self._table[name] = torch.ones(())

    def reset(self):
        for name, default in self._table.items():
            setattr(self, name, default.clone())

    def forward(self, x):
        if self.strategy != "disable":
            if (x > 3).any():
                x = x + 1
        return x * 5


def main():
    x = torch.randn(4) + 2
    handed = HandedOut()
    handed.defaults()["extra"] = torch.ones(())
    handed.reset()
    torch.compile(handed, backend="eager")(x)
    through = StoredThroughAnother()
    register(through, "extra", torch.ones(()))
    through.reset()
    torch.compile(through, backend="eager")(x)
    extended = Extended()
    extended.extend("extra")
    extended.reset()
    torch.compile(extended, backend="eager")(x)
    shared = SharedTable()
    shared.add("extra")
    shared.reset()
    torch.compile(shared, backend="eager")(x)
