# gblint-fix: --unsafe-fixes
import torch


def log_and_scale(g):
    print("scaling")
    return g * 2


@torch.compile
def clip(g):
    if g.norm() > 1:
        g = log_and_scale(g)
    return g
