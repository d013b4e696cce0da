# Guard: sizes and dims from shapes, len() and literals are Python ints Dynamo knows: no break.
import torch
import torch.nn.functional as F


@torch.compile(backend="eager")
def encode(idx: torch.Tensor, x: torch.Tensor):
    classes = x.shape[-1] + 1
    hot = F.one_hot(idx, num_classes=classes)
    pad = torch.zeros(len(x), x.size(0) - 1)
    return hot.float().sum() + x.repeat(2, 1).sum() + pad.sum() + x.topk(x.shape[0] // 2).values.sum()


def main():
    encode(torch.tensor([0, 2, 1]), torch.randn(3))
