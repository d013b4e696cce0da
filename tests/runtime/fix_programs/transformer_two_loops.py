# A small transformer whose forward runs its blocks in two loops, each block printing: Dynamo skips
# forward (a break in a loop). Moving the first loop into a helper leaves forward skipped by the
# second loop and skips the helper too (measured: tests/test_fix_runtime.py).
import torch
import torch.nn as nn


class Block(nn.Module):
    def __init__(self, d):
        super().__init__()
        self.attn = nn.Linear(d, d)
        self.mlp = nn.Linear(d, d)

    def forward(self, x):
        h = self.attn(x).relu()
        print("block", h.shape)
        return x + self.mlp(h)


class Transformer(nn.Module):
    def __init__(self, d=8, n=2):
        super().__init__()
        self.embed = nn.Linear(d, d)
        self.blocks = nn.ModuleList([Block(d) for _ in range(n)])
        self.head = nn.Linear(d, d)

    def forward(self, x):
        x = self.embed(x)
        for blk in self.blocks:
            x = blk(x)
        x = self.head(x)
        for blk in self.blocks:
            x = blk(x)
        return x


model = Transformer()
compiled = torch.compile(model, backend="eager")


def main():
    compiled(torch.randn(2, 8))
