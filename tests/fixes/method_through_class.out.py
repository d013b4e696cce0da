import torch


class Stepper:
    def __init__(self, y):
        self.y = y

    def step(self, x, scale=1.0):
        print("stepping")
        return x * scale + self.y

    @staticmethod
    def plain(x):
        print("plain")
        return x + 1


SOLVERS = {"stepper": Stepper}


@torch.compile
def built_here(x):
    s = Stepper(x)
    return type(s).step(s, x, scale=2.0) * 2


@torch.compile
def picked(x, name="stepper"):
    solver = SOLVERS[name](x)
    return type(solver).plain(x) - 1
