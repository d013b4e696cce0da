# Layers appended to a module-level list in a loop, then handed to nn.ModuleList: each layer's `inverse` prints,
# called in a loop over the layers, so Dynamo skips the forward (GB7000). Before, gblint took the list for the
# empty one it was bound to, dropped the call as a builtin's method and printed "All checks passed".
import torch
from torch import nn


class Shift(nn.Module):
    def inverse(self, x):
        print("inverse", x.shape)
        return x - 1


class Stack(nn.Module):
    def __init__(self, layers):
        super().__init__()
        self.layers = nn.ModuleList(layers)

    def forward(self, x):
        for i in range(len(self.layers) - 1, -1, -1):
            x = self.layers[i].inverse(x)
        return x


LAYERS = []
for _ in range(2):
    LAYERS.append(Shift())


def main():
    model = torch.compile(Stack(LAYERS), backend="eager")
    model(torch.ones(2, 3))
