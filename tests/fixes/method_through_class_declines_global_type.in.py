import torch


class Stepper:
    def __init__(self, y):
        self.y = y

    def step(self, x):
        print("stepping")
        return x + self.y


def install():
    global type  # another function rebinds the builtin for the whole module
    type = lambda obj: Stepper  # noqa: E731


@torch.compile
def built_here(x):
    s = Stepper(x)
    return s.step(x) * 2
