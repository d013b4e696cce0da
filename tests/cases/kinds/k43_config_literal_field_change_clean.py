# Guard: configs changed only in fields the model's choices do not read, with literal names and keys
# (`cfg.__dict__["depth"] = 2`, `setattr(cfg, "width", 8)`, `vars(cfg).update(depth=3)`): the block default
# still picks the clean block and the branch on `verbose` stays not taken. Nothing breaks.
from dataclasses import dataclass

import torch
import torch.nn as nn


@dataclass
class TowerConfig:
    width: int = 4
    depth: int = 1
    verbose: bool = False
    kind: str = "plain"


class PlainLayer(nn.Module):
    def __init__(self, cfg):
        super().__init__()
        self.fc = nn.Linear(cfg.width, cfg.width)

    def forward(self, x):
        return self.fc(x)


class LoudLayer(nn.Module):
    def __init__(self, cfg):
        super().__init__()
        self.fc = nn.Linear(cfg.width, cfg.width)

    def forward(self, x):
        print("loud", x.sum())
        return self.fc(x)


LAYERS = {"plain": PlainLayer, "loud": LoudLayer}


class Tower(nn.Module):
    def __init__(self, cfg):
        super().__init__()
        self.cfg = cfg
        self.layers = nn.ModuleList(LAYERS[cfg.kind](cfg) for _ in range(cfg.depth))

    def forward(self, x):
        for layer in self.layers:
            x = layer(x)
        if self.cfg.verbose:
            print("tower", x.shape)
        return x.sum()


def main():
    cfg = TowerConfig()
    cfg.__dict__["depth"] = 2
    setattr(cfg, "width", 8)
    vars(cfg).update(depth=3)
    torch.compile(Tower(cfg), backend="eager")(torch.randn(2, 8))
