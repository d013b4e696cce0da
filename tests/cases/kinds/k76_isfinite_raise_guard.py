# A validation guard on tensor data: `if not torch.isfinite(y).all(): raise ValueError(...)` breaks the graph
# (GB0170). `torch._assert_async(cond, msg)` keeps the check in the graph and still raises on bad data.
import torch
import torch.nn as nn


class Head(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(3, 3)

    def forward(self, x):
        y = self.fc(x)
        if not torch.isfinite(y).all():
            raise ValueError("non-finite logits")
        return y.softmax(-1)


def main():
    torch.manual_seed(0)
    return torch.compile(Head(), backend="eager")(torch.randn(2, 3))
