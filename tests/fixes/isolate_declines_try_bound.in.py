import torch


@torch.compile
def f(x, xs):
    try:
        last = x.sum()
    except RuntimeError:
        pass
    for v in xs:
        last = v
        print(v)
    return x + last
