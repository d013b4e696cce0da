# The preset's name comes from the environment (unset when measured: the "base" preset, whose block is
# clean); gblint cannot know it, so the block call stays "not followed" (never the default's block).
import os
import sys
from dataclasses import dataclass

import torch
import torch.nn as nn

PRESETS = {
    "base": dict(dim=8),
    "gated": dict(dim=8, block="GatedBlock"),
}


@dataclass
class BlockConfig:
    dim: int = 8
    block: str = "ResidualBlock"

    @classmethod
    def named(cls, name):
        return cls(**PRESETS[name])


class ResidualBlock(nn.Module):
    def __init__(self, config):
        super().__init__()
        self.proj = nn.Linear(config.dim, config.dim)

    def forward(self, x):
        return x + self.proj(x)


class GatedBlock(nn.Module):
    def __init__(self, config):
        super().__init__()
        self.proj = nn.Linear(config.dim, config.dim)

    def forward(self, x):
        h = self.proj(x)
        if h.mean() > 0:
            return h
        return x


class Net(nn.Module):
    def __init__(self, config):
        super().__init__()
        self.block = getattr(sys.modules[__name__], config.block)(config)

    def forward(self, x):
        return self.block(x).sum()


def main():
    config = BlockConfig.named(os.environ.get("GBLINT_K22_PRESET", "base"))
    net = torch.compile(Net(config), backend="eager")
    net(torch.randn(2, 8))
