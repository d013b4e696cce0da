# The same shape the other way: a tensor bound before the `if`, an arm that rebinds it to a Python int, and the
# driver's flag leaves the tensor. The test on it breaks (GB0170 family); a comparison with a tensor operand breaks
# whichever arm ran.
import torch


def width(x: torch.Tensor, exact: bool):
    w = x.sum()
    if exact:
        w = 3
    if w > 1:
        x = x * 2
    if w > x.mean():
        x = x + 1
    return x


def main():
    fn = torch.compile(width, backend="eager")
    fn(torch.randn(4), False)
