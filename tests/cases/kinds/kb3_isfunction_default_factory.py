# A default given as a factory function (`default(experts, lambda: Experts())`, inspect.isfunction decides it
# is called): the layer it builds is the one that runs, and its break is reported (GB0025-style print
# resumes; the .item() in it is GB0124).
from inspect import isfunction

import torch


def default(val, default_val):
    default_val = default_val() if isfunction(default_val) else default_val
    return val if val is not None else default_val


class Experts(torch.nn.Module):
    def forward(self, x):
        scale = x.abs().max().item()
        return x / scale


class MoE(torch.nn.Module):
    def __init__(self, experts=None):
        super().__init__()
        self.experts = default(experts, lambda: Experts())

    def forward(self, x):
        return self.experts(x) + 1


def main():
    model = torch.compile(MoE(), backend="eager")
    model(torch.randn(4, 4))
