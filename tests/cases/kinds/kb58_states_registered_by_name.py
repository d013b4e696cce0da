"""Stores by a name known only at run time that can never name a setting: each name is a key of a dict attribute
every change of which stores a key the instance's own ``__init__`` passes (``add_state("total", ...)`` storing
``self._defaults[name]``, torchmetrics' ``Metric``), a key of that dict again (a loop over it, through another name
for the instance), or a key of a dict a method builds from it (a snapshot restored by a loop); a ``__setstate__``
that only ``copy`` and ``pickle`` call. The setting keeps its literal, so the data-dependent test under it breaks
(measured). gblint reports each conditional on the setting: it does not bound such a dict's keys yet (a first
bounding proved these but was not sound, tests/test_state_keys.py). The attribute names are this program's own,
since a dict's escape would be decided by its name over the whole folder (kb59 hands out a ``_defaults``)."""
import copy

import torch
from torch import nn


class Registry(nn.Module):
    def __init__(self):
        super().__init__()
        self.strategy = "warn"
        self._k58_defaults = {}
        self.add_state("total", torch.zeros(()))
        self.add_state("count", torch.zeros(()))

    def add_state(self, name, default):
        setattr(self, name, default)
        self._k58_defaults[name] = default.clone()

    def reset(self):
        for name, default in self._k58_defaults.items():
            setattr(self, name, default.clone())

    def forward(self, x):
        if self.strategy != "disable":
            if (x > 0).any():
                x = x + 1
        return x * 2


class Snapshot(nn.Module):
    def __init__(self):
        super().__init__()
        self.strategy = "warn"
        self._k58_defaults = {}
        self._k58_cache = None
        self.add_state("total", torch.zeros(()))

    def add_state(self, name, default):
        setattr(self, name, default)
        self._k58_defaults[name] = default.clone()

    def _k58_copy_states(self):
        cache = {}
        for name in self._k58_defaults:
            cache[name] = getattr(self, name).clone()
        return cache

    def sync(self):
        self._k58_cache = self._k58_copy_states()

    def unsync(self):
        for name, value in self._k58_cache.items():
            setattr(self, name, value)
        self._k58_cache = None

    def forward(self, x):
        if self.strategy != "disable":
            if (x > 1).any():
                x = x + 1
        return x * 3


class Pickled(nn.Module):
    def __init__(self):
        super().__init__()
        self.strategy = "warn"

    def __setstate__(self, state):
        self.__dict__.update(state)

    def forward(self, x):
        if self.strategy != "disable":
            if (x > 2).any():
                x = x + 1
        return x * 4


class Rescaled(nn.Module):
    def __init__(self):
        super().__init__()
        self.strategy = "warn"
        self._k58_defaults = {}
        self.add_state("total", torch.ones(()))

    def add_state(self, name, default):
        setattr(self, name, default)
        self._k58_defaults[name] = default.clone()

    def rescale(self, factor):
        this = self
        for name, default in this._k58_defaults.items():
            this._k58_defaults[name] = default * factor
            setattr(self, name, getattr(self, name) * factor)

    def forward(self, x):
        if self.strategy != "disable":
            if (x > 3).any():
                x = x + 1
        return x * 5


def main():
    x = torch.randn(4) + 2
    registry = Registry()
    registry.reset()
    torch.compile(registry, backend="eager")(x)
    snapshot = Snapshot()
    snapshot.sync()
    snapshot.unsync()
    torch.compile(snapshot, backend="eager")(x)
    pickled = Pickled()
    copy.deepcopy(pickled)
    torch.compile(pickled, backend="eager")(x)
    rescaled = Rescaled()
    rescaled.rescale(2.0)
    torch.compile(rescaled, backend="eager")(x)
