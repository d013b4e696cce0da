# A layer appended to a module-level list under a test the module decides at run time (an environment
# variable): it may not be there, so the print its inverse makes (called in a loop: Dynamo skips the forward,
# GB7000) is conditional on the list holding it, and the call on the list's item is followed only in part.
import os

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
if os.environ.get("GBLINT_KB19_LAYERS", "1") == "1":
    LAYERS.append(Shift())


def main():
    model = torch.compile(Stack(LAYERS), backend="eager")
    model(torch.ones(2, 3))
