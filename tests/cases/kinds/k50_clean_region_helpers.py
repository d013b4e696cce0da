# A clean compiled module whose forward calls plain helpers and a submodule: one graph, nothing to report.
import torch
import torch.nn as nn


def scale_shift(h, scale, shift):
    return h * scale + shift


class Block(nn.Module):
    def __init__(self):
        super().__init__()
        self.proj = nn.Linear(8, 8)
        self.norm = nn.LayerNorm(8)

    def forward(self, x):
        return self.norm(scale_shift(self.proj(x), 2.0, 0.5)).relu()


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.block = Block()
        self.head = nn.Linear(8, 2)

    def forward(self, x):
        return self.head(self.block(x) + x)


def main():
    torch.compile(Net(), backend="eager")(torch.randn(4, 8))
