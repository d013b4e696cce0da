# A step counter registered as a buffer from a local tensor, tested by a `while` and a ternary.
import torch
import torch.nn as nn


class Warmup(nn.Module):
    def __init__(self, steps):
        super().__init__()
        start = torch.zeros(()) + steps
        self.register_buffer("remaining", start, persistent=False)

    def forward(self, x):
        scale = 0.5 if self.remaining > 0 else 1.0
        return x * scale


def main():
    model = torch.compile(Warmup(3), backend="eager")
    model(torch.randn(5))
