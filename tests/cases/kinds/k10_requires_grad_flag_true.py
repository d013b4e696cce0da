# A keyword flag passed True by the caller sets requires_grad of a new tensor inside compiled code.
import torch


@torch.compile(backend="eager")
def build(x, trainable):
    w = torch.zeros(x.shape[-1], requires_grad=trainable)
    return x * 2 + w


def main():
    build(torch.randn(2, 3), True)
