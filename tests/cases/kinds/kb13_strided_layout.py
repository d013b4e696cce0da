# A tensor a torch factory makes is strided (dense): its layout is torch.strided, is_sparse is False, and
# methods keep the layout; tests on the layout that a sparse input would take are decided (no break).
import torch


def is_sparse_t(src):
    if isinstance(src, torch.Tensor):
        if src.layout == torch.sparse_coo:
            return True
        if src.layout == torch.sparse_csr:
            return True
    return False


@torch.compile(backend="eager")
def f(x, idx):
    if is_sparse_t(idx):
        torch._dynamo.graph_break()
    if idx.is_sparse:
        print("sparse")
    y = x.float()
    if y.layout != torch.strided:
        torch._dynamo.graph_break()
    return x + 1


def main():
    f(torch.randn(3), torch.randint(0, 3, (2, 4)))
