# A parameter registered with register_parameter is tested with `if` in forward: a data-dependent branch.
import torch
import torch.nn as nn


class Gated(nn.Module):
    def __init__(self):
        super().__init__()
        self.register_parameter("gate", nn.Parameter(torch.ones(1)))
        self.proj = nn.Linear(4, 4)

    def forward(self, x):
        y = self.proj(x)
        if self.gate > 0:
            y = y * self.gate
        return y.relu()


def main():
    model = torch.compile(Gated(), backend="eager")
    model(torch.randn(2, 4))
