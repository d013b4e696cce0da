# The outer test is decided true from the literal keywords, the inner one reads a flag set from the environment:
# the print is reached only when the flag is on (off in this run: no break), so it is conditional, not definite.
import os

import torch
import torch.nn as nn

DEBUG = os.environ.get("K34_DEBUG_LOG") == "1"


def log_extra(extra):
    if len(extra) > 0:
        if DEBUG:
            print("extra", extra)


def forward_with(x, **extra):
    log_extra(extra)
    return x - 1


class Block(nn.Module):
    def forward(self, x):
        return forward_with(x, mode="fast").sum()


def main():
    torch.compile(Block(), backend="eager")(torch.randn(2, 5))
