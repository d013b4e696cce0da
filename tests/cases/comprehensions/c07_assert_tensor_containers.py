# `assert` on containers of tensors: a star-args tuple built from a list, a list argument; and
# `assert` on a tuple of ints (a constant).
import torch


def stack_all(*items):
    assert items
    return torch.stack(items)


def check_list(feats):
    assert feats, "no features"
    return feats[0] + 1


def run(x):
    dims = (1, 2)
    assert dims
    a = stack_all(*[x, x + 1])
    b = check_list([x * 2, x])
    return a.sum() + b.sum()


def main():
    torch.compile(run, backend="eager")(torch.randn(3))
