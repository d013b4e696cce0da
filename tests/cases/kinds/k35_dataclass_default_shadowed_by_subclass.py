# Guard: a subclass that is no dataclass re-assigns a field's default in its body, but the inherited generated
# `__init__` sets the dataclass's own default on the instance: the dense block is built and nothing breaks.
import sys
from dataclasses import dataclass

import torch
import torch.nn as nn


class Dense(nn.Module):
    def forward(self, x):
        return x * 2


class Routed(nn.Module):
    def forward(self, x):
        return x * x.sum().item()


@dataclass
class Config:
    block_name: str = "Dense"


class RoutedConfig(Config):  # no @dataclass: Config's __init__ still sets block_name = "Dense"
    block_name: str = "Routed"


class Net(nn.Module):
    def __init__(self, cfg):
        super().__init__()
        self.block = getattr(sys.modules[__name__], cfg.block_name)()

    def forward(self, x):
        return self.block(x) + 1


def main():
    torch.compile(Net(RoutedConfig()), backend="eager")(torch.randn(4))
