# An environment flag guards a print (resumable, conditional); the .item() after it breaks whether or not the print
# ran (the helper is re-run as its own frame after a nested break): still definite, in the helper and at the call.
import os

import torch

VERBOSE = os.environ.get("GBLINT_K67_VERBOSE") == "1"


def step(h):
    if VERBOSE:
        print("step", h.shape)
    return h * 2 + h.sum().item()


class Net(torch.nn.Module):
    def forward(self, x):
        return step(x + 1) - 1


def main():
    model = torch.compile(Net(), backend="eager")
    model(torch.randn(4))
