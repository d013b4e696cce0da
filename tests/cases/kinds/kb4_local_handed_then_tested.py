# A tensor local handed to a helper that changes it in place is still a tensor afterwards: the helper that tests
# its data next breaks (GB0170) for sure. A list a helper fills is no longer known empty: its test stays open.
import torch


def scale_(t):
    t.mul_(2)


def fill(xs):
    xs.append(1)


def positive(t):
    if t.sum() > 0:
        return t
    return -t


@torch.compile(backend="eager")
def step(x):
    y = x * 2
    scale_(y)
    flags = []
    fill(flags)
    if flags:
        y = y + 1
    return positive(y)


def main():
    step(torch.ones(3))
