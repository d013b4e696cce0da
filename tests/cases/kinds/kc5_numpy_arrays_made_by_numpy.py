"""NumPy arrays made by NumPy functions (`np.ones`, `np.zeros`: torch._numpy returns a torch function's tensor for
them) are traced by Dynamo as tensors: a branch on one breaks (GB0170), made in the region, returned by a helper or
passed in a list. `isinstance(a, np.ndarray)` holds under Dynamo (no break, the branch runs), and so does
`torch.is_tensor(a)`, False in Python: the `print` under it runs and breaks."""
import numpy as np
import torch


def make():
    return np.zeros(2)


@torch.compile(backend="eager")
def made_inside(x):
    a = np.ones(3)
    if a.sum() > 2:
        return x + 1
    return x - 1


@torch.compile(backend="eager")
def from_helper(x):
    a = make()
    if a.any():
        return x * 3
    return x * 4


@torch.compile(backend="eager")
def item_of_list(x, arrays):
    a = arrays[0]
    if a.all():
        return x + 5
    return x - 5


@torch.compile(backend="eager")
def type_checks(x, a):
    if isinstance(a, np.ndarray):
        x = x * 2
    if torch.is_tensor(a):
        print("a tensor")
    return x


def main():
    x = torch.ones(2)
    made_inside(x)
    from_helper(x)
    item_of_list(x, [np.ones(2)])
    type_checks(x, np.ones(2))


if __name__ == "__main__":
    main()
