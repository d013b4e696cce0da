# A validation guard in a helper the compiled forward calls: the break is nested (GB0170 in `check_finite`, which
# splits `forward` too). Rewritten where it is, in the helper, as in a compiled frame, nothing breaks. The guard
# under `mask is not None` never runs (`mask` is None at the call): no diagnostic, no rewrite.
import torch
import torch.nn as nn


def check_finite(y, mask=None):
    if mask is not None and not torch.isfinite(y[mask]).all():
        raise ValueError("non-finite values under the mask")
    if not torch.isfinite(y).all():
        raise ValueError("non-finite values")


class Head(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(3, 3)

    def forward(self, x):
        y = self.fc(x)
        check_finite(y)
        return y.softmax(-1)


def main():
    torch.manual_seed(0)
    return torch.compile(Head(), backend="eager")(torch.randn(2, 3))
