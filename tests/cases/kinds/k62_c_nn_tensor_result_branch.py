# A torch._C._nn function whose stub returns Tensor: branching on its result is a tensor test (definite).
import torch


def act(x):
    y = torch._C._nn.gelu(x)
    if y.mean() > 0:
        return y
    return -y


def main():
    fn = torch.compile(act, backend="eager")
    fn(torch.randn(6))
