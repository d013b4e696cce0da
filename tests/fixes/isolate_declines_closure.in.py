import torch


@torch.compile
def f(x, xs):
    acc = x
    get = lambda: acc
    for v in xs:
        acc = acc + v
        print(v)
    return get()
