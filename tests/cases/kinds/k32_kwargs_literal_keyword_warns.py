# A keyword the wrapper does not name (`trace=None`) lands in `**rest` and reaches the checker two calls down:
# `rest` is `{"trace": None}`, the test is true and the warning breaks the graph (nested).
import warnings

import torch
import torch.nn as nn


def check_unused(unused, where=None):
    if len(unused) > 0:
        if where is not None:
            warnings.warn(f"{where}: unexpected {unused}")
        else:
            warnings.warn(f"unexpected {unused}")


def integrate(x, dt=0.1, **rest):
    check_unused(rest, where="integrate")
    return x + dt


class Flow(nn.Module):
    def forward(self, x):
        return integrate(x, dt=0.5, trace=None).sum()


def main():
    torch.compile(Flow(), backend="eager")(torch.randn(3, 2))
