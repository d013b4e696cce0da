"""A break met through a call in each arm of a test gblint cannot decide is met whichever arm runs: the nested
break it makes in the caller, and the skip in a loop around, are definite (Block, Stack, forward_metric: two
helpers that each reach the same breaking function). A break met in one arm only stays conditional on its test
(OneArm: the arm did not run in the measured run, no break)."""
import os

import torch
from torch import nn


def optional_rotary():
    return nn.Identity() if os.environ.get("KB51_ROTARY") else None


class Attend(nn.Module):
    def forward(self, q):
        if q.sum() > 0:
            q = q * 2
        return q


class Block(nn.Module):
    def __init__(self, rotary=None):
        super().__init__()
        self.rotary = rotary
        self.attend = Attend()

    def forward(self, x):
        if self.rotary is not None:
            x = self.rotary(x)
            out = self.attend(x)
        else:
            out = self.attend(x)
        return out + 1


class Stack(nn.Module):
    def __init__(self):
        super().__init__()
        self.blocks = nn.ModuleList([Block(optional_rotary()), Block(optional_rotary())])

    def forward(self, x):
        for block in self.blocks:
            x = block(x)
        return x


class OneArm(nn.Module):
    def __init__(self, rotary=None):
        super().__init__()
        self.rotary = rotary
        self.attend = Attend()

    def forward(self, x):
        if self.rotary is not None:
            out = self.attend(x)
        else:
            out = x * 3
        return out - 1


def update(x):
    if x.mean() > 0:
        x = x - 1
    return x


def full_update(x):
    return update(x) * 2


def reduce_update(x):
    return update(x) + 2


FULL = bool(os.environ.get("KB51_FULL"))


@torch.compile(backend="eager")
def forward_metric(x):
    if FULL:
        y = full_update(x)
    else:
        y = reduce_update(x)
    return y.sin()


def main():
    x = torch.ones(4)
    torch.compile(Block(optional_rotary()), backend="eager")(x)
    torch.compile(Stack(), backend="eager")(x)
    torch.compile(OneArm(optional_rotary()), backend="eager")(x)
    forward_metric(x)


if __name__ == "__main__":
    main()
