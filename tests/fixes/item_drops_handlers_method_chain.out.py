# gblint-fix: --unsafe-fixes
import torch


@torch.compile
def scaled(x, ref):
    y = x * 2
    s = (y - ref).abs().max().item()
    return y * s
