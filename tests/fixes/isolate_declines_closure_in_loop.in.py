import torch


@torch.compile
def f(x, xs):
    acc = x
    fns = []
    for v in xs:
        acc = acc + v
        fns.append(lambda: acc)
        print(v)
    acc = 0
    return [g() for g in fns]
