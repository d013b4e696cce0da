# sorted() of tensors breaks only when a key is a tensor (GB0207): a shape, dim(), len or a constant key
# sorts in the graph. A key function whose result the code does not show is conditional.
import torch


def by_shape(a, b, c):
    o = sorted([a, b, c], key=lambda t: t.shape[0])
    return o[0] * 2


def by_dim(a, b, c):
    o = sorted([a, b, c], key=lambda t: t.dim())
    return o[0] * 2


def by_constant(a, b, c):
    o = sorted([a, b, c], key=lambda t: 0)
    return o[0] * 2


def by_len(a, b, c):
    o = sorted([a, b, c], key=len)
    return o[0] * 2


def by_sum(a, b, c):
    o = sorted([a, b, c], key=lambda t: t.sum())
    return o[0] * 2


def main():
    x = torch.ones(3)
    for fn in (by_shape, by_dim, by_constant, by_len):
        torch.compile(fn, backend="eager")(x, x + 1, x + 2)
    torch.compile(by_sum, backend="eager")(x, x + 1, x + 2)
