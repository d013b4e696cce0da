# A module whose forward is skipped (an .item() in a loop) runs a list comprehension over its own blocks.
import torch
import torch.nn as nn


class Branches(nn.Module):
    def __init__(self):
        super().__init__()
        self.blocks = nn.ModuleList([nn.Linear(4, 4), nn.Linear(4, 4)])

    def forward(self, x):
        budget = 0.0
        for b in self.blocks:
            budget += b.weight.abs().max().item()
        outs = [blk(x) / budget for blk in self.blocks]
        return sum(outs)


def main():
    torch.compile(Branches(), backend="eager")(torch.randn(2, 4))
