# A test whose kind the code does not show (`t = acc.total_of(x)`, a method of a module-level helper object,
# then `if t > 1:`) is a break where the walk proves the value a tensor (GB0170); the same test on a method
# that returns a Python number (`acc.count_of(x)`) is no break.
import torch


class Accumulator:
    def total_of(self, x):
        return x.sum()

    def count_of(self, x):
        return len(x.shape)


acc = Accumulator()


@torch.compile(backend="eager")
def step(x):
    n = acc.count_of(x)
    if n > 1:
        x = x.flatten()
    t = acc.total_of(x)
    if t > 1:
        return x + 1
    return x - 1


def main():
    step(torch.ones(2, 3))
