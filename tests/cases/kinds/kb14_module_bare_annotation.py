# A bare annotation in an nn.Module's class body (`_cached: Optional[...]`) sets nothing: the attribute holds what
# __init__ stored (None), so the first call takes the uncached branch and breaks there.
from typing import Optional, Tuple

import torch


class Conv(torch.nn.Module):
    _cached: Optional[Tuple[torch.Tensor, torch.Tensor]]

    def __init__(self, cached: bool = False):
        super().__init__()
        self.cached = cached
        self._cached = None

    def forward(self, x):
        cache = self._cached
        if cache is None:
            torch._dynamo.graph_break()
            if self.cached:
                self._cached = (x, x)
        else:
            x = cache[0]
        return x * 2


def main():
    m = torch.compile(Conv(), backend="eager")
    m(torch.ones(2))
