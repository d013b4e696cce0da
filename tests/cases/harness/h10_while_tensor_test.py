import torch


@torch.compile(backend="eager", fullgraph=True)
def halve_strict(x):
    x = x * 2
    while x.abs().sum() > 100:
        x = x / 2
    return x


@torch.compile(backend="eager")
def halve(x):
    x = x * 2
    while x.abs().sum() > 1:
        torch._dynamo.graph_break()
        x = x / 2
    return x


def main():
    x = torch.ones(4)
    try:
        halve_strict(x)
    except torch._dynamo.exc.TorchDynamoException:
        pass
    halve(x)
