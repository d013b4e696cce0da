# A parameter a loop rebinds only under a test the call makes false (trim is None) holds its argument in every
# step: the plain tensor passed in is no Parameter and not sparse, so neither branch breaks.
import torch


def helper(idx):
    if isinstance(idx, torch.nn.Parameter):
        torch._dynamo.graph_break()
    return idx


class M(torch.nn.Module):
    def forward(self, x, idx, trim=None):
        for i in range(2):
            if trim is not None:
                x, idx = trim(x, idx)
            helper(idx)
            if idx.is_sparse:
                torch._dynamo.graph_break()
            x = x + 1
        idx = idx * 2
        return x


def main():
    torch.compile(M(), backend="eager")(torch.ones(2), torch.randint(0, 2, (2, 3)))
