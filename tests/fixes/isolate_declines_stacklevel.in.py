import warnings
import torch


@torch.compile
def f(x, xs):
    y = x + 1
    for v in xs:
        warnings.warn("careful", stacklevel=2)
        print(v)
    return y
