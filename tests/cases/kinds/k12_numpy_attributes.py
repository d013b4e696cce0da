# NumPy values computed in __init__ and kept on the module: Dynamo wraps them as tensors, so `if` on them
# breaks, while `int()` of a NumPy product is folded (no break).
import numpy as np
import torch
import torch.nn as nn


class Scaled(nn.Module):
    def __init__(self, dim):
        super().__init__()
        self.scale = 1.0 / np.sqrt(dim)
        self.numel = np.prod([2, dim // 2])
        self.proj = nn.Linear(dim, dim)

    def forward(self, x):
        y = self.proj(x).reshape(-1, int(self.numel))
        if self.scale < 1:
            y = y * self.scale
        return y


def main():
    model = torch.compile(Scaled(4), backend="eager")
    model(torch.randn(3, 4))
