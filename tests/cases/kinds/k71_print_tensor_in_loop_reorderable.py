# A debugging print of a tensor inside a loop of a compiled function: the frame is skipped (GB0059 in a loop,
# GB7000). The print is the loop's only break and Dynamo can reorder it: the fix lists `print` in
# reorderable_logging_functions instead of unrolling the loop (one print per step) or moving it into a helper.
import torch


def refine(x, steps):
    for step in range(steps):
        x = x - 0.1 * torch.tanh(x)
        print("residual", x.abs().max())
    return x * 2


def main():
    return torch.compile(refine, backend="eager")(torch.linspace(-1.0, 1.0, 5), 3)
