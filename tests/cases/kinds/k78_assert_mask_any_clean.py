# Guard: `assert mask.any(), "..."` on a tensor is no break (Dynamo turns it into torch._assert_async).
import torch


@torch.compile(backend="eager")
def masked_mean(x, mask):
    assert mask.any(), "empty mask"
    return (x * mask).sum() / mask.sum()


def main():
    x = torch.arange(5.0)
    return masked_mean(x, x > 1)
