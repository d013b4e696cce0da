# A method that stores an attribute only under a test false for the instance (`if self.cached:` with cached=False)
# never changes it: the attribute keeps its class default (None), so `if self.cache is None:` takes its body and
# the boolean-mask indexing there breaks (GB0036), definite. Before, the store in forward made the test undecided.
import torch


class Conv(torch.nn.Module):
    cache = None

    def __init__(self, cached=False):
        super().__init__()
        self.cached = cached

    def forward(self, x):
        if self.cache is None:
            y = x[x > 0]
            if self.cached:
                self.cache = y
        else:
            y = self.cache
        return y


def main():
    torch.compile(Conv(), backend="eager")(torch.randn(8))
