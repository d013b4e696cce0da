# A validation guard behind a Python test: `if index is not None and not torch.all(...): raise ValueError(...)`
# branches on the tensor (GB0170) only when `index` is given. `if index is not None:` around
# `torch._assert_async(...)` keeps the order of the tests and the check in the graph (a message in adjacent literals).
import torch
import torch.nn as nn


class Pool(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(3, 3)

    def forward(self, x, index=None):
        y = self.fc(x)
        if index is not None and not torch.all(index[:-1] <= index[1:]):
            raise ValueError("Can not pool since the 'index' "
                             "tensor is not sorted")
        return y.sum(0)


def main():
    torch.manual_seed(0)
    return torch.compile(Pool(), backend="eager")(torch.randn(4, 3), torch.arange(4))
