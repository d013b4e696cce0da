# the safe `.item()` rewrite declines (two statements); the unsafe split of the `try` is not asked for
import torch


@torch.compile
def scaled(x, table):
    t = x.sum()
    try:
        s = t.item()
        s = s * table["scale"]
    except KeyError:
        s = 0.0
    return x * s
