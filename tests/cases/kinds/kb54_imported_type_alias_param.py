"""A parameter annotated with a type alias imported from another module (torch's ``_TensorOrTensors``, as
torch_geometric's ``Adj = Union[Tensor, SparseTensor]``): what the alias means is not read where the function is,
so what the caller passes decides, as for a parameter without annotation. The driver passes a tensor to
``masked_steps``: its boolean-mask indexing in a loop skips the frame (definite; before, the parameter was taken
for no tensor and nothing was reported, "All checks passed"). ``scaled`` gets a Python number for its ``Number``
parameter: no break."""
import torch
from torch.types import Number, _TensorOrTensors


@torch.compile(backend="eager")
def masked_steps(x: _TensorOrTensors):
    out = x.sum() * 0
    for i in range(2):
        out = out + x[x > i].sum()
    return out


@torch.compile(backend="eager")
def scaled(x, k: Number):
    if k > 1:
        x = x * k
    return x + 1


def main():
    x = torch.arange(4.0)
    masked_steps(x)
    scaled(x, 2)


if __name__ == "__main__":
    main()
