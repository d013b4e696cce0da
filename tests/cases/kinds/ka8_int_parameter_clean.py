# Guard: sizes handed in as Python ints (a keyword from the caller, an int parameter, a local bound to data in one
# arm only and used in the other) are no break.
import torch
import torch.nn.functional as F


def expand_classes(idx, num_classes: int, times):
    if num_classes < 0:
        num_classes = idx.max() + 1
    else:
        return F.one_hot(idx, num_classes).repeat(times, 1)
    return idx


@torch.compile(backend="eager")
def forward(idx):
    return expand_classes(idx, num_classes=5, times=2).sum()


def main():
    forward(torch.tensor([1, 0, 4]))
