import dataclasses

import torch


class Shadowed:
    def __init__(self, y, other=False):
        self.y = y
        if other:
            self.step = self.other  # an instance attribute: `type(s).step` would not read it

    def other(self, x):
        return x

    def step(self, x):
        print("stepping")
        return x + self.y


@dataclasses.dataclass
class Shift:
    y: torch.Tensor

    def apply(self, x):
        print("shifting")
        return x + self.y


@torch.compile
def shadowed(x):
    s = Shadowed(x)
    return s.step(x) * 2


@torch.compile
def expression_receiver(x):
    return Shift(x).apply(x) * 2


@torch.compile
def type_rebound(x):
    type = str  # noqa: A001 - `type(s)` would call this
    s = Shift(x)
    return s.apply(x) + len(type(1))
