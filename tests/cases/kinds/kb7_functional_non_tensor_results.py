# torch.nn.functional functions whose stub does not say Tensor are not taken for tensors: max_pool1d with
# return_indices=True returns a tuple, has_torch_function a bool; a test on them is no break.
import torch
import torch.nn.functional as F


@torch.compile(backend="eager")
def pool(x):
    out = F.max_pool1d(x, 2, return_indices=True)
    if out:
        x = out[0] + 1
    if F.has_torch_function((x,)):
        x = x * 2
    return x


def main():
    pool(torch.randn(1, 1, 4))
