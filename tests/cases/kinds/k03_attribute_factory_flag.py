# An attribute assigned nn.Buffer(torch.tensor(True)) in __init__ is tested with `not` in a helper method.
import torch
import torch.nn as nn


class Normalizer(nn.Module):
    def __init__(self):
        super().__init__()
        self.fresh = nn.Buffer(torch.tensor(True))
        self.mean = nn.Buffer(torch.zeros(3))

    def update(self, x):
        if not self.fresh:
            return x - self.mean
        return x

    def forward(self, x):
        return self.update(x) * 2


def main():
    model = torch.compile(Normalizer(), backend="eager")
    model(torch.randn(4, 3))
