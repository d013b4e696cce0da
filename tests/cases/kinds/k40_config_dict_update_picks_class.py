# A dataclass config whose `block` default names a clean block; the driver changes it through `__dict__.update`
# before building the model, so the MoE block (which prints) is built. gblint must not follow the default's class.
from dataclasses import dataclass

import torch
import torch.nn as nn


@dataclass
class StackConfig:
    width: int = 6
    block: str = "DenseBlock"


class DenseBlock(nn.Module):
    def __init__(self, cfg):
        super().__init__()
        self.fc = nn.Linear(cfg.width, cfg.width)

    def forward(self, x):
        return self.fc(x).relu()


class MoEBlock(nn.Module):
    def __init__(self, cfg):
        super().__init__()
        self.experts = nn.ModuleList(nn.Linear(cfg.width, cfg.width) for _ in range(2))

    def forward(self, x):
        print("routing", x.shape)
        return sum(e(x) for e in self.experts)


BLOCKS = {"DenseBlock": DenseBlock, "MoE": MoEBlock}


class Stack(nn.Module):
    def __init__(self, cfg):
        super().__init__()
        self.block = BLOCKS[cfg.block](cfg)

    def forward(self, x):
        return self.block(x).mean()


def main():
    cfg = StackConfig()
    cfg.__dict__.update({"block": "MoE"})
    torch.compile(Stack(cfg), backend="eager")(torch.randn(3, 6))
