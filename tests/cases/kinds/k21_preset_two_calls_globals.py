# A dataclass config made from a preset two calls away from the driver; the layer class is looked up in
# this module's globals() by the config's name, and the layers run in a loop.
from dataclasses import dataclass

import torch
import torch.nn as nn

LAYER_PRESETS = {
    "plain": {"hidden": 4},
    "bucketed": {"hidden": 4, "layer": "BucketLayer", "repeat": 2},
}


@dataclass
class StackConfig:
    hidden: int = 4
    repeat: int = 1
    layer: str = "PlainLayer"


class PlainLayer(nn.Module):
    def __init__(self, cfg):
        super().__init__()
        self.lin = nn.Linear(cfg.hidden, cfg.hidden)

    def forward(self, x):
        return torch.relu(self.lin(x))


class BucketLayer(nn.Module):
    def __init__(self, cfg):
        super().__init__()
        self.lin = nn.Linear(cfg.hidden, cfg.hidden)

    def forward(self, x):
        h = self.lin(x)
        sizes = (h > 0).sum(dim=1).tolist()
        return h * (1.0 + max(sizes))


class Stack(nn.Module):
    def __init__(self, cfg):
        super().__init__()
        layer_cls = globals()[cfg.layer]
        self.layers = nn.ModuleList([layer_cls(cfg) for _ in range(cfg.repeat)])

    def forward(self, x):
        for layer in self.layers:
            x = layer(x)
        return x.mean()


def make_config(preset):
    return StackConfig(**LAYER_PRESETS[preset])


def build(preset):
    cfg = make_config(preset)
    return Stack(cfg)


def main():
    model = torch.compile(build("bucketed"), backend="eager")
    model(torch.randn(3, 4))
