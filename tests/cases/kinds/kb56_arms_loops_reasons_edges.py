"""Edges of kb51-kb53 found by a helper on programs not seen before. A break met in a loop in one arm (the frame is
skipped) and outside it in the other (the frame resumes) is not met "whichever arm runs" with one effect: the skip
stays conditional, and Dynamo, with the other arm taken, resumes (``loop_or_once``). A list bound before a loop and
changed in place in it (``rot.pop()``) is no value kept through the loop: the second layer gets an empty list, its
test is conditional, and Dynamo does not break (``PopInLoop``). Two breaks in one later loop are one further reason
(``two_in_later_loop``); a ``with`` of a manager Dynamo cannot resume in, after a ``try`` reason, is one
(``try_then_with``)."""
import os

import torch
from torch import nn

N = int(os.environ.get("KB56_N", "1"))


def report(t):
    print("r", t.mean())
    return t


@torch.compile(backend="eager")
def loop_or_once(x, n):
    if n > 2:
        for _ in range(n):
            x = report(x)
    else:
        x = report(x + 1)
    return x.abs()


class Block(nn.Module):
    def __init__(self, rotary=None):
        super().__init__()
        self.fc = nn.Linear(4, 4)
        self.rotary = rotary

    def forward(self, x):
        if self.rotary:
            torch._dynamo.graph_break()
        return self.fc(x)


class PopInLoop(nn.Module):
    def __init__(self, depth=2):
        super().__init__()
        rot = [nn.Identity()]
        self.blocks = nn.ModuleList()
        for i in range(depth):
            self.blocks.append(Block(rotary=rot))
            if rot:
                rot.pop()

    def forward(self, x):
        x = self.blocks[0](x)
        return self.blocks[1](x)


@torch.compile(backend="eager")
def two_in_later_loop(x, lr):
    try:
        a = lr.item()
    except RuntimeError:
        a = 0.1
    for i in range(2):
        torch._dynamo.graph_break()
        x = x + 1
        torch._dynamo.graph_break()
    return x * a


class Timer:
    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return False


@torch.compile(backend="eager")
def try_then_with(x, lr):
    try:
        a = lr.item()
    except RuntimeError:
        a = 0.1
    with Timer():
        print("lr", lr)
    return x * a


def main():
    x = torch.ones(4)
    loop_or_once(x, N)
    torch.compile(PopInLoop(), backend="eager")(x)
    two_in_later_loop(x, torch.tensor(0.1))
    try_then_with(x, torch.tensor(0.1))


if __name__ == "__main__":
    main()
