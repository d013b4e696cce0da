# kb25's guarded store (`if self.cached: self._cache = ...` with cached=False never runs), in a method the program
# also calls by name (`self.conv.forward(x)`, as torch-geometric's layers call each other's `forward`): a method the
# program calls joins the building ones, and the guard was tested only on the others, so the store counted and the
# `if cache is None:` before the boolean-mask indexing was undecided (GCNConv's `_cached_edge_index`). The
# indexing breaks (GB0036), definite.
import torch


class Conv(torch.nn.Module):
    def __init__(self, cached=False):
        super().__init__()
        self.cached = cached
        self._cache = None
        self.lin = torch.nn.Linear(4, 4)

    def forward(self, x):
        cache = self._cache
        if cache is None:
            y = x[x.sum(-1) > 0]
            if self.cached:
                self._cache = y
        else:
            y = cache
        return self.lin(y)


class Outer(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.conv = Conv()

    def forward(self, x):
        return self.conv.forward(x) * 2


def main():
    torch.compile(Outer(), backend="eager")(torch.randn(6, 4))


if __name__ == "__main__":
    main()
