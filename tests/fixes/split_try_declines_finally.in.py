# gblint-fix: --unsafe-fixes
import torch


@torch.compile
def staged(x):
    try:
        x = x * 2
        torch._dynamo.graph_break()
    finally:
        x = x - 1
    return x.cos()
