import torch

scale = 2.0


@torch.compile
def f(x, xs):
    y = x * 2
    if not xs:
        return y * scale  # `scale` is local to f (the loop assigns it): UnboundLocalError, not 2.0
    for v in xs:
        scale = v
        print(v)
    return y
