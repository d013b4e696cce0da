# `warnings.warn("...")` with only a message in a compiled function: warnings is a module Dynamo skips (GB0007).
# `warnings.warn` is a builtin Dynamo can reorder: listing it removes the break.
import warnings

import torch


def clipped(x, limit):
    y = x.clamp(-limit, limit)
    warnings.warn("clipping activations")
    return y * 3


def main():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return torch.compile(clipped, backend="eager")(torch.linspace(-4.0, 4.0, 7), 2.0)
