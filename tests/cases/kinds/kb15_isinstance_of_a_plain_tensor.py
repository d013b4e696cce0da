# A tensor a torch factory made is a plain torch.Tensor: isinstance of it against a class of the program
# (here a fallback defined where an import of a package that is not installed fails) or nn.Parameter is
# False, so the branches do not run (no break).
import torch

try:
    from torch_sparse_missing import SparseTensor
except ImportError:
    class SparseTensor:
        def nnz(self):
            raise ImportError("no")


class Plain:
    pass


@torch.compile(backend="eager")
def f(x, idx):
    if isinstance(idx, SparseTensor):
        torch._dynamo.graph_break()
    if isinstance(idx, Plain):
        torch._dynamo.graph_break()
    if isinstance(idx, torch.nn.Parameter):
        torch._dynamo.graph_break()
    return x + 1


def main():
    f(torch.randn(3), torch.randint(0, 3, (2, 4)))
