# gblint-fix: --unsafe-fixes
import contextlib

import torch


@torch.compile
def tolerant(x):
    x = x - 1
    with contextlib.suppress(KeyError):
        x = x * 4
    torch._dynamo.graph_break()
    with contextlib.suppress(KeyError):
        x = x.abs()
    return x.mean()
