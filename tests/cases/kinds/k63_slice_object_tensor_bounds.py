# CSR-style reduction: slice objects built from a tensor's elements in a loop; the first one converts a tensor to a
# Python int (implicit .item(), GB0124) where Dynamo cannot resume, so the frame runs eagerly and the test of the
# neighbour count later in the loop body is never reached.
import torch


def reduce_rows(src: torch.Tensor, offsets: torch.Tensor):
    out = torch.zeros(offsets.shape[0] - 1, src.shape[1])
    for i in range(offsets.shape[0] - 1):
        rows = slice(offsets[i], offsets[i + 1])
        count = offsets[i + 1] - offsets[i]
        if count > 0:
            out[i] = src[rows].sum(0) / count
    return out


class Pool(torch.nn.Module):
    def forward(self, feats, ptr):
        return reduce_rows(feats * 2, ptr)


def main():
    model = torch.compile(Pool(), backend="eager")
    model(torch.randn(6, 3), torch.tensor([0, 2, 2, 6]))
