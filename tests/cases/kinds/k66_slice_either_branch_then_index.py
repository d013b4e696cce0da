# Each branch of a shape test builds a slice object from a tensor's elements in a loop: whichever runs breaks
# there (GB0124) and the frame is skipped, so the indexing and the count test after the branches are never reached.
import torch


def gather_rows(src: torch.Tensor, ptr: torch.Tensor):
    if src.ndim == 3:
        batched = True
    else:
        batched = False
    total = torch.zeros(src.shape[-1])
    for i in range(ptr.shape[-1] - 1):
        if batched:
            idx = (slice(None), slice(ptr[0, i], ptr[0, i + 1]))
        else:
            idx = slice(ptr[i], ptr[i + 1])
        part = src[idx]
        if ptr[i + 1] - ptr[i] > 0:
            total = total + part.sum(-2).reshape(-1)[: src.shape[-1]]
    return total


class Reduce(torch.nn.Module):
    def forward(self, x, ptr):
        return gather_rows(x + 1, ptr) * 2


def main():
    model = torch.compile(Reduce(), backend="eager")
    model(torch.randn(5, 3), torch.tensor([0, 2, 5]))
