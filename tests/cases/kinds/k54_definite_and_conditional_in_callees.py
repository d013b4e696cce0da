# A definite break in one helper and conditional ones (a flag read from the environment) in another: the
# definite one splits the caller and the helper; the conditional ones do not happen in the measured run.
import os

import torch
import torch.nn as nn


def attend(q, k):
    scores = q @ k.transpose(-1, -2)
    if os.environ.get("K54_CHECK_SCORES"):
        torch._dynamo.graph_break()
    return scores.softmax(-1)


def report(h):
    h = h * 1.5
    torch._dynamo.graph_break()
    return h + 1


class Layer(nn.Module):
    def __init__(self):
        super().__init__()
        self.q = nn.Linear(4, 4)
        self.k = nn.Linear(4, 4)

    def forward(self, x):
        a = attend(self.q(x), self.k(x))
        h = report(a @ x)
        return h.mean()


def main():
    torch.compile(Layer(), backend="eager")(torch.randn(3, 4))
