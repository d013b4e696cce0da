import torch


@torch.compile
def refine(x):
    x = x.sin()
    # three refinement steps
    step = 0
    x = x * 0.9 + step
    torch._dynamo.graph_break()
    step = 1
    x = x * 0.9 + step
    torch._dynamo.graph_break()
    step = 2
    x = x * 0.9 + step
    torch._dynamo.graph_break()
    return x.cos()
