# zip over the rows of two buffers with `if` on a row element in the loop: the frame runs eagerly.
import torch
import torch.nn as nn


class Ranges(nn.Module):
    def __init__(self):
        super().__init__()
        self.register_buffer("lows", torch.tensor([0.0, 1.0, 2.0]))
        self.register_buffer("highs", torch.tensor([1.0, 0.5, 3.0]))

    def forward(self, x):
        out = x
        for lo, hi in zip(self.lows, self.highs):
            if lo < hi:
                out = out.clamp(min=lo)
        return out


def main():
    model = torch.compile(Ranges(), backend="eager")
    model(torch.randn(6))
