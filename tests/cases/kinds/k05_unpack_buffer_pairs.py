# Iterating a 2-column buffer and unpacking each row gives 0-d tensors; `if` on them in the loop.
import torch
import torch.nn as nn


class Pairs(nn.Module):
    def __init__(self):
        super().__init__()
        self.register_buffer("pairs", torch.tensor([[0, 1], [2, 2], [3, 1]]))

    def forward(self, x):
        total = x.sum() * 0
        for a, b in self.pairs:
            if a == b:
                total = total + x[a]
        return total


def main():
    model = torch.compile(Pairs(), backend="eager")
    model(torch.randn(4))
