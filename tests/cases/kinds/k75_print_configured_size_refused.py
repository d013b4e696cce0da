# The file lists print in reorderable_logging_functions, but one print passes a torch.Size: Dynamo refuses to
# reorder it ("attempted to reorder a debugging function that can't actually be reordered", GB0296): a break.
import torch

torch._dynamo.config.reorderable_logging_functions.add(print)


@torch.compile(backend="eager")
def flatten(x):
    y = x.reshape(-1) * 2
    print("input shape", x.shape)
    return y + 1


def main():
    return flatten(torch.ones(2, 3))
