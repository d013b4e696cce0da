# Dict and set comprehensions in a frame skipped by a data-dependent branch in its loop, and a
# comprehension that holds no tensor (ints only).
import torch


def summarize(xs, names):
    kept = 0
    for t in xs:
        if t.sum().item() > 0:
            kept += 1
    sizes = [n * 2 for n in range(kept + 1)]
    table = {name: t.mean() for name, t in zip(names, xs)}
    shapes = {tuple(t.shape) for t in xs}
    return table, shapes, sizes


def main():
    torch.compile(summarize, backend="eager")([torch.randn(3), torch.randn(3)], ["a", "b"])
