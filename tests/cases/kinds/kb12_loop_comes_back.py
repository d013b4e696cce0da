# A name bound before a loop to a Python value and to a tensor later in the body is a tensor when the
# next step comes back to it: the branch on it breaks in the second step (the frame is skipped: a break in
# a loop). A loop that binds it to another Python value does not break.
import torch


def comes_back(x):
    s = 0
    for i in range(2):
        if s:
            x = x + 1
        s = x.sum()
    return x


def stays_python(x):
    s = 0
    for i in range(2):
        if s:
            x = x + 1
        s = i + 1
    return x


def main():
    torch.compile(comes_back, backend="eager")(torch.ones(2))
    torch.compile(stays_python, backend="eager")(torch.ones(2))
