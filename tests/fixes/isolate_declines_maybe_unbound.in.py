import torch


@torch.compile
def f(x, xs, flag=None):
    if flag:
        last = x
    for v in xs:
        last = v
        print(v)
    return x + last
