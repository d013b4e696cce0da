# A nested function reads a free name from its cell when it runs: after a `nonlocal` assignment in
# another nested function, or a later binding in the enclosing function, the tensor bound first is gone
# (no break). A name bound once stays what it was bound to (a break).
import torch


def make_nonlocal():
    flag = torch.tensor(True)

    def clear():
        nonlocal flag
        flag = False

    def g(x):
        clear()
        if flag:
            x = x + 1
        return x * 2
    return g


def make_rebound():
    flag = torch.tensor(True)

    def g(x):
        if flag:
            x = x + 1
        return x * 2
    flag = False
    return g


def make_once():
    flag = torch.tensor(True)

    def g(x):
        if flag:
            x = x + 1
        return x * 2
    return g


def main():
    for make in (make_nonlocal, make_rebound):
        torch.compile(make(), backend="eager")(torch.ones(2))
    torch.compile(make_once(), backend="eager")(torch.ones(2))
