# A call of a NumPy scalar type (np.int64(n), np.float32(v), np.bool_(b)) is traced by Dynamo as a 0-d
# ndarray, a tensor: range() of one breaks, a branch on one breaks; arithmetic with one stays in the graph.
# (int() of one made from Python values breaks or folds by function, measured: no rule claims it.)
import numpy as np
import torch


def ranged(x):
    for i in range(np.int64(3)):
        x = x + i
    return x


def branched(x):
    if np.bool_(True):
        x = x + 1
    return x


def scaled(x):
    return x * np.float32(2.0)


def main():
    for fn in (ranged, branched, scaled):
        torch.compile(fn, backend="eager")(torch.ones(2))
