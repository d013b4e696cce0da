# Breaks only under tests gblint cannot decide (an environment variable read at run time), at the top and in
# helpers it calls: none happens in the measured run, so Dynamo compiles one graph.
import os

import torch
import torch.nn as nn

TRACE = os.environ.get("K52_TRACE_SHAPES", "") == "1"


def log_shape(name, t):
    if TRACE:
        print(name, t.shape)
    return t


def mix(a, b):
    out = a + b
    if os.environ.get("K52_DEBUG"):
        torch._dynamo.graph_break()
    return out


class Mixer(nn.Module):
    def __init__(self):
        super().__init__()
        self.a = nn.Linear(6, 6)
        self.b = nn.Linear(6, 6)

    def forward(self, x):
        h = log_shape("a", self.a(x))
        g = log_shape("b", self.b(x))
        if TRACE:
            print("mix")
        return mix(h, g).sum()


def main():
    torch.compile(Mixer(), backend="eager")(torch.randn(2, 6))
