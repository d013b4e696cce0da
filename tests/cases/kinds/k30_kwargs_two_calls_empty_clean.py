# Keywords a wrapper does not name are collected in `**extra` and handed to a checker two calls down, which warns
# when there are any: the compiled forward names every keyword it passes, so `extra` is empty and nothing warns.
import warnings

import torch
import torch.nn as nn


def report_unused(unused, origin=None):
    if len(unused) > 0:
        if origin is not None:
            warnings.warn(f"{origin}: unexpected {unused}")
        else:
            warnings.warn(f"unexpected {unused}")


def solve(x, steps=1, scale=1.0, **extra):
    report_unused(extra, origin="solve")
    for _ in range(steps):
        x = x * scale
    return x


def run(x, **options):
    report_unused(options, "run")
    return solve(x, steps=2, scale=0.5)


class Solver(nn.Module):
    def forward(self, x):
        y = solve(x, steps=3, scale=0.25)
        return run(y).sum()


def main():
    torch.compile(Solver(), backend="eager")(torch.randn(4, 3))
