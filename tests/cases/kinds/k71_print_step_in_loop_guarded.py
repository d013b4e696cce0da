# A debugging print of the loop counter inside a loop of a compiled function: the frame is skipped (GB0059 in a
# loop, GB7000). Its argument is a Python int, not a literal or a tensor, so the fix guards the print with
# `if not torch.compiler.is_compiling():` instead of unrolling the loop.
import torch


def refine(x, steps):
    for step in range(steps):
        print("refine step", step)
        x = x - 0.1 * torch.tanh(x)
    return x * 2


def main():
    return torch.compile(refine, backend="eager")(torch.linspace(-1.0, 1.0, 5), 3)
