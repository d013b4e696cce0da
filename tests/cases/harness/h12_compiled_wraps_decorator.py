import functools

import torch


def logged(fn):
    @functools.wraps(fn)
    def wrapper(*args, **kwargs):
        out = fn(*args, **kwargs)
        return out

    return wrapper


@torch.compile(backend="eager", fullgraph=True)
@logged
def strict_step(x):
    x = x * 2
    torch._dynamo.graph_break()
    return x + 1


@torch.compile(backend="eager")
@logged
def step(x):
    x = x * 2
    torch._dynamo.graph_break()
    return x + 1


def main():
    x = torch.ones(4)
    try:
        strict_step(x)
    except torch._dynamo.exc.TorchDynamoException:
        pass
    step(x)
