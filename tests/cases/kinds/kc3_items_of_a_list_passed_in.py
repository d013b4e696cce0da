"""A list or tuple of tensors passed to the compiled function: its items are tensors (the caller's values are facts),
so a branch on one breaks (GB0170) and, in a loop over the list, skips the frame (GB7000). The parameter itself is no
tensor: that must not rule the break out. `-t`, `+t` and `~m` of a tensor are tensors (Tensor.__neg__, __pos__,
__invert__)."""
import torch


@torch.compile(backend="eager")
def first_item(xs):
    x = xs[0]
    if x.sum() > 0:
        return x
    return x * 2


@torch.compile(backend="eager")
def unpacked(pair):
    a, b = pair
    if (a > b).any():
        return a - b
    return b - a


@torch.compile(backend="eager")
def each_item(xs):
    out = xs[0] * 0
    for x in xs:
        if x.sum() > 0:
            out = out + x
    return out


def main():
    first_item([-torch.ones(2), torch.ones(2)])
    unpacked((+torch.ones(2), -torch.ones(2)))
    each_item([torch.ones(2), -torch.ones(2)])


if __name__ == "__main__":
    main()
