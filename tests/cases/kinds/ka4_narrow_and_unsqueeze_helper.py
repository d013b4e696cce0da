# A helper handed a tensor narrows it by a length read out of a second tensor, then unsqueezes at a dim read out of
# data: both need ints (GB0033), each breaks in the helper, nested under the compiled caller.
import torch


def crop(x, n):
    length = torch.min(n) + 1
    return x.narrow(0, 0, length)


def lift(y, where):
    return y.unsqueeze(where.max())


@torch.compile(backend="eager")
def step(x, n):
    return lift(crop(x, n), n - n) + 1


def main():
    step(torch.arange(6.0), torch.tensor([2, 3]))
