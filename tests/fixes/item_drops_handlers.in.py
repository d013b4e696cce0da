# gblint-fix: --unsafe-fixes
import torch


@torch.compile
def scaled(x):
    t = x.sum()
    y = x * 2
    try:
        s = t.item()
    except RuntimeError:
        s = 0.0
    return y * s
