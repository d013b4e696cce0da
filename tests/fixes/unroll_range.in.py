import torch


@torch.compile
def refine(x):
    x = x.sin()
    # three refinement steps
    for step in range(3):
        x = x * 0.9 + step
        torch._dynamo.graph_break()
    return x.cos()
