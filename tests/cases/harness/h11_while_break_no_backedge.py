import torch


@torch.compile(backend="eager")
def once(x, flag=True):
    x = x * 2
    while flag:
        x = x + 1
        torch._dynamo.graph_break()
        x = x - 1
        break
    return x + 1


@torch.compile(backend="eager")
def once_in_loop(x, flag=True):
    for _ in range(2):
        x = x * 2
        while flag:
            torch._dynamo.graph_break()
            x = x + 1
            break
    return x


@torch.compile(backend="eager")
def with_continue(x, flag=True):
    n = 0
    x = x * 2
    while flag:
        torch._dynamo.graph_break()
        n += 1
        if n < 2:
            continue
        break
    return x + n


@torch.compile(backend="eager")
def returns(x, flag=True):
    x = x * 2
    while flag:
        x = x + 1
        torch._dynamo.graph_break()
        return x * 3
    return x


def main():
    x = torch.ones(4)
    once(x)
    once_in_loop(x)
    with_continue(x)
    returns(x)
