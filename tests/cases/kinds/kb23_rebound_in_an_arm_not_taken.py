# A name rebound in one arm of an `if` (here by unpacking a helper's result) still holds its earlier value in the
# other arm: with "symnorm" not among the aggregators the `elif` arm runs with the input tensor itself and breaks
# there (definite); with it, that arm does not run (no break). Before, any rebinding made the name unknown in
# every arm after it, and the break was only conditional.
import torch


def norm(e):
    return e * 2, None


class Conv(torch.nn.Module):
    def __init__(self, aggregators):
        super().__init__()
        self.aggregators = aggregators
        self.add_loops = True
        self._cache = None

    def forward(self, x, e):
        w = None
        if "symnorm" in self.aggregators:
            if isinstance(e, torch.Tensor):
                cache = self._cache
                if cache is None:
                    e, w = norm(e)
                else:
                    e, w = cache
            else:
                e = norm(e)
        elif self.add_loops:
            if isinstance(e, torch.Tensor):
                torch._dynamo.graph_break()
        return x + e.sum()


plain = Conv(["sum", "mean"])
normed = Conv(["symnorm"])


def main():
    x, e = torch.randn(4, 3), torch.ones(2, 5)
    torch.compile(plain, backend="eager")(x, e)
    torch.compile(normed, backend="eager")(x, e)
