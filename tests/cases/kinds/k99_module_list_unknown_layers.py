# The layers come from a factory looked up by a name built at run time: gblint cannot tell what
# `self.layers[i].inverse` runs. It must say so (the call is listed as not followed, the analysis incomplete),
# never "All checks passed". Dynamo breaks at the print in the loop (GB7000, the forward skipped).
import os
import sys

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
        for i in range(len(self.layers)):
            x = self.layers[i].inverse(x)
        return x


LAYERS = []
for _ in range(2):
    LAYERS.append(getattr(sys.modules[__name__], os.environ.get("GBLINT_K99_LAYER", "Shift"))())


def main():
    model = torch.compile(Stack(LAYERS), backend="eager")
    model(torch.ones(2, 3))
