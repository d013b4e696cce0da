# gblint-fix: --unsafe-fixes
import torch


class Scope:
    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return False


@torch.compile
def scoped(x):
    with Scope() as s:
        x = x * 2
        torch._dynamo.graph_break()
        x = x * 3
    return x.cos()
