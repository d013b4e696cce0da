# gblint-fix: --unsafe-fixes
import torch


@torch.compile
def scaled(x):
    t = x.sum()
    y = x * 2
    s = t.item()
    return y * s
