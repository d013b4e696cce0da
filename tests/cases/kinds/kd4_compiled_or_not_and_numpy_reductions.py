"""Values and regions gblint took for facts (definite diagnostics before, or none where Dynamo broke): a module flag
derived from an optional import (``try: import x`` / ``except ImportError: x = None``, then ``HAS_X = x is not
None``) is either value, not the import's; ``torch.compile(f, disable=not USE_COMPILE)`` with ``USE_COMPILE =
False`` compiles nothing, nor does ``torch.compile(model)`` whose result is thrown away; ``int(np.prod(x.shape[1:]))``
reads a 0-d tensor's data (``torch._numpy`` reductions return one even of Python values: GB0033), while
``int(np.ceil(n / 2))`` is folded; ``x.reshape(-1, np.prod(x.shape[1:]))`` reads it too. Measured on torch 2.13."""
import numpy as np
import torch
from torch import nn

try:
    import gblint_kd4_no_such_module as extra
except ImportError:
    extra = None

HAS_EXTRA = extra is not None
NO_EXTRA = extra is None
USE_COMPILE = False


def flags(x):
    if HAS_EXTRA:
        torch._dynamo.graph_break()
    if not NO_EXTRA:
        torch._dynamo.graph_break()
    return x + 1


def step(x):
    torch._dynamo.graph_break()
    return x * 2


class Net(nn.Module):
    def forward(self, x):
        torch._dynamo.graph_break()
        return x - 1


def reductions(x):
    n = x.shape[0]
    y = x.view(x.shape[0], int(np.prod(x.shape[1:])))
    y = y[: int(np.ceil(n / 2))]
    y = y * int(np.max(x.shape)) * float(np.mean([1.0, 3.0]))
    return y * int(np.sqrt(4.0))


def sized(x):
    return x.reshape(-1, np.prod(x.shape[1:]))


def main():
    torch.compile(flags, backend="eager")(torch.randn(4))
    torch.compile(step, backend="eager", disable=not USE_COMPILE)(torch.randn(4))
    net = Net()
    torch.compile(net, backend="eager")
    net(torch.randn(4))
    torch.compile(reductions, backend="eager")(torch.randn(2, 3, 4))
    torch.compile(sized, backend="eager")(torch.randn(2, 3, 4))


if __name__ == "__main__":
    main()
