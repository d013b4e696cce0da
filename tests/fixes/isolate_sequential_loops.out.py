import torch


@torch.compile
def f(x, xs):
    def _f_loop(x):
        for v in xs:
            x = x + v
            print(v)
        return x
    x = _f_loop(x)
    def _f_loop_2(x):
        for v in xs:
            x = x * v
            print(v)
        return x
    x = _f_loop_2(x)
    return x
