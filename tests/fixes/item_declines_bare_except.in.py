# gblint-fix: --unsafe-fixes
import torch


@torch.compile
def scaled(x):
    t = x.sum()
    try:
        s = t.item()
    except:  # noqa: E722
        s = 0.0
    return x * s
