# A break inside a `for` body skips the compiled frame (GB7000): it runs eagerly, and the helper it calls on
# each iteration is compiled on its own, once.
import torch


def layer(h, w):
    return torch.relu(h @ w)


def run(x, w):
    for _ in range(3):
        x = layer(x, w)
        torch._dynamo.graph_break()
    return x.sum()


def main():
    torch.compile(run, backend="eager")(torch.randn(2, 5), torch.randn(5, 5))
