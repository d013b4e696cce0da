# NumPy functions Dynamo runs as torch._numpy whose result is a Python bool (`t.numel() == 1`,
# `not torch.is_complex(x)`): the call breaks (GB0208) whatever the argument, a Python int or an array.
import numpy as np
import torch


def scale(x: torch.Tensor, k):
    if np.isscalar(k):
        x = x * k
    arr = x.numpy()
    if np.isrealobj(arr):
        x = x + 1
    return x


class Scale(torch.nn.Module):
    def forward(self, x):
        return scale(x * 2, 3) - 1


def main():
    model = torch.compile(Scale(), backend="eager")
    model(torch.randn(4))
