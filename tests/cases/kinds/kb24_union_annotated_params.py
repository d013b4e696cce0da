# A parameter annotated with a union of tensor types (`Union[Tensor, Tuple[Tensor, Tensor], SparseTensor]`,
# `Optional[Tensor]`) holds what the caller passes: a tensor here, so `int(t.max())` breaks (GB0124) and a branch
# on it too. Before, such an annotation made the kind unknown and no break was reported ("All checks passed"). A
# parameter annotated with another class and passed an object is no tensor: no break. (An alias of a union,
# `Adj = Union[...]`, is not read through: its parameter's kind stays unknown.)
from typing import Optional, Tuple, Union

import torch
from torch import Tensor


class SparseTensor:
    def max(self):
        return 3


def num_nodes(edge_index: Union[Tensor, Tuple[Tensor, Tensor], SparseTensor]) -> int:
    return int(edge_index.max()) + 1


def scale(w: Optional[Tensor]):
    if w is not None and w.sum() > 0:
        return 2
    return 1


def sparse_nodes(s: SparseTensor) -> int:
    return int(s.max())


@torch.compile(backend="eager")
def f(x, e, w):
    return x * num_nodes(e) * scale(w) * sparse_nodes(SparseTensor())


def main():
    f(torch.ones(3), torch.randint(0, 5, (2, 8)), torch.ones(2))
