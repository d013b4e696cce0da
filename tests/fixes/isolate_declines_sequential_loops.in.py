import torch


@torch.compile
def f(x, xs):
    for v in xs:
        x = x + v
        print(v)
    for v in xs:
        x = x * v
        torch._dynamo.graph_break()
    return x
