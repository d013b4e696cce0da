"""Compiled objects only a comprehension, a parameter's default or a class attribute nobody reads keeps are traced
only when some code calls them (found by a helper: definite diagnostics before); one called out of a comprehension's
list breaks."""
import torch


def one(x):
    print("one")
    return x + 1


def two(x):
    if x.sum() > 0:
        return x + 2
    return x - 2


def body(x):
    print("body")
    return x + 3


def work(x):
    print("work")
    return x + 4


def run(x, fn=torch.compile(body, backend="eager")):
    return x


class Ops:
    spare = torch.compile(work, backend="eager")
    also = staticmethod(torch.compile(work, backend="eager"))


def main():
    x = torch.ones(3)
    fns = [torch.compile(f, backend="eager") for f in (one, two)]
    fns[1](x)
    table = {f.__name__: torch.compile(f, backend="eager") for f in (one,)}
    print(sorted(table))
    run(x)
    print(Ops.__name__)


main()
