# An empty list and an empty dict built in the compiled code pass through three functions (one a method of a plain
# class) before a helper tests them: the tests are false, nothing prints.
import torch
import torch.nn as nn


def audit(items, label):
    if items:
        print(label, items)


def relay(items, label):
    audit(items, label)


class Router:
    def route(self, pending, label):
        relay(pending, label)


def dispatch(router, pending, overrides, label):
    router.route(pending, label)
    if len(overrides) != 0:
        print("overrides", overrides)
    relay(overrides, label)


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.lin = nn.Linear(3, 3)
        self.router = Router()

    def forward(self, x):
        dispatch(self.router, [], {}, "net")
        return self.lin(x).relu()


def main():
    torch.compile(Net(), backend="eager")(torch.randn(2, 3))
