# gblint-fix: --unsafe-fixes
import torch


@torch.compile
def safe_ratio(a, b):
    try:
        q = a / b
        torch._dynamo.graph_break()
    except ZeroDivisionError:
        q = torch.zeros_like(a)
    return q + 1
