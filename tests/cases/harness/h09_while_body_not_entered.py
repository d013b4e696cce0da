import torch


@torch.compile(backend="eager")
def never_entered(x, ready=False):
    x = x * 2
    n = 0
    while ready:
        torch._dynamo.graph_break()
        x = x + 1
        n += 1
        if n == 2:
            break
    return x


@torch.compile(backend="eager")
def counted(x):
    x = x * 2
    n = 0
    while n < 2:
        torch._dynamo.graph_break()
        x = x + 1
        n += 1
    return x


def main():
    x = torch.ones(4)
    never_entered(x)
    counted(x)
