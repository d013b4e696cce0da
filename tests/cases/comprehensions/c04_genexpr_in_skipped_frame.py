# Generator expressions (given to sum, tuple and torch.cat) in a frame skipped for a loop break, and a
# list comprehension over range() that indexes a captured tensor.
import torch


def pool(xs, x):
    for t in xs:
        torch._dynamo.graph_break()
    total = sum(t.sum() for t in xs)
    joined = torch.cat(tuple(t * 2 for t in xs))
    rows = [x[i] * 3 for i in range(2)]
    return total + joined.sum() + rows[0].sum()


def main():
    torch.compile(pool, backend="eager")([torch.randn(3), torch.randn(3)], torch.randn(2, 3))
