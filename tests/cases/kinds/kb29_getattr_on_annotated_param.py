# `getattr(cache, "name", default)` on a parameter annotated with a class (`Optional[Cache]`) or with nothing runs
# the property of what the caller passes: here one that prints, a graph break in the property. Reading a
# parameter that may be a tensor as "a tensor" had left such reads unfollowed (no break reported).
from typing import Optional

import torch


class Cache:
    @property
    def is_compileable(self):
        print("compileable?")
        return False


def causal_mask(x, cache: Optional[Cache]):
    skip = not (getattr(cache, "is_compileable", False) and x.shape[0] == 1)
    return x if skip else x * 2


def plain_mask(x, cache):
    skip = not getattr(cache, "is_compileable", False)
    return x if skip else x * 2


def main():
    torch.compile(causal_mask, backend="eager")(torch.ones(2), Cache())
    torch.compile(plain_mask, backend="eager")(torch.ones(2), Cache())
