# `warnings.warn("...")` with only a message in a helper the compiled function calls: warnings is a module Dynamo
# skips (GB0007), a nested break that splits both frames. A nested break gets the nested_graph_breaks advice, not
# the logging fix (listing warnings.warn would remove it: not offered, its prediction re-checks the whole file).
import warnings

import torch


def _clip(y, limit):
    warnings.warn("clipping activations")
    return y.clamp(-limit, limit)


def clipped(x, limit):
    y = x * 3
    return _clip(y, limit) + 1


def main():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return torch.compile(clipped, backend="eager")(torch.linspace(-4.0, 4.0, 7), 2.0)
