# inspect.isfunction of a def written with a decorator is not decided from the def: a module-level
# @staticmethod is a staticmethod object, no function; the branch it guards does not run (no break).
import inspect

import torch


@staticmethod
def scale(v):
    return v * 2


@torch.compile(backend="eager")
def f(x):
    if inspect.isfunction(scale):
        torch._dynamo.graph_break()
    return x + 1


def main():
    f(torch.randn(3))
