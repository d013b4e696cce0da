# One definite break in the compiled function itself: Dynamo resumes after it, two graphs.
import torch


def step(x, w):
    h = torch.tanh(x @ w)
    torch._dynamo.graph_break()
    return (h * 2).sum()


def main():
    torch.compile(step, backend="eager")(torch.randn(3, 4), torch.randn(4, 4))
