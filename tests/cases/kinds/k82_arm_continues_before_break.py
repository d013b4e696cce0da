# One arm may leave the loop iteration (`continue`) before its break: a way through meets no break, so the skip
# is not sure. In the measured run that arm continues on every step: no break at all, nothing skipped.
import torch


def accumulate(x: torch.Tensor, ptr: torch.Tensor, dense: bool, skip_all: bool):
    acc = x.new_zeros(x.shape[-1])
    for i in range(ptr.shape[0] - 1):
        if dense:
            if skip_all:
                continue
            acc = acc + x[slice(ptr[i], ptr[i + 1])].sum(0)
        else:
            acc = acc + x[slice(ptr[i], ptr[i + 1]), 0].sum()
    return acc


class Acc(torch.nn.Module):
    def __init__(self, dense, skip_all):
        super().__init__()
        self.dense = dense
        self.skip_all = skip_all

    def forward(self, x, ptr):
        return accumulate(x, ptr, self.dense, self.skip_all) * 3


def main():
    flag = len(__name__) > 0
    model = torch.compile(Acc(flag, flag), backend="eager")
    model(torch.randn(5, 2), torch.tensor([0, 1, 5]))
