"""``substitute_in_graph`` by its other spellings (``torch.compiler``, ``torch._dynamo.decorators``, an imported
alias): Dynamo traces the polyfill, never the original's ``print`` (found by a helper: definite diagnostics before)."""
import torch
from torch._dynamo import decorators as dyndec
from torch._dynamo.decorators import substitute_in_graph as sig2


def o1(x):
    print("o1")
    return x + 1


def o2(x):
    print("o2")
    return x + 2


def o3(x):
    print("o3")
    return x + 3


@torch.compiler.substitute_in_graph(o1)
def p1(x):
    return x + 1


@dyndec.substitute_in_graph(o2)
def p2(x):
    return x + 2


def p3(x):
    return x + 3


sig2(o3)(p3)


@torch.compile(backend="eager")
def e1(x):
    return o1(x) * 2


@torch.compile(backend="eager")
def e2(x):
    return o2(x) * 2


@torch.compile(backend="eager")
def e3(x):
    return o3(x) * 2


def main():
    x = torch.ones(3)
    e1(x)
    e2(x)
    e3(x)


main()
