import torch


@torch.compile
def f(x, xs):
    def _loop_6(x):
        for v in xs:
            x = x + v
            print(v)
        return x
    x = _loop_6(x)
    def _loop_12(x):
        for v in xs:
            x = x * v
            print(v)
        return x
    x = _loop_12(x)
    return x
