"""Stores by a run-time name that do name the setting, each after the constructor: a `__setattr__` that
renames the attribute it is given, a local dict changed through another name before `setattr` over it,
and a registry keyed by what a method is handed. Each turns `strategy` to "disable" before the compiled
call, so Dynamo meets no break: gblint may not say one is sure."""
import torch
from torch import nn


class Renamed(nn.Module):
    aliases = {"policy": "strategy"}

    def __init__(self):
        super().__init__()
        self.strategy = "warn"

    def __setattr__(self, name, value):
        name = self.aliases.get(name, name)
        super().__setattr__(name, value)

    def forward(self, x):
        if self.strategy != "disable":
            if torch.isnan(x).any():
                x = torch.nan_to_num(x)
        return x * 2


class Aliased(nn.Module):
    def __init__(self):
        super().__init__()
        self.strategy = "warn"

    def restore(self):
        cache = {}
        other = cache
        other["strategy"] = "disable"
        for attr, val in cache.items():
            setattr(self, attr, val)

    def forward(self, x):
        if self.strategy != "disable":
            if torch.isnan(x).any():
                x = torch.nan_to_num(x)
        return x + 1


class Registry(nn.Module):
    def __init__(self):
        super().__init__()
        self.strategy = "warn"
        self._defaults = {}

    def register(self, name, value):
        self._defaults[name] = value

    def reset(self):
        for attr, default in self._defaults.items():
            setattr(self, attr, default)

    def forward(self, x):
        if self.strategy != "disable":
            if torch.isnan(x).any():
                x = torch.nan_to_num(x)
        return x - 1


def main():
    renamed = Renamed()
    renamed.policy = "disable"
    torch.compile(renamed, backend="eager")(torch.randn(4))
    aliased = Aliased()
    aliased.restore()
    torch.compile(aliased, backend="eager")(torch.randn(4))
    registry = Registry()
    registry.register("strategy", "disable")
    registry.reset()
    torch.compile(registry, backend="eager")(torch.randn(4))
