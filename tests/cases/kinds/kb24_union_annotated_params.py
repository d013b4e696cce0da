# A parameter annotated with a union that may be a tensor (`Union[Tensor, Sparse]`, `Optional[Tensor]`, an alias
# of one, even `Tuple[Tensor, Tensor]`) holds what the caller passes: a tensor here, so `int(t.max())` breaks
# (GB0124) and a branch on it too. Before, such an annotation made the kind unknown and no break was reported
# ("All checks passed"). A parameter annotated with a class and passed an object is no tensor: no break.
from typing import Optional, Tuple, Union

import torch
from torch import Tensor


class Sparse:
    def max(self):
        return 3


Adj = Union[Tensor, Sparse]


def num_nodes(edge_index: Union[Tensor, Tuple[Tensor, Tensor], Sparse]) -> int:
    return int(edge_index.max()) + 1


def count(edge_index: Adj) -> int:
    return int(edge_index.max())


def scale(w: Optional[Tensor]):
    if w is not None and w.sum() > 0:
        return 2
    return 1


def sparse_nodes(s: Sparse) -> int:
    return int(s.max())


@torch.compile(backend="eager")
def f(x, e, w):
    return x * num_nodes(e) * count(e) * scale(w) * sparse_nodes(Sparse())


def main():
    f(torch.ones(3), torch.randint(0, 5, (2, 8)), torch.ones(2))
