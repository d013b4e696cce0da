# Layers appended in __init__ by a loop over range(layers): with layers=2 each is there (the break in their
# forward, called in a loop, skips Base.forward); a list built by a loop of no step holds none (no break, empty()).
from typing import Optional

import torch


class Conv(torch.nn.Module):
    _cached: Optional[torch.Tensor]

    def __init__(self, a, b, cached=False):
        super().__init__()
        self.cached = cached
        self.lin = torch.nn.Linear(a, b)
        self.reset_parameters()

    def reset_parameters(self):
        self.lin.reset_parameters()
        self._cached = None

    def forward(self, x):
        cache = self._cached
        if cache is None:
            torch._dynamo.graph_break()
        return self.lin(x)


class Base(torch.nn.Module):
    def __init__(self, n, layers):
        super().__init__()
        self.convs = torch.nn.ModuleList()
        for _ in range(layers):
            self.convs.append(self.init_conv(n, n))
        self.norms = torch.nn.ModuleList()
        for _ in range(layers):
            self.norms.append(torch.nn.Identity())

    def init_conv(self, a, b):
        raise NotImplementedError

    def forward(self, x):
        for conv, norm in zip(self.convs, self.norms):
            x = norm(conv(x))
        return x


class Net(Base):
    def init_conv(self, a, b):
        return Conv(a, b)


def main():
    torch.compile(Net(4, 2), backend="eager")(torch.ones(2, 4))


def empty():
    torch.compile(Net(4, 0), backend="eager")(torch.ones(2, 4))
