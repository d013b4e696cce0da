# gblint-fix: --unsafe-fixes
import torch


@torch.compile
def safe_ratio(a, b):
    try:
        q = a / b
    except ZeroDivisionError:
        q = torch.zeros_like(a)
    torch._dynamo.graph_break()
    return q + 1
