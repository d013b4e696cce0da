# gblint-fix: --unsafe-fixes
import torch


@torch.compile
def scaled(x, stats):
    try:
        s = stats["sum"].item()
    except KeyError:
        s = 0.0
    return x * s
