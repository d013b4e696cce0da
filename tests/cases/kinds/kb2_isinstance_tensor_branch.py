# isinstance(v, Tensor) and torch.is_tensor(v) of a tensor are True (Dynamo answers them from the value's
# type): the data-dependent branch a helper takes for tensors breaks (GB0036, nonzero), the one for numbers
# is never taken.
import numbers

import torch
from torch import Tensor


def count_nonzero(v):
    if isinstance(v, numbers.Number):
        return int(v != 0)
    return v.nonzero().shape[0]


def norm_of(v):
    if torch.is_tensor(v):
        return v.nonzero()
    return v


@torch.compile(backend="eager")
def stats(x):
    y = x * 2
    return count_nonzero(y), norm_of(y), isinstance(y, Tensor)


def main():
    stats(torch.tensor([0.0, 1.0, 2.0]))
