"""The registry a store by name iterates is filled by a method that `__init__` calls through another method of
the class (`__init__` -> `self._create_state()` -> `self.add_state("tp", ...)`). Dynamo breaks on `strategy`;
gblint keeps the break conditional: the registry is a dict attribute, whose keys it does not bound."""
import torch
from torch import nn


class Counter(nn.Module):
    def __init__(self, strategy="warn", size=1):
        super().__init__()
        self._defaults = {}
        self.strategy = strategy
        self._create_state(size)

    def _create_state(self, size):
        self.add_state("tp", torch.zeros(size))
        self.add_state("fp", torch.zeros(size))

    def add_state(self, name, default):
        self._defaults[name] = default
        setattr(self, name, default.clone())

    def reset(self):
        for attr, default in self._defaults.items():
            setattr(self, attr, default.clone())

    def forward(self, x):
        self.reset()
        if self.strategy != "disable":
            if (x > 0).any():
                self.tp = self.tp + 1
        return x * 2


def main():
    torch.compile(Counter(), backend="eager")(torch.randn(4))
