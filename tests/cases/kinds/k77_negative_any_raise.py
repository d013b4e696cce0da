# `if (scale < 0).any(): raise ValueError` on a parameter of a compiled function: a break (GB0170); the fix
# checks `torch.logical_not(...)` with torch._assert_async.
import torch


def weigh(x, scale):
    if (scale < 0).any():
        raise ValueError
    return x * scale + scale.sum()


def main():
    return torch.compile(weigh, backend="eager")(torch.arange(4.0), torch.full((4,), 0.5))
