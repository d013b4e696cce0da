import torch


@torch.compile
def f(x, xs):
    y = x + 1
    for v in xs:
        z = v
        print(sorted(locals()))
    return y
