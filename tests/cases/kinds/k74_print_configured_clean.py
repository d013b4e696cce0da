# Guard: the file lists print in reorderable_logging_functions and prints a tensor and a literal: no break.
import torch

torch._dynamo.config.reorderable_logging_functions.add(print)


@torch.compile(backend="eager")
def scaled(x):
    y = x * 4
    print("scaled", y)
    return y - 1


def main():
    return scaled(torch.ones(3))
