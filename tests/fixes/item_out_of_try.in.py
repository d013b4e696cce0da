import torch


@torch.compile
def scaled(x):
    t = x.sum()
    # the scale, or 0 when the table has none
    try:
        s = t.item()  # a Python float
    except (KeyError, IndexError):
        s = 0.0
    return x * s
