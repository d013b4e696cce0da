# gblint-fix: --unsafe-fixes
import torch


@torch.compile
def scaled(x, ref):
    y = x * 2
    try:
        s = (y - ref).abs().max().item()
    except RuntimeError:
        s = 0.0
    return y * s
