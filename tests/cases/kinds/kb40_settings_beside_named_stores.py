"""A setting beside methods that store attributes by a name known only at run time: over the keys of a registry
dict the class fills by key (`self._defaults[name] = v`), of a local dict built by key, of a cache another method
stores, and a `__setattr__` override's own `super().__setattr__(name, value)`. Dynamo breaks in `Tracker` (the
stores name other attributes); gblint keeps it conditional, since it never bounds a dict attribute's keys (it may
change through `getattr(self, name)`, what it is handed to, or code outside the class). In `Loose` the names
come from the caller's dict, which names the setting."""
import torch
from torch import nn


class Tracker(nn.Module):
    def __init__(self, strategy="warn"):
        super().__init__()
        self._defaults = {}
        self._cache = None
        self.strategy = strategy
        self.add_state("total", torch.zeros(()))
        self.add_state("count", torch.zeros(()))

    def add_state(self, name, default):
        self._defaults[name] = default
        setattr(self, name, default.clone())

    def __setattr__(self, name, value):
        super().__setattr__(name, value)

    def snapshot(self):
        cache = {}
        for attr in self._defaults:
            cache[attr] = getattr(self, attr).clone()
        return cache

    def sync(self):
        self._cache = self.snapshot()

    def unsync(self):
        for attr, val in self._cache.items():
            setattr(self, attr, val)
        self._cache = None

    def reset(self):
        for attr, default in self._defaults.items():
            setattr(self, attr, default.clone())

    def forward(self, x):
        if self.strategy != "disable":
            if torch.isnan(x).any():  # a tensor's truth: a break, whatever the data
                x = torch.nan_to_num(x)
        self.sync()
        self.unsync()
        return x * 2


class Loose(nn.Module):
    def __init__(self, overrides, strategy="warn"):
        super().__init__()
        self.strategy = strategy
        self.extra = {}
        for key, value in overrides.items():
            self.extra[key] = value

    def apply_extra(self):
        for key, value in self.extra.items():
            setattr(self, key, value)

    def forward(self, x):
        if self.strategy != "disable":
            if torch.isnan(x).any():
                x = torch.nan_to_num(x)
        return x + 1


def main():
    tracker = torch.compile(Tracker(), backend="eager")
    tracker(torch.randn(4))
    loose = Loose({"strategy": "disable"})
    loose.apply_extra()
    compiled = torch.compile(loose, backend="eager")
    compiled(torch.randn(4))
