# gblint-fix: safe fixes only (the unsafe fix drops the handlers: item_drops_handlers)
import torch


@torch.compile
def scaled(x):
    t = x.sum()
    try:
        s = t.item()
    except:  # noqa: E722
        s = 0.0
    return x * s
