# A helper turns a comparison of the tensor it is given into an int: nothing in the helper says it is a tensor.
import torch
import torch.nn as nn


def count_active(h, threshold):
    return int((h > threshold).sum())


def keep_top(h, k):
    return h[:, :k]


class Gate(nn.Module):
    def __init__(self):
        super().__init__()
        self.proj = nn.Linear(6, 6)

    def forward(self, x):
        h = self.proj(x)
        k = count_active(h, 0.0)
        return keep_top(h, k).sum()


def main():
    torch.compile(Gate(), backend="eager")(torch.randn(3, 6))
