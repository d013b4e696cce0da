"""``torch._dynamo.config.disable = 1`` at the top of a file switches Dynamo off as ``True`` does: nothing is
traced (found by a helper: a definite diagnostic before)."""
import torch

torch._dynamo.config.disable = 1


@torch.compile(backend="eager")
def f(x):
    print("f")
    return x + 1


def main():
    f(torch.ones(3))


main()
